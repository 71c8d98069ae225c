// The DataSource the TypeORM CLI uses (`npm run migration:generate -- src/database/migrations/Name`,
// `migration:run`, `migration:revert`). Same options as the app; DATABASE_URL as in SPEC 7.
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './src/database/data-source';

export default new DataSource(
  dataSourceOptions(process.env.DATABASE_URL ?? 'postgres://postgres@localhost:5432/referrals'),
);
