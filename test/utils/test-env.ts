import { randomBytes } from 'node:crypto';

/**
 * The environment every test process shares. Global setup picks a fresh database name and a Bull
 * prefix for this run and passes them to the workers through process.env.
 */
export const TEST_DATABASE_SERVER =
  process.env.TEST_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';

export function testEnv(): NodeJS.ProcessEnv {
  return {
    NODE_ENV: 'test',
    DATABASE_URL: process.env.TEST_DATABASE_URL,
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: process.env.TEST_QUEUE_PREFIX,
    ADMIN_TOKEN: process.env.TEST_ADMIN_TOKEN,
    JWT_SECRET: 'test-jwt-secret-test-jwt-secret-0123456789',
    REF_SIGNING_SECRET: 'test-ref-secret-test-ref-secret-0123456789',
    SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    PUBLIC_BASE_URL: 'http://localhost:3000',
    MIGRATIONS_RUN: 'false',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    RATE_LIMITS: 'off',
  };
}

/** The database of Jest worker `worker` (2, 3, …): a copy of the run's database `name`. */
export function workerDatabaseName(name: string, worker: number): string {
  return `${name}_w${worker}`;
}

export function newRunId(): string {
  return `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}
