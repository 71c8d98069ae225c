import { Client } from 'pg';
import Redis from 'ioredis';
import { quoteIdent } from '../../src/database/ensure-database';
import { TEST_DATABASE_SERVER } from './test-env';

export default async function globalTeardown(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (url && !process.env.KEEP_TEST_DATABASE) {
    const name = new URL(url).pathname.slice(1);
    const admin = new Client({ connectionString: `${TEST_DATABASE_SERVER}/postgres` });
    await admin.connect();
    // The run's database and the copies of its other workers (global-setup.ts).
    const { rows } = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $1 || '\\_w%'`,
      [name],
    );
    for (const { datname } of rows) {
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(datname)} WITH (FORCE)`);
    }
    await admin.end();
  }
  const prefix = process.env.TEST_QUEUE_PREFIX;
  if (prefix) {
    // The run's keys and those of the files' own prefixes, which are put under the run's
    // (create-test-app.ts): `test_<run>:…` and `test_<run>_<file prefix>:…`.
    const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
    for (const match of [`${prefix}:*`, `${prefix}_*`]) {
      const stream = redis.scanStream({ match, count: 1000 });
      for await (const keys of stream as AsyncIterable<string[]>) {
        if (keys.length) await redis.del(...keys);
      }
    }
    redis.disconnect();
  }
}
