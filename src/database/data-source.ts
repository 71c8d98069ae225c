import { DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

/** Connections per process unless DATABASE_POOL_SIZE says otherwise. */
export const DEFAULT_POOL_SIZE = 10;

export interface PoolLimits {
  size?: number;
  /** How long a checkout waits for a free (or new) connection; 0 or absent: for ever (pg's default). */
  connectTimeoutMs?: number;
  /** Each session's statement_timeout, sent at connect; 0 or absent: none. */
  statementTimeoutMs?: number;
}

/** The TypeORM options shared by the app, `ormconfig.ts` (migration CLI) and the tests. */
export function dataSourceOptions(
  databaseUrl: string,
  limits: PoolLimits | number = DEFAULT_POOL_SIZE,
): DataSourceOptions {
  const {
    size = DEFAULT_POOL_SIZE,
    connectTimeoutMs,
    statementTimeoutMs,
  } = typeof limits === 'number' ? { size: limits } : limits;
  return {
    type: 'postgres',
    url: databaseUrl,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    extra: {
      max: size,
      application_name: 'referral-service',
      ...(connectTimeoutMs ? { connectionTimeoutMillis: connectTimeoutMs } : {}),
      ...(statementTimeoutMs ? { statement_timeout: statementTimeoutMs } : {}),
    },
  };
}
