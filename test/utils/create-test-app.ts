import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.setup';
import type { AppConfig } from '../../src/config/app-config';
import { loadConfig } from '../../src/config/load-config';
import { testEnv } from './test-env';

export interface TestApp {
  app: NestExpressApplication;
  config: AppConfig;
  http: () => TestAgent;
  db: DataSource;
  adminToken: string;
  close: () => Promise<void>;
}

/** The real application (same `createApp` as main.ts) against this run's database and Redis. */
export async function createTestApp(overrides: NodeJS.ProcessEnv = {}): Promise<TestApp> {
  const env = { ...testEnv(), ...overrides, ...runScopedQueuePrefix(overrides) };
  const config = loadConfig({ ...env, ...throughPgBouncer(env) });
  const app = await createApp(config);
  await app.init();
  return {
    app,
    config,
    http: () => request(app.getHttpServer()),
    db: app.get(DataSource),
    adminToken: config.adminToken,
    close: () => app.close(),
  };
}

/**
 * Under `npm run test:pgbouncer` (test/scale/through-pgbouncer.ts) the app reaches PostgreSQL
 * through the run's PgBouncer in transaction mode, and migrates on the direct connection.
 */
function throughPgBouncer(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const port = process.env.TEST_PGBOUNCER_PORT;
  if (!port || !env.DATABASE_URL) return {};
  const pooled = new URL(env.DATABASE_URL);
  pooled.hostname = '127.0.0.1';
  pooled.port = port;
  return { DATABASE_URL: pooled.toString(), MIGRATIONS_DATABASE_URL: env.DATABASE_URL };
}

/**
 * A file's own Bull prefix (`whadm_…`) is put under the run's prefix, so that global teardown,
 * which deletes every key of the run's prefix, leaves nothing of the run in Redis.
 */
function runScopedQueuePrefix(overrides: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const run = process.env.TEST_QUEUE_PREFIX;
  const own = overrides.QUEUE_PREFIX;
  if (!run || !own || own.startsWith(run)) return {};
  return { QUEUE_PREFIX: `${run}_${own}`.slice(0, 64) };
}
