/**
 * `npm run test:pgbouncer`: the money, webhooks and embed e2e suites once more, with every app's
 * DATABASE_URL pointing at a private PgBouncer in transaction pooling mode in front of the test
 * PostgreSQL (docs/operations.md; docs/operations.md). Migrations stay on the direct connection
 * (MIGRATIONS_DATABASE_URL). Afterwards PgBouncer's own counters must show the transactions went
 * through it. Extra arguments are passed to Jest (e.g. another path pattern).
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { PrivatePgBouncer } from '../utils/private-pgbouncer';
import { TEST_DATABASE_SERVER } from '../utils/test-env';

// By file name: the money specs live in conversions/ and bonuses/, the others in their own folder.
const SUITES = ['test/e2e/[^/]+/(money|webhooks|embed)[^/]*\\.e2e-spec\\.ts$'];

async function main(): Promise<number> {
  const server = new URL(TEST_DATABASE_SERVER);
  const bouncer = await PrivatePgBouncer.start({
    host: server.hostname,
    port: Number(server.port || 5432),
  });
  try {
    const args = process.argv.slice(2);
    const jest = spawnSync(
      process.execPath,
      [
        resolve(__dirname, '../../node_modules/jest/bin/jest.js'),
        '--config',
        'jest.config.js',
        ...(args.length ? args : SUITES),
      ],
      {
        cwd: resolve(__dirname, '../..'),
        stdio: 'inherit',
        env: { ...process.env, TEST_PGBOUNCER_PORT: String(bouncer.port) },
      },
    );
    const transactions = await pooledTransactions(bouncer.port);
    process.stdout.write(
      `\nPgBouncer (transaction mode, :${bouncer.port}) ran ${transactions} transactions\n`,
    );
    if (transactions < 20) {
      process.stderr.write('Too few transactions went through PgBouncer: the apps bypassed it\n');
      return 1;
    }
    return jest.status ?? 1;
  } finally {
    await bouncer.stop();
  }
}

/** Transactions PgBouncer passed on, from its admin console (`SHOW STATS`). */
async function pooledTransactions(port: number): Promise<number> {
  const admin = new Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/pgbouncer` });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ database: string; total_xact_count: string }>(
      'SHOW STATS',
    );
    return rows.reduce((sum, row) => sum + Number(row.total_xact_count), 0);
  } finally {
    await admin.end();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
