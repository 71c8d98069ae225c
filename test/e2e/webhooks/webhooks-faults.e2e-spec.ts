/**
 * Fault injection on the webhook delivery engine (docs/webhooks.md): Redis lost and restarted empty
 * (and how soon workers resume), a worker process SIGKILLed mid-delivery (and what the attempt log
 * says of the attempt it had in flight), two worker processes racing on duplicate jobs, a staff
 * replay acknowledged while Redis is down. Real processes throughout: private redis-servers
 * (never the shared one), workers spawned from src/main.ts, a real HTTPS receiver.
 *
 * Each scenario has its own database: every worker's sweeper scans all pending deliveries of its
 * database, so the other test files' apps (other settings, other queues) would otherwise pick up
 * and reschedule these deliveries, and one scenario's workers would deliver another's events.
 * That isolation also lets the workers of scenarios 2 and 3 boot (ts-node takes seconds) while
 * scenario 1 runs.
 */
import Bull from 'bull';
import Redis from 'ioredis';
import { Client } from 'pg';
import { ensureDatabase, quoteIdent, runMigrations } from '../../../src/database/ensure-database';
import { EVENT_TYPES } from '../../../src/outbox/event-types';
import { deliverJobId } from '../../../src/webhooks/engine/job-ids';
import { DELIVER_JOB, type DeliverJob, WEBHOOKS_QUEUE } from '../../../src/webhooks/webhook.queue';
import { createTenant } from '../../factories/tenants.factory';
import { createChain, upsertUser } from '../../factories/users.factory';
import { adminApi } from '../../utils/api-client';
import { createTestApp, type TestApp } from '../../utils/create-test-app';
import {
  type HttpsReceiver,
  selfSignedCertificate,
  startHttpsReceiver,
} from '../../utils/https-receiver';
import {
  type ManagedChild,
  PrivateRedis,
  spawnWorker,
  startWorker,
  stopAllChildren,
  workerStarted,
} from '../../utils/processes';
import { newRunId, TEST_DATABASE_SERVER, testEnv } from '../../utils/test-env';
import {
  recordAnswers,
  sleep,
  byEvent,
  overlapping,
  maxInFlight,
  notExactlyOnce,
  deliveryCounts,
  waitAllDelivered,
  queueState,
  putWebhook,
  federation,
  lead,
  subscribedEventIds,
} from '../../utils/webhook-faults';

// Bounds inside each test give the clear errors; these only stop a hang (a loaded CI box boots
// a ts-node worker in 10 s to 60 s).
jest.setTimeout(180_000);

interface Scenario {
  databaseUrl: string;
  prefix: string;
}

const runId = newRunId();
/**
 * A scenario's Bull prefix lives under the test run's (createTestApp would put it there for the
 * in-process apps only), so that the spawned workers, the in-process apps and the probes of a
 * scenario all use the same queue, and global teardown deletes its keys.
 */
const runPrefix = process.env.TEST_QUEUE_PREFIX ? `${process.env.TEST_QUEUE_PREFIX}_` : '';
const scenario = (n: number): Scenario => ({
  databaseUrl: `${TEST_DATABASE_SERVER}/referrals_test_whfaults${n}_${runId}`,
  prefix: `${runPrefix}whfaults${n}_${runId}`,
});
const REDIS_LOSS = scenario(1);
const WORKER_CRASH = scenario(2);
const TWO_WORKERS = scenario(3);
const REPLAY_LOSS = scenario(4);
const ATTEMPT_KILLED = scenario(5);
const SCENARIOS = [REDIS_LOSS, WORKER_CRASH, TWO_WORKERS, REPLAY_LOSS, ATTEMPT_KILLED];
/** How long Redis stays down in the Redis scenario: long enough for Bull's default back-off to reach seconds. */
const OUTAGE_MS = 6000;
/** Workers must take jobs again within this long of Redis answering again (docs/webhooks.md). */
const RESUME_WITHIN_MS = 2000;

/** Stopped and restarted by the Redis scenario. */
let volatileRedis: PrivateRedis;
/** Never stopped: the worker scenarios (a private one too, so no keys are left in the shared one). */
let stableRedis: PrivateRedis;
/** Workers spawned in beforeAll, taken over by their scenario. */
const booting: Record<string, ManagedChild> = {};
/** Whatever a test opened (apps, receivers, queues, workers); closed at its end and in afterAll. */
const toClose: (() => Promise<unknown>)[] = [];

async function closeAll(): Promise<void> {
  while (toClose.length) {
    const close = toClose.pop()!;
    await close().catch(() => undefined);
  }
}

/** The service's environment for a scenario: own database, private Redis, compressed delays. */
function serviceEnv(s: Scenario, redis: PrivateRedis, extra: NodeJS.ProcessEnv = {}) {
  return {
    ...testEnv(),
    DATABASE_URL: s.databaseUrl,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: s.prefix,
    MIGRATIONS_RUN: 'false',
    WEBHOOK_CA_FILE: selfSignedCertificate().caFile,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_SWEEP_MS: '500',
    WEBHOOK_RETRY_DELAYS_MS: '300,300,300,300,300',
    ...extra,
  };
}

const workerCrashEnv = () => serviceEnv(WORKER_CRASH, stableRedis);
const attemptKilledEnv = () => serviceEnv(ATTEMPT_KILLED, stableRedis);
/** WEBHOOK_ENDPOINT_CONCURRENCY of the two-worker scenario: shared by both processes. */
const TWO_WORKERS_CAP = 8;
// A generous timeout: a slow answer on a loaded machine must not turn into a legitimate retry.
const twoWorkersEnv = () =>
  serviceEnv(TWO_WORKERS, stableRedis, {
    WEBHOOK_TIMEOUT_MS: '5000',
    WEBHOOK_ENDPOINT_CONCURRENCY: String(TWO_WORKERS_CAP),
  });

beforeAll(async () => {
  [volatileRedis, stableRedis] = await Promise.all([PrivateRedis.start(), PrivateRedis.start()]);
  for (const s of SCENARIOS) {
    await ensureDatabase(s.databaseUrl);
    await runMigrations(s.databaseUrl);
  }
  booting.first = spawnWorker('worker-1', workerCrashEnv());
  booting.a = spawnWorker('worker-a', twoWorkersEnv());
  booting.b = spawnWorker('worker-b', twoWorkersEnv());
  booting.holder = spawnWorker('worker-holder', attemptKilledEnv());
}, 30_000);

afterAll(async () => {
  await closeAll();
  await stopAllChildren();
  const admin = new Client({ connectionString: `${TEST_DATABASE_SERVER}/postgres` });
  await admin.connect();
  for (const s of SCENARIOS) {
    const name = new URL(s.databaseUrl).pathname.slice(1);
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
  }
  await admin.end();
}, 30_000);

afterEach(closeAll, 30_000);

async function receiver(): Promise<HttpsReceiver> {
  const r = await startHttpsReceiver();
  toClose.push(() => r.close());
  return r;
}

async function app(env: NodeJS.ProcessEnv): Promise<TestApp> {
  const t = await createTestApp(env);
  toClose.push(() => t.close());
  return t;
}

/** Takes over a worker spawned in beforeAll and waits until it has started. */
async function booted(name: string): Promise<ManagedChild> {
  const w = booting[name];
  toClose.push(() => w.kill());
  await workerStarted(w, 90_000);
  return w;
}

async function worker(name: string, env: NodeJS.ProcessEnv): Promise<ManagedChild> {
  const w = await startWorker(name, env, 90_000);
  toClose.push(() => w.kill());
  return w;
}

describe('webhooks: fault injection', () => {
  it('delivers every event exactly once after Redis is lost and comes back empty', async () => {
    const r = await receiver();
    // Every first attempt fails, so each event also has a retry waiting in Redis at some point.
    const sent = recordAnswers(r, (req) => ({
      status: req.headers['x-service-delivery-attempt'] === '1' ? 500 : 200,
    }));
    const t = await app(
      serviceEnv(REDIS_LOSS, volatileRedis, {
        PROCESS_ROLE: 'all',
        WEBHOOK_TIMEOUT_MS: '2000',
        // Long enough that the first events' retries are still parked in Redis when the third
        // event's first attempt arrives, however slowly a loaded machine registers the leads.
        WEBHOOK_RETRY_DELAYS_MS: '4000,4000,4000,4000,4000',
      }),
    );
    const tenant = await createTenant(t, {
      program: {
        tiers: [
          { tier: 'referrer', percent_bp: 1000 },
          { tier: 'upline_1', percent_bp: 300 },
        ],
      },
    });
    await putWebhook(t, tenant, r.url, [...EVENT_TYPES]);
    const [, referrer] = await createChain(t, tenant.key, 2);

    // Phase A, Redis up: three events, first attempts answered 500, retries parked in Redis.
    for (let i = 0; i < 3; i++) await lead(t, tenant.key, referrer.serviceUserId, i);
    await r.waitFor(3, 15_000);
    const probe = new Redis(volatileRedis.url, { maxRetriesPerRequest: 1 });
    toClose.push(async () => probe.disconnect());
    const delayedKey = `${REDIS_LOSS.prefix}:${WEBHOOKS_QUEUE}:delayed`;
    for (let i = 0; i < 50 && (await probe.zcard(delayedKey)) < 3; i++) await sleep(100);
    expect(await probe.zcard(delayedKey)).toBeGreaterThanOrEqual(3);
    probe.disconnect();

    // Redis dies: the parked retries are gone for good.
    const outageStarted = Date.now();
    await volatileRedis.stop();

    // Phase B, Redis down: the API still answers 200 at once (the outbox commits without Redis).
    await Promise.all(
      [3, 4, 5].map(async (i) => {
        const leadId = await lead(t, tenant.key, referrer.serviceUserId, i);
        await federation(t, tenant.key, '/federation/v1/conversions/register', {
          lead_id: leadId,
          amount_kopecks: 10_000 + i,
          currency: 'RUB',
          external_order_id: `order-${i}`,
        });
      }),
    );
    await sleep(Math.max(0, OUTAGE_MS - (Date.now() - outageStarted)));
    const sentDuringOutage = sent.length;
    await volatileRedis.start();
    const backAt = Date.now();

    // 3 + 3 leads, 3 conversions, 2 bonuses each.
    const subscribed = await subscribedEventIds(t, tenant.orgId);
    expect(subscribed.length).toBeGreaterThanOrEqual(15);
    await waitAllDelivered(t, tenant.orgId, subscribed.length, 45_000, () =>
      queueState(t, tenant.orgId, volatileRedis, REDIS_LOSS.prefix),
    );

    const finalIds = await subscribedEventIds(t, tenant.orgId);
    const deliveries: { event_id: string; status: string }[] = await t.db.query(
      `SELECT event_id, status FROM webhook_deliveries WHERE tenant_id = $1 ORDER BY event_id`,
      [tenant.orgId],
    );
    expect(deliveries.map((d) => d.event_id)).toEqual(finalIds);
    expect(deliveries.every((d) => d.status === 'delivered')).toBe(true);
    const okIds = new Set(sent.filter((s) => s.status === 200).map((s) => s.eventId));
    expect([...okIds].sort()).toEqual(finalIds);
    expect(notExactlyOnce(sent)).toEqual([]);
    expect(overlapping(sent)).toEqual([]);

    // Nothing went out while Redis was down, and the worker took jobs again within 2 s of Redis
    // answering (ioredis under Bull's default back-off would wait up to 20 s to reconnect).
    expect(sent.filter((s) => s.at < backAt)).toHaveLength(sentDuringOutage);
    const resumedAfterMs =
      Math.min(...sent.filter((s) => s.at >= backAt).map((s) => s.at)) - backAt;
    expect(resumedAfterMs).toBeLessThanOrEqual(RESUME_WITHIN_MS);
  });

  it('delivers everything when the worker process is SIGKILLed mid-delivery and restarted', async () => {
    const EVENTS = 30;
    const KILL_AT = 8;
    const DELAY_MS = 400;
    const r = await receiver();
    const t = await app({ ...workerCrashEnv(), PROCESS_ROLE: 'api' });
    const w1 = await booted('first');
    const tenant = await createTenant(t);
    await putWebhook(t, tenant, r.url, ['lead.created']);
    const referrer = await upsertUser(t, tenant.key);

    let killedAt = 0;
    const sent = recordAnswers(
      r,
      () => ({ status: 200, delayMs: DELAY_MS }),
      (list) => {
        if (list.length === KILL_AT && !killedAt) {
          // The request that just arrived (and a few others) are in flight: crash now.
          killedAt = Date.now();
          w1.signal('SIGKILL');
        }
      },
    );

    for (let i = 0; i < EVENTS; i++) await lead(t, tenant.key, referrer.serviceUserId, i);
    await r.waitFor(KILL_AT, 30_000);
    await w1.kill();
    const deliveredAtKill = (await deliveryCounts(t, tenant.orgId)).delivered ?? 0;
    expect(killedAt).toBeGreaterThan(0);
    expect(deliveredAtKill).toBeLessThan(EVENTS);
    const inFlightAtKill = sent.filter((s) => s.at <= killedAt && s.answeredAt > killedAt);
    expect(inFlightAtKill.length).toBeGreaterThanOrEqual(1);

    const w2 = await worker('worker-2', workerCrashEnv());
    // What the killed worker held lapses within 2 × WEBHOOK_TIMEOUT_MS + 1 s (3 s here) and the
    // sweeper runs every 500 ms, so the new worker has everything delivered within seconds; 25 s
    // is generous, yet far below Bull's own stalled-job recovery (lock 32 s + two 30 s checks).
    await waitAllDelivered(
      t,
      tenant.orgId,
      EVENTS,
      25_000,
      async () =>
        `${await queueState(t, tenant.orgId, stableRedis, WORKER_CRASH.prefix)}\n` +
        `worker-2 output:\n${w2.tail(1500)}`,
    );

    const eventIds = await subscribedEventIds(t, tenant.orgId);
    expect(eventIds).toHaveLength(EVENTS);
    const requested = byEvent(sent);
    expect(eventIds.filter((id) => !requested.has(id))).toEqual([]);
    expect(overlapping(sent)).toEqual([]);

    // Exactly one recorded success per delivery, and nothing sent after it was recorded.
    const rows: { event_id: string; ok: number; delivered_at: Date }[] = await t.db.query(
      `SELECT d.event_id, d.delivered_at,
              (SELECT count(*)::int FROM webhook_attempts a
                WHERE a.tenant_id = d.tenant_id AND a.event_id = d.event_id
                  AND a.status_code BETWEEN 200 AND 299) AS ok
         FROM webhook_deliveries d WHERE d.tenant_id = $1`,
      [tenant.orgId],
    );
    expect(rows.filter((row) => row.ok !== 1)).toEqual([]);
    const late = rows.flatMap((row) =>
      (requested.get(row.event_id) ?? [])
        .filter((s) => s.at > row.delivered_at.getTime())
        .map((s) => `${row.event_id} #${s.attempt}`),
    );
    expect(late).toEqual([]);
  });

  it('two worker processes never send one delivery twice nor pass the endpoint cap together', async () => {
    const EVENTS = 40;
    const DUPLICATES = 2;
    const r = await receiver();
    const sent = recordAnswers(r, () => ({ status: 200, delayMs: 150 }));
    const t = await app({ ...twoWorkersEnv(), PROCESS_ROLE: 'api' });
    const [w1, w2] = await Promise.all([booted('a'), booted('b')]);
    const queue = new Bull<DeliverJob>(WEBHOOKS_QUEUE, {
      redis: stableRedis.url,
      prefix: TWO_WORKERS.prefix,
    });
    toClose.push(() => queue.close());
    const tenant = await createTenant(t);
    await putWebhook(t, tenant, r.url, ['lead.created']);
    const referrer = await upsertUser(t, tenant.key);

    // All leads at once, so that both workers have work for the endpoint at the same time; then
    // stale duplicates of each first attempt, racing it in both workers.
    const leadIds = await Promise.all(
      Array.from({ length: EVENTS }, (_, i) => lead(t, tenant.key, referrer.serviceUserId, i)),
    );
    for (const leadId of leadIds) {
      const [{ id }]: { id: string }[] = await t.db.query(
        `SELECT id FROM events WHERE tenant_id = $1 AND event_type = 'lead.created'
            AND (body::jsonb #>> '{payload,lead_id}') = $2`,
        [tenant.orgId, leadId],
      );
      await queue.addBulk(
        Array.from({ length: DUPLICATES }, (_, d) => ({
          name: DELIVER_JOB,
          data: { tenantId: tenant.orgId, eventId: id },
          opts: { jobId: `${deliverJobId(id, 1)}:dup${d}`, removeOnComplete: true },
        })),
      );
    }

    const logs = () => `worker-a:\n${w1.tail(1500)}\nworker-b:\n${w2.tail(1500)}`;
    await waitAllDelivered(t, tenant.orgId, EVENTS, 45_000, logs);
    // Let every leftover job (duplicates, busy deferrals) run out: none may send again.
    const drainedBy = Date.now() + 20_000;
    let counts = await queue.getJobCounts();
    while (counts.waiting + counts.active + counts.delayed > 0 && Date.now() < drainedBy) {
      await sleep(200);
      counts = await queue.getJobCounts();
    }
    expect(counts).toMatchObject({ waiting: 0, active: 0, delayed: 0 });
    expect(w1.running && w2.running).toBe(true);

    const eventIds = await subscribedEventIds(t, tenant.orgId);
    expect(eventIds).toHaveLength(EVENTS);
    const requested = byEvent(sent);
    expect(eventIds.filter((id) => requested.get(id)?.length !== 1)).toEqual([]);
    expect(sent).toHaveLength(EVENTS);
    expect(overlapping(sent)).toEqual([]);
    const attempts: { event_id: string; attempts: number }[] = await t.db.query(
      `SELECT event_id, attempts FROM webhook_deliveries WHERE tenant_id = $1 AND attempts <> 1`,
      [tenant.orgId],
    );
    expect(attempts).toEqual([]);
    // WEBHOOK_ENDPOINT_CONCURRENCY holds across both processes, and was used.
    const most = maxInFlight(sent);
    expect(most).toBeLessThanOrEqual(TWO_WORKERS_CAP);
    expect(most).toBeGreaterThanOrEqual(2);
    // Idle workers give their slot leases back. A lane releases in its next statement once it
    // has less work than slots, which may follow the last answer's record by a moment (its renew
    // tick at the latest, lockMs / 6 ≈ 1.8 s here); a lease nobody gives back would stay for
    // lockMs (11 s), so 5 s tells the two apart.
    const leasedSlots = async () => {
      const [{ leased }]: { leased: number }[] = await t.db.query(
        `SELECT count(*)::int AS leased FROM webhook_endpoint_slots
          WHERE tenant_id = $1 AND locked_until > now()`,
        [tenant.orgId],
      );
      return leased;
    };
    const releasedBy = Date.now() + 5_000;
    let leased = await leasedSlots();
    while (leased > 0 && Date.now() < releasedBy) {
      await sleep(100);
      leased = await leasedSlots();
    }
    expect(leased).toBe(0);
  });

  it('keeps the attempt a SIGKILLed worker had in flight in the log, in flight, then interrupted', async () => {
    const r = await receiver();
    const t = await app({ ...attemptKilledEnv(), PROCESS_ROLE: 'api' });
    const w = await booted('holder');
    const tenant = await createTenant(t);
    await putWebhook(t, tenant, r.url, ['lead.created']);
    const referrer = await upsertUser(t, tenant.key);
    // The receiver holds the request open; the worker dies while it waits for the answer.
    let killedAt = 0;
    r.script = () => {
      if (!killedAt) {
        killedAt = Date.now();
        w.signal('SIGKILL');
      }
      return 'hang';
    };
    await lead(t, tenant.key, referrer.serviceUserId, 0);
    await r.waitFor(1, 30_000);
    await w.kill();
    expect(killedAt).toBeGreaterThan(0);
    const [eventId] = await subscribedEventIds(t, tenant.orgId);

    // The attempt row was written before the request and nobody completed it.
    const rows: { attempt: number; state: string; status_code: number | null }[] = await t.db.query(
      `SELECT attempt, state, status_code FROM webhook_attempts
          WHERE tenant_id = $1 AND event_id = $2`,
      [tenant.orgId, eventId],
    );
    expect(rows).toEqual([{ attempt: 1, state: 'in_flight', status_code: null }]);

    // The admin attempt log shows it: in flight while the dead worker's lock lasts
    // (2 × WEBHOOK_TIMEOUT_MS + 1 s = 3 s here), interrupted once it has lapsed.
    const detail = async () => {
      const res = await adminApi(t, t.adminToken).webhookEvent(tenant.slug, eventId);
      expect(res.status).toBe(200);
      return res.body;
    };
    const [first] = (await detail()).attempts;
    expect(['in_flight', 'interrupted']).toContain(first.state);
    const deadline = Date.now() + 10_000;
    let last = await detail();
    while (last.attempts[0]?.state !== 'interrupted' && Date.now() < deadline) {
      await sleep(200);
      last = await detail();
    }
    expect(last).toEqual({
      event: expect.objectContaining({ event_id: eventId, event_type: 'lead.created' }),
      status: 'pending',
      attempts: [
        {
          attempt: 1,
          at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
          state: 'interrupted',
          status_code: null,
          duration_ms: null,
          error: null,
          response_body: null,
          replay: false,
        },
      ],
    });
    expect(r.requests).toHaveLength(1);
  });

  it('never loses an acknowledged replay: not when Redis loses its job, nor when Redis is down', async () => {
    const r = await receiver();
    const sent = recordAnswers(r, () => ({ status: 200 }));
    // The API alone first: nothing takes jobs from the queue.
    const api = await app(serviceEnv(REPLAY_LOSS, volatileRedis, { PROCESS_ROLE: 'api' }));
    const tenant = await createTenant(api);
    await putWebhook(api, tenant, r.url, ['lead.created']);
    const auth = { Authorization: `Bearer ${api.adminToken}` };
    // A delivered event: the test event, sent inline by the API process.
    const test = await api.http().post(`/admin/v1/tenants/${tenant.slug}/webhook/test`).set(auth);
    expect(test.body).toMatchObject({ delivered: true, status_code: 200 });
    const eventId = test.body.event_id as string;
    const replay = () =>
      api
        .http()
        .post(`/admin/v1/tenants/${tenant.slug}/webhook/events/${eventId}/replay`)
        .set(auth)
        .timeout({ response: 5000, deadline: 6000 });
    const requested = async () => {
      const [row]: { status: string; replay_requested_at: Date | null }[] = await api.db.query(
        `SELECT status, replay_requested_at FROM webhook_deliveries
          WHERE tenant_id = $1 AND event_id = $2`,
        [tenant.orgId, eventId],
      );
      return row;
    };
    const attemptsLogged = async (n: number) => {
      const deadline = Date.now() + 5000;
      let rows: { attempt: number; state: string; replay: boolean }[] = [];
      while (Date.now() < deadline) {
        rows = await api.db.query(
          `SELECT attempt, state, replay FROM webhook_attempts
            WHERE tenant_id = $1 AND event_id = $2 ORDER BY attempt`,
          [tenant.orgId, eventId],
        );
        if (rows.length === n && rows.every((row) => row.state === 'completed')) break;
        await sleep(100);
      }
      return rows;
    };

    // 1. The replay is acknowledged (its job handed to Redis), then Redis loses everything
    //    before any worker has run it.
    expect((await replay()).status).toBe(202);
    expect((await requested()).replay_requested_at).toBeInstanceOf(Date);
    await volatileRedis.stop();
    await volatileRedis.start();
    // A worker starts: the replay is made once, from what PostgreSQL kept.
    await app(serviceEnv(REPLAY_LOSS, volatileRedis, { PROCESS_ROLE: 'all' }));
    await r.waitFor(2, 15_000);
    expect(await attemptsLogged(2)).toEqual([
      { attempt: 1, state: 'completed', replay: false },
      { attempt: 2, state: 'completed', replay: true },
    ]);
    expect(await requested()).toEqual({ status: 'delivered', replay_requested_at: null });

    // 2. With Redis down, a replay is still acknowledged at once (written to PostgreSQL before
    //    the 202), and made once Redis is back.
    await volatileRedis.stop();
    const asked = Date.now();
    expect((await replay()).status).toBe(202);
    expect(Date.now() - asked).toBeLessThan(2000);
    expect((await requested()).replay_requested_at).toBeInstanceOf(Date);
    await volatileRedis.start();
    await r.waitFor(3, 15_000);
    expect(await attemptsLogged(3)).toEqual([
      { attempt: 1, state: 'completed', replay: false },
      { attempt: 2, state: 'completed', replay: true },
      { attempt: 3, state: 'completed', replay: true },
    ]);
    expect(await requested()).toEqual({ status: 'delivered', replay_requested_at: null });
    await sleep(1500);
    expect(sent.map((s) => [s.eventId, s.attempt])).toEqual([
      [eventId, '1'],
      [eventId, '2'],
      [eventId, '3'],
    ]);
  });
});
