/**
 * The delivery engine's bookkeeping under faults it must survive without losing or wasting an
 * attempt (docs/webhooks.md): a claim given back after its lock lapsed, a statement PostgreSQL refuses
 * for one lane's record, and a delivery whose job was lost while its endpoint is never idle.
 * Real PostgreSQL (a database of this file's own, so no other file's sweeper touches these
 * deliveries), real Redis and Bull, real HTTPS receivers; faults are injected in the database
 * (a trigger) and in Redis (a job removed), never by mocking.
 */
import Bull from 'bull';
import type { ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Client, Pool } from 'pg';
import { ensureDatabase, quoteIdent, runMigrations } from '../../../src/database/ensure-database';
import { DeliveriesRepository } from '../../../src/webhooks/engine/deliveries.repository';
import type { ArrayQuery, FlushInput } from '../../../src/webhooks/engine/deliveries.types';
import { deliverJobId } from '../../../src/webhooks/engine/job-ids';
import { type DeliverJob, WEBHOOKS_QUEUE } from '../../../src/webhooks/webhook.queue';
import { createLead, eventsOf } from '../../factories/money.factory';
import { createTenant, type TestTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { createTestApp, type TestApp } from '../../utils/create-test-app';
import { selfSignedCertificate, startHttpsReceiver } from '../../utils/https-receiver';
import { newRunId, TEST_DATABASE_SERVER } from '../../utils/test-env';

jest.setTimeout(60_000);

const runId = newRunId();
const DATABASE_URL = `${TEST_DATABASE_SERVER}/referrals_test_whengine_${runId}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const toClose: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  await ensureDatabase(DATABASE_URL);
  await runMigrations(DATABASE_URL);
}, 30_000);

afterEach(async () => {
  while (toClose.length) await toClose.pop()!().catch(() => undefined);
}, 30_000);

afterAll(async () => {
  const admin = new Client({ connectionString: `${TEST_DATABASE_SERVER}/postgres` });
  await admin.connect();
  const name = new URL(DATABASE_URL).pathname.slice(1);
  await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
  await admin.end();
}, 30_000);

async function app(env: NodeJS.ProcessEnv): Promise<TestApp> {
  const t = await createTestApp({
    DATABASE_URL,
    QUEUE_PREFIX: `whengine_${newRunId()}`,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_CA_FILE: selfSignedCertificate().caFile,
    WEBHOOK_SWEEP_MS: '500',
    ...env,
  });
  toClose.push(() => t.close());
  return t;
}

async function putWebhook(t: TestApp, tenant: TestTenant, url: string): Promise<void> {
  const res = await t
    .http()
    .put(`/admin/v1/tenants/${tenant.slug}/webhook`)
    .set('Authorization', `Bearer ${t.adminToken}`)
    .send({ url, events: ['lead.created'] });
  if (res.status !== 200) throw new Error(`PUT webhook: ${res.status} ${JSON.stringify(res.body)}`);
}

/** Registers a lead and answers its lead.created event id. */
async function leadEvent(t: TestApp, tenant: TestTenant, referrerUserId: string): Promise<string> {
  const leadId = await createLead(t, tenant.key, referrerUserId);
  const created = (await eventsOf(t, tenant.orgId, 'lead.created')).find(
    (e) => e.payload.lead_id === leadId,
  );
  return created!.event_id;
}

async function delivery(t: TestApp, tenantId: string, eventId: string) {
  const [row]: { status: string; attempts: number; locked_until: Date | null }[] = await t.db.query(
    `SELECT status, attempts, locked_until FROM webhook_deliveries
        WHERE tenant_id = $1 AND event_id = $2`,
    [tenantId, eventId],
  );
  return row;
}

async function attemptRows(t: TestApp, tenantId: string, eventId: string) {
  const rows: { attempt: number; state: string; status_code: number | null }[] = await t.db.query(
    `SELECT attempt, state, status_code FROM webhook_attempts
      WHERE tenant_id = $1 AND event_id = $2 ORDER BY attempt`,
    [tenantId, eventId],
  );
  return rows;
}

/** Polls `check` until it holds (bounded); a clear error with `context()` otherwise. */
async function waitUntil(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  context: () => Promise<string> | string = () => '',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`${what}: not within ${timeoutMs} ms\n${await context()}`);
    await sleep(50);
  }
}

describe('webhook engine: claims, refused statements and the sweeper', () => {
  it('steps the attempt count back when a claim is given back after its lock lapsed', async () => {
    // No worker: the statements are written here, on a connection of their own, as the engine does.
    const t = await app({ PROCESS_ROLE: 'api' });
    const tenant = await createTenant(t);
    await putWebhook(t, tenant, 'https://localhost:9/hook');
    const referrer = await upsertUser(t, tenant.key);
    const eventId = await leadEvent(t, tenant, referrer.serviceUserId);
    const repository = t.app.get(DeliveriesRepository);
    const pool = new Pool({ connectionString: DATABASE_URL, max: 1 });
    toClose.push(() => pool.end());
    const run: ArrayQuery = (text, values, name) =>
      pool.query<unknown[]>({ text, values, name, rowMode: 'array' }).then((r) => r.rows);
    const tenantId = tenant.orgId;
    const statement = (holder: string, more: Partial<FlushInput>): FlushInput => ({
      holder,
      lockMs: 100,
      endpointConcurrency: 4,
      records: [],
      lanes: [],
      claims: [],
      unclaims: [],
      ...more,
    });
    const claim = (holder: string) =>
      repository.flush(
        statement(holder, {
          lanes: [{ tenantId, target: 1, outstanding: 0, prefetch: 1, renew: false }],
          claims: [{ tenantId, eventId, replay: false, deferMs: 0 }],
        }),
        run,
      );
    const unclaim = (holder: string, attempt: number) =>
      repository.flush(statement(holder, { unclaims: [{ tenantId, eventId, attempt }] }), run);

    expect((await claim('worker-a')).claims[0]).toMatchObject({
      kind: 'claimed',
      claim: { attempt: 1 },
    });
    // The claim's 100 ms lock lapses before it is given back (a stalled process, a late write).
    await sleep(300);
    await unclaim('worker-a', 1);
    expect(await delivery(t, tenantId, eventId)).toMatchObject({ attempts: 0, locked_until: null });
    expect(await attemptRows(t, tenantId, eventId)).toEqual([]);

    // So the next claim is attempt 1 again: no attempt number was used up without a request.
    expect((await claim('worker-a')).claims[0]).toMatchObject({
      kind: 'claimed',
      claim: { attempt: 1 },
    });
    // A stale give-back never steps back a claim someone else made since, nor one given back.
    await sleep(300);
    expect((await claim('worker-b')).claims[0]).toMatchObject({
      kind: 'claimed',
      claim: { attempt: 2 },
    });
    await unclaim('worker-a', 1);
    expect(await delivery(t, tenantId, eventId)).toMatchObject({ attempts: 2 });
    await unclaim('worker-b', 2);
    expect(await delivery(t, tenantId, eventId)).toMatchObject({ attempts: 1, locked_until: null });
    await unclaim('worker-a', 1);
    expect(await delivery(t, tenantId, eventId)).toMatchObject({ attempts: 1 });
  });

  it("keeps every other lane's answered attempts when PostgreSQL refuses one lane's record", async () => {
    const B_EVENTS = 6;
    // An answer body PostgreSQL refuses to store: a fault in one record of one lane.
    await withPoisonTrigger(async () => {
      const held: { path: string; res: ServerResponse }[] = [];
      const seen: { path: string; eventId: string; attempt: string }[] = [];
      const { key, cert } = selfSignedCertificate();
      const server = https.createServer({ key, cert }, (req, res) => {
        req.resume();
        req.on('end', () => {
          const entry = {
            path: req.url ?? '',
            eventId: String(req.headers['x-service-event-id']),
            attempt: String(req.headers['x-service-delivery-attempt']),
          };
          seen.push(entry);
          if (seen.length > B_EVENTS + 1) {
            res.writeHead(200).end('{"received":true}');
            return;
          }
          held.push({ path: entry.path, res });
          // Every request of the first round has arrived: answer them all in the same tick, so
          // their records are written by one statement. A's first answer is the poison.
          if (held.length === B_EVENTS + 1) {
            for (const h of held) h.res.writeHead(200).end(h.path === '/a' ? 'poison' : 'ok');
          }
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      toClose.push(
        () =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      );
      const base = `https://localhost:${(server.address() as AddressInfo).port}`;
      const t = await app({
        PROCESS_ROLE: 'all',
        // The receiver holds the first requests until all seven have come, and the events are
        // made one by one meanwhile: on a busy machine that took over a second, so with a 1 s
        // timeout the held requests timed out and were sent again. A's refused record is retried
        // once its attempt's lock (2 × timeout + 1 s) lapses, well within the wait below.
        WEBHOOK_TIMEOUT_MS: '3000',
        WEBHOOK_ENDPOINT_CONCURRENCY: '8',
        WEBHOOK_RETRY_DELAYS_MS: '300,300,300,300,300',
      });
      const [a, b] = [await createTenant(t), await createTenant(t)];
      await putWebhook(t, a, `${base}/a`);
      await putWebhook(t, b, `${base}/b`);
      const [ra, rb] = [await upsertUser(t, a.key), await upsertUser(t, b.key)];
      const aEvent = await leadEvent(t, a, ra.serviceUserId);
      const bEvents: string[] = [];
      for (let i = 0; i < B_EVENTS; i++) bEvents.push(await leadEvent(t, b, rb.serviceUserId));

      const context = async () =>
        `requests: ${JSON.stringify(seen)}\nA: ${JSON.stringify(await attemptRows(t, a.orgId, aEvent))}`;
      await waitUntil(
        'every delivery delivered',
        async () => {
          const rows: { n: number }[] = await t.db.query(
            `SELECT count(*)::int AS n FROM webhook_deliveries
              WHERE tenant_id = ANY($1) AND status = 'delivered'`,
            [[a.orgId, b.orgId]],
          );
          return rows[0].n === B_EVENTS + 1;
        },
        20_000,
        context,
      );
      // Lane B's answered attempts were recorded with the statement that refused A's: each of its
      // events was sent once, and its one attempt is in the log, completed.
      const bSeen = seen.filter((s) => s.path === '/b');
      expect(bSeen.map((s) => s.attempt)).toEqual(Array(B_EVENTS).fill('1'));
      expect(new Set(bSeen.map((s) => s.eventId)).size).toBe(B_EVENTS);
      for (const eventId of bEvents) {
        expect(await delivery(t, b.orgId, eventId)).toMatchObject({
          status: 'delivered',
          attempts: 1,
        });
        expect(await attemptRows(t, b.orgId, eventId)).toEqual([
          { attempt: 1, state: 'completed', status_code: 200 },
        ]);
      }
      // Only A's refused record was given up: its attempt stays in the log as in flight (it was
      // never completed), and the delivery went on with attempt 2.
      expect(await attemptRows(t, a.orgId, aEvent)).toEqual([
        { attempt: 1, state: 'in_flight', status_code: null },
        { attempt: 2, state: 'completed', status_code: 200 },
      ]);
    });
  });

  it('sweeps a lost job of an endpoint whose every slot stays leased under continuous traffic', async () => {
    const RETRY_MS = 2500;
    const receiver = await startHttpsReceiver();
    toClose.push(() => receiver.close());
    let lost = '';
    receiver.script = (_n, req) =>
      req.headers['x-service-event-id'] === lost &&
      req.headers['x-service-delivery-attempt'] === '1'
        ? { status: 500 }
        : { status: 200, delayMs: 150 };
    const t = await app({
      PROCESS_ROLE: 'all',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_ENDPOINT_CONCURRENCY: '1',
      WEBHOOK_RETRY_DELAYS_MS: Array(5).fill(RETRY_MS).join(','),
    });
    const queue = new Bull<DeliverJob>(WEBHOOKS_QUEUE, {
      redis: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      prefix: t.config.queuePrefix,
    });
    toClose.push(() => queue.close());
    const tenant = await createTenant(t);
    await putWebhook(t, tenant, receiver.url);
    const referrer = await upsertUser(t, tenant.key);

    // The lead's first attempt fails; Redis then loses its retry job (removed here).
    const createdAt = Date.now();
    lost = await leadEvent(t, tenant, referrer.serviceUserId);
    const retryJob = deliverJobId(lost, 2);
    let job: Bull.Job<DeliverJob> | null = null;
    while (!job && Date.now() - createdAt < RETRY_MS - 500) {
      job = await queue.getJob(retryJob);
      if (!job) await sleep(10);
    }
    expect(job).not.toBeNull();
    await job!.remove();
    expect(await delivery(t, tenant.orgId, lost)).toMatchObject({ status: 'pending', attempts: 1 });

    // Continuous traffic to the same endpoint: its only slot is leased the whole time.
    let trafficEnds = Date.now() + 15_000;
    let leads = 0;
    const traffic = (async () => {
      while (Date.now() < trafficEnds) {
        await createLead(t, tenant.key, referrer.serviceUserId);
        leads++;
        await sleep(80);
      }
    })();
    const retried = () =>
      receiver.requests.find(
        (r) =>
          r.headers['x-service-event-id'] === lost &&
          r.headers['x-service-delivery-attempt'] === '2',
      );
    try {
      await waitUntil('the lost delivery retried while traffic runs', () => !!retried(), 12_000);
    } finally {
      trafficEnds = 0;
      await traffic;
    }
    const due = createdAt + RETRY_MS;
    // Swept within a few sweeps of falling due, while the traffic kept the slot leased.
    expect(retried()!.at - due).toBeLessThan(8000);
    expect(leads).toBeGreaterThan(5);
    await waitUntil(
      'every delivery delivered',
      async () => {
        const rows: { n: number }[] = await t.db.query(
          `SELECT count(*)::int AS n FROM webhook_deliveries
            WHERE tenant_id = $1 AND status <> 'delivered'`,
          [tenant.orgId],
        );
        return rows[0].n === 0;
      },
      30_000,
    );
    expect(await delivery(t, tenant.orgId, lost)).toMatchObject({
      status: 'delivered',
      attempts: 2,
    });
  });
});

/** Installs a trigger that refuses an attempt row whose answer is `poison`, for `fn`'s duration. */
async function withPoisonTrigger(fn: () => Promise<void>): Promise<void> {
  const client = new Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(`
      CREATE OR REPLACE FUNCTION test_poison_attempt() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.response_body = 'poison' THEN
          RAISE EXCEPTION 'poisoned attempt row' USING ERRCODE = '22023';
        END IF;
        RETURN NEW;
      END $$`);
    await client.query(`
      CREATE TRIGGER test_poison_attempt BEFORE INSERT OR UPDATE ON webhook_attempts
        FOR EACH ROW EXECUTE FUNCTION test_poison_attempt()`);
    await fn();
  } finally {
    await client.query(`DROP TRIGGER IF EXISTS test_poison_attempt ON webhook_attempts`);
    await client.query(`DROP FUNCTION IF EXISTS test_poison_attempt()`);
    await client.end();
  }
}
