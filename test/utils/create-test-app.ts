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
  const config = loadConfig({ ...testEnv(), ...overrides, ...runScopedQueuePrefix(overrides) });
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
 * A file's own Bull prefix (`whadm_…`) is put under the run's prefix, so that global teardown,
 * which deletes every key of the run's prefix, leaves nothing of the run in Redis.
 */
function runScopedQueuePrefix(overrides: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const run = process.env.TEST_QUEUE_PREFIX;
  const own = overrides.QUEUE_PREFIX;
  if (!run || !own || own.startsWith(run)) return {};
  return { QUEUE_PREFIX: `${run}_${own}`.slice(0, 64) };
}
