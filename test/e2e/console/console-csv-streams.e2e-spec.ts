import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EntityManager } from 'typeorm';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { createTestApp, type TestApp } from '../../utils/create-test-app';
import { orgSignIn } from '../../utils/pages-http';
import { until } from '../../utils/until';

/**
 * A console CSV download is a stream from one `COPY` (docs/architecture.md, "CSV downloads"):
 * a browser that goes away mid-download ends the copy and gives its connection back, and a copy
 * that fails mid-way cuts the download, so a truncated file never arrives looking whole.
 */
jest.setTimeout(60_000);

/**
 * Partners enough that the file (about 25 MB) is far larger than what the connection, the
 * streams and the sockets between the copy and a paused reader hold: the copy is still running
 * while the test acts on it.
 */
const PARTNERS = 250_000;

let t: TestApp;
let org: TestTenant;
let cookie: string;
let port: number;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen(0, '127.0.0.1');
  port = (t.app.getHttpServer().address() as AddressInfo).port;
  org = await createTenant(t);
  cookie = await orgSignIn(t.http, await createStaffToken(t, org.slug, 'viewer'));
  const tag = org.orgId.slice(-8);
  // A quarter of a million rows is the fixture, not what is measured: its statements may take
  // longer than the pool's statement_timeout (DATABASE_STATEMENT_TIMEOUT_MS) on a loaded machine.
  await t.db.transaction(async (db) => {
    await db.query(`SET LOCAL statement_timeout = '10min'`);
    await seed(db, tag);
  });
}, 180_000);
afterAll(() => t.close());

async function seed(db: EntityManager, tag: string): Promise<void> {
  await db.query(
    `INSERT INTO service_users (id) SELECT 'usr_csv' || $2 || n FROM generate_series(1, $1::int) n`,
    [PARTNERS, tag],
  );
  await db.query(
    `INSERT INTO members (tenant_id, id, service_user_id, external_id, full_name, root_member_id)
     SELECT $1, 'mbr_csv' || $3 || n, 'usr_csv' || $3 || n, 'crm-' || n, 'Partner ' || n,
            'mbr_csv' || $3 || n
       FROM generate_series(1, $2::int) n`,
    [org.orgId, PARTNERS, tag],
  );
}

/** The download's response once its first bytes came, its reading paused. */
function startDownload(): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { port, host: '127.0.0.1', path: `/org/${org.slug}/partners.csv`, headers: { cookie } },
      (res) => {
        res.once('data', () => {
          res.pause();
          resolve(res);
        });
      },
    );
    req.once('error', reject);
  });
}

/** The copies this test's database is running now, with their backends. */
const copies = () =>
  t.db.query<{ pid: number }[]>(
    `SELECT pid FROM pg_stat_activity
      WHERE datname = current_database() AND state = 'active' AND query LIKE 'COPY (%'
        AND pid <> pg_backend_pid()`,
  );

it('a whole download is every partner, with the header line', async () => {
  const res = await t.http().get(`/org/${org.slug}/partners.csv`).set('Cookie', cookie);
  expect(res.status).toBe(200);
  expect(res.headers['content-disposition']).toBe(
    `attachment; filename="partners-${org.slug}.csv"`,
  );
  expect(res.text.trim().split('\n')).toHaveLength(PARTNERS + 1);
});

it('a browser leaving mid-download ends the copy, and the next download is whole', async () => {
  for (let i = 0; i < 3; i++) {
    const res = await startDownload();
    expect(res.statusCode).toBe(200);
    await until('the copy to run', async () => (await copies()).length === 1);
    res.destroy();
    await until('the copy to end', async () => (await copies()).length === 0);
  }
  const whole = await t.http().get(`/org/${org.slug}/partners.csv`).set('Cookie', cookie);
  expect(whole.text.trim().split('\n')).toHaveLength(PARTNERS + 1);
});

it('a copy failing mid-way cuts the download: it never ends as if whole', async () => {
  const res = await startDownload();
  await until('the copy to run', async () => (await copies()).length === 1);
  const [copy] = await copies();
  const ended = new Promise<{ complete: boolean; bytes: number }>((resolve) => {
    let bytes = 0;
    res.on('data', (chunk: Buffer) => (bytes += chunk.length));
    res.once('close', () => resolve({ complete: res.complete, bytes }));
    res.on('error', () => undefined);
  });
  await t.db.query('SELECT pg_terminate_backend($1)', [copy.pid]);
  res.resume();
  const { complete, bytes } = await ended;
  expect(complete).toBe(false);
  expect(bytes).toBeGreaterThan(0);
  // The service goes on: the next download is whole.
  const whole = await t.http().get(`/org/${org.slug}/partners.csv`).set('Cookie', cookie);
  expect(whole.text.trim().split('\n')).toHaveLength(PARTNERS + 1);
});
