import { DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

/** Connections per process unless DATABASE_POOL_SIZE says otherwise. */
export const DEFAULT_POOL_SIZE = 10;

/** The TypeORM options shared by the app, `ormconfig.ts` (migration CLI) and the tests. */
export function dataSourceOptions(
  databaseUrl: string,
  poolSize = DEFAULT_POOL_SIZE,
): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    extra: { max: poolSize, application_name: 'referral-service' },
  };
}
