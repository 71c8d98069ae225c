import { randomBytes } from 'node:crypto';
import { ensureDatabase, runMigrations } from '../../src/database/ensure-database';
import { newRunId, TEST_DATABASE_SERVER } from './test-env';

/** One database per test run, created and migrated here, dropped in global teardown. */
export default async function globalSetup(): Promise<void> {
  const runId = newRunId();
  const url = `${TEST_DATABASE_SERVER}/referrals_test_${runId}`;
  process.env.TEST_DATABASE_URL = url;
  process.env.TEST_QUEUE_PREFIX = `test_${runId}`;
  process.env.TEST_ADMIN_TOKEN = `adm_${randomBytes(24).toString('base64url')}`;
  await ensureDatabase(url);
  await runMigrations(url);
}
