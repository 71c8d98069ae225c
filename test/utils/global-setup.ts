import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { ensureDatabase, quoteIdent, runMigrations } from '../../src/database/ensure-database';
import { newRunId, TEST_DATABASE_SERVER, workerDatabaseName } from './test-env';

/**
 * One database per test run, created and migrated here, dropped in global teardown; with more
 * than one Jest worker, each further worker gets a copy of it (`CREATE DATABASE … TEMPLATE`) and
 * a Bull prefix of its own (./worker-env.ts), so files that run at once share no rows and no
 * queue: each worker is an in-band run of its own.
 */
export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  const runId = newRunId();
  const name = `referrals_test_${runId}`;
  const url = `${TEST_DATABASE_SERVER}/${name}`;
  process.env.TEST_DATABASE_URL = url;
  process.env.TEST_QUEUE_PREFIX = `test_${runId}`;
  process.env.TEST_ADMIN_TOKEN = `adm_${randomBytes(24).toString('base64url')}`;
  await ensureDatabase(url);
  await runMigrations(url);
  const admin = new Client({ connectionString: `${TEST_DATABASE_SERVER}/postgres` });
  await admin.connect();
  try {
    for (let worker = 2; worker <= globalConfig.maxWorkers; worker++) {
      await admin.query(
        `CREATE DATABASE ${quoteIdent(workerDatabaseName(name, worker))} TEMPLATE ${quoteIdent(name)}`,
      );
    }
  } finally {
    await admin.end();
  }
}
