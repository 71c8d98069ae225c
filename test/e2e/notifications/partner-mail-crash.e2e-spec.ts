/**
 * Partner mail across crashes and SMTP outages (docs/notifications.md, "Delivery"): real worker
 * processes (src/main.ts, PROCESS_ROLE=worker) sending to a real SMTP server started here. The
 * worker is SIGKILLed right after the SMTP server accepted a mail (before the log could say so),
 * and again while the SMTP server is down; afterwards every event's mail has arrived, and any
 * second copy carries the same Message-ID. The figures (expected, arrived, copies) are printed.
 */
import { Client } from 'pg';
import { ensureDatabase, quoteIdent, runMigrations } from '../../../src/database/ensure-database';
import { createLead } from '../../factories/money.factory';
import { createTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { adminApi } from '../../utils/api-client';
import { createTestApp, type TestApp } from '../../utils/create-test-app';
import {
  freePort,
  type ManagedChild,
  spawnWorker,
  stopAllChildren,
  workerStarted,
} from '../../utils/processes';
import { type CaughtMail, type SmtpCatcher, startSmtpCatcher } from '../../utils/smtp-catcher';
import { newRunId, TEST_DATABASE_SERVER, testEnv } from '../../utils/test-env';

jest.setTimeout(300_000);

const runId = newRunId();
const DATABASE_URL = `${TEST_DATABASE_SERVER}/referrals_test_mailcrash_${runId}`;
const PER_PHASE = 10;

let smtpPort: number;
let smtp: SmtpCatcher | undefined;
/** Every mail that reached an SMTP server of this test, across its restarts. */
const arrived: CaughtMail[] = [];
/** Kill the worker after this many more accepted mails (0: never). */
let killAfterAccept = 0;
let worker: ManagedChild | undefined;
let t: TestApp;
let env: NodeJS.ProcessEnv;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startSmtp(): Promise<void> {
  smtp = await startSmtpCatcher({
    port: smtpPort,
    accepted: (mail) => {
      arrived.push(mail);
      if (killAfterAccept > 0 && --killAfterAccept === 0) void worker?.kill();
    },
  });
}

async function startTheWorker(name: string): Promise<void> {
  worker = spawnWorker(name, env);
  await workerStarted(worker, 120_000);
}

beforeAll(async () => {
  await ensureDatabase(DATABASE_URL);
  await runMigrations(DATABASE_URL);
  smtpPort = await freePort();
  env = {
    ...testEnv(),
    DATABASE_URL,
    QUEUE_PREFIX: `${process.env.TEST_QUEUE_PREFIX ?? 'test'}_mailcrash_${runId}`,
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    NOTIFICATION_POLL_MS: '200',
    // A claim's lease is 2 × 1000 + 1000 ms; retries every second, for long enough to outlast
    // the outage.
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_RETRY_DELAYS_MS: Array(30).fill('1000').join(','),
  };
  await startSmtp();
  t = await createTestApp({ ...env, PROCESS_ROLE: 'api' });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await smtp?.close();
  await stopAllChildren();
  const admin = new Client({ connectionString: `${TEST_DATABASE_SERVER}/postgres` });
  await admin.connect();
  const name = new URL(DATABASE_URL).pathname.slice(1);
  await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
  await admin.end();
}, 60_000);

it('mails every event once, a copy after a crash carrying the same Message-ID', async () => {
  const tenant = await createTenant(t, {
    locale: 'en-US',
    program: { lead_bonus_kopecks: 10_000, tiers: [{ tier: 'referrer', percent_bp: 1000 }] },
  });
  const email = `crash-${tenant.slug}@example.org`;
  const partner = await upsertUser(t, tenant.key, { email, full_name: 'Crash' });
  await adminApi(t, t.adminToken)
    .raw('put', `/admin/v1/tenants/${tenant.slug}/users/${partner.serviceUserId}/notifications`, {
      preferences: { 'bonus.pending': 'instant' },
    })
    .expect(200);

  // Phase 1: the worker dies right after the SMTP server accepted its first mail.
  killAfterAccept = 1;
  const leads = async (from: number) => {
    for (let i = from; i < from + PER_PHASE; i++)
      await createLead(t, tenant.key, partner.serviceUserId, {
        contact: { name: `Lead ${i}`, email: `lead${i}@example.org` },
      });
  };
  await leads(0);
  await startTheWorker('mail-worker-1');
  for (let i = 0; i < 600 && worker!.running; i++) await sleep(100);
  expect(worker!.running).toBe(false);
  const acceptedBeforeCrash = arrived.length;

  // Phase 2: the SMTP server goes down; a new worker fails its attempts, and is killed too.
  await smtp!.close();
  smtp = undefined;
  await leads(PER_PHASE);
  await startTheWorker('mail-worker-2');
  const failing = async () => {
    const [{ n }]: { n: number }[] = await t.db.query(
      `SELECT count(*)::int AS n FROM notifications WHERE tenant_id = $1 AND last_error IS NOT NULL`,
      [tenant.orgId],
    );
    return n;
  };
  for (let i = 0; i < 300 && (await failing()) === 0; i++) await sleep(100);
  expect(await failing()).toBeGreaterThan(0);
  await worker!.kill();

  // Phase 3: the SMTP server is back on its port, and a third worker finishes the work.
  await startSmtp();
  await startTheWorker('mail-worker-3');
  const expected = 2 * PER_PHASE;
  const sent = async () => {
    const rows: { message_id: string; status: string }[] = await t.db.query(
      `SELECT message_id, status FROM notifications WHERE tenant_id = $1`,
      [tenant.orgId],
    );
    return rows;
  };
  for (let i = 0; i < 600; i++) {
    const rows = await sent();
    if (rows.length === expected && rows.every((r) => r.status === 'sent')) break;
    await sleep(100);
  }
  const rows = await sent();
  expect(rows).toHaveLength(expected);
  expect(rows.every((r) => r.status === 'sent')).toBe(true);

  const mine = arrived.filter((m) => m.to.includes(email.toLowerCase()));
  const byId = new Map<string, CaughtMail[]>();
  for (const m of mine)
    byId.set(m.headers['message-id'], [...(byId.get(m.headers['message-id']) ?? []), m]);
  const copies = mine.length - byId.size;
  process.stdout.write(
    `partner mail crash test: expected ${expected}, arrived ${byId.size} distinct ` +
      `(${mine.length} in all, ${acceptedBeforeCrash} before the first kill), copies ${copies}\n`,
  );
  // Every event's mail arrived, under the Message-ID the log holds for it.
  expect([...byId.keys()].sort()).toEqual(rows.map((r) => r.message_id).sort());
  // Each lead's mail has exactly one Message-ID, however many copies came.
  for (let i = 0; i < expected; i++) {
    const ids = new Set(
      mine.filter((m) => m.text.includes(`for Lead ${i}.`)).map((m) => m.headers['message-id']),
    );
    expect(ids.size).toBe(1);
  }
  // The kill after the accept left the log unwritten: that mail came twice, same Message-ID.
  expect(copies).toBeGreaterThanOrEqual(1);
  for (const group of byId.values()) expect(new Set(group.map((m) => m.subject)).size).toBe(1);
});
