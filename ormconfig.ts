// The DataSource the TypeORM CLI uses (`npm run migration:generate -- src/database/migrations/Name`,
// `migration:run`, `migration:revert`). Same options as the app; MIGRATIONS_DATABASE_URL (a direct
// connection when DATABASE_URL points at PgBouncer), else DATABASE_URL, as in SPEC 7 and 12.
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './src/database/data-source';

export default new DataSource(
  dataSourceOptions(
    process.env.MIGRATIONS_DATABASE_URL ??
      process.env.DATABASE_URL ??
      'postgres://postgres@localhost:5432/referrals',
  ),
);
