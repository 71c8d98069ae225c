/**
 * A fault run with figures (docs/operations.md "A fault run"): 3 API and 2 worker
 * processes of the real service on a private PostgreSQL and a private Redis behind Sentinel, under
 * a bounded, steady mix of Federation writes (users, leads, conversions, reversals) and Embed
 * reads, while, one phase after another: a worker is SIGKILLed, an API process is SIGKILLed,
 * PostgreSQL restarts, Sentinel fails the Redis primary over, and Redis stops answering for 30 s
 * (its processes frozen with SIGSTOP; last, as a frozen Sentinel then pauses itself for a while,
 * its TILT mode). Clients behave as a careful integrator does: every write
 * carries an Idempotency-Key and is sent again (to any API process) until it gets an answer.
 *
 * Afterwards, from the database and an HTTPS receiver that counts deliveries, per phase: writes
 * sent and acknowledged, acknowledged writes lost, duplicated effects (a lead, conversion, bonus or
 * event twice), events created, delivered, never delivered. Target: 0 lost, 0 duplicated, every
 * event delivered.
 *
 * Run: npm run bench:faults. Knobs: FAULTS_PHASE_S (20: each phase's length), FAULTS_CLIENTS (6:
 * concurrent clients, each pausing FAULTS_PAUSE_MS, 40, between requests), FAULTS_SETTLE_S (180:
 * how long the deliveries may take to settle at the end). It reports PASS/FAIL, it is not a gate;
 * it exits 1 only if it crashes (bench/harness.ts).
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { ensureDatabase } from '../src/database/ensure-database';
import { EVENT_TYPES } from '../src/outbox/event-types';
import { HttpsReceiver, startHttpsReceiver } from '../test/utils/https-receiver';
import { PrivatePostgres } from '../test/utils/private-postgres';
import { PrivateSentinel } from '../test/utils/private-redis-topologies';
import { ManagedChild, spawnService, stopAllChildren } from '../test/utils/processes';
import { scalePort } from '../test/utils/scale-ports';
import { testEnv } from '../test/utils/test-env';
import { runBenchmark, untilReady, verdict } from './harness';

const PHASE_S = Number(process.env.FAULTS_PHASE_S ?? 20);
const CLIENTS = Number(process.env.FAULTS_CLIENTS ?? 6);
const PAUSE_MS = Number(process.env.FAULTS_PAUSE_MS ?? 40);
const SETTLE_S = Number(process.env.FAULTS_SETTLE_S ?? 180);
const REDIS_STOP_S = 30;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Kind = 'user' | 'lead' | 'conversion' | 'reversal';
interface Write {
  kind: Kind;
  phase: string;
  acked: boolean;
  /** The 4xx status of a write refused for good (nothing written). */
  refused?: number;
  /** What the answer named: the user, lead or conversion id. */
  id?: string;
  /** What the request named: the external id, the lead's email, the order id, the conversion. */
  key: string;
}

let primary: PrivatePostgres;
let sentinel: PrivateSentinel;
let receiver: HttpsReceiver;

runBenchmark(
  {
    name: 'faults',
    database: async (log) => {
      primary = await PrivatePostgres.start(await scalePort());
      const url = primary.url('faults');
      await ensureDatabase(url);
      log(`private PostgreSQL on :${primary.port}`);
      return url;
    },
  },
  async ({ databaseUrl, adminToken, runId, log, onCleanup }) => {
    onCleanup(async () => {
      await stopAllChildren();
      await sentinel?.stop();
      await receiver?.close();
      await primary?.destroy();
    });
    sentinel = await PrivateSentinel.start();
    receiver = await startHttpsReceiver();
    log(
      `Redis primary, replica and Sentinel on :${sentinel.sentinelPort}; receiver ${receiver.url}`,
    );

    const env: NodeJS.ProcessEnv = {
      ...testEnv(),
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_SIZE: '8',
      REDIS_URL: undefined,
      REDIS_SENTINELS: sentinel.sentinels,
      REDIS_SENTINEL_NAME: sentinel.name,
      QUEUE_PREFIX: `faults_${runId}`,
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL: 'warn',
      WEBHOOK_CA_FILE: receiver.caFile,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_DELAYS_MS: '1000,2000,5000,10000,20000,30000,60000',
      WEBHOOK_SWEEP_MS: '3000',
    };
    const apiPorts = [await scalePort(), await scalePort(), await scalePort()];
    const apis: ManagedChild[] = [];
    const workers: ManagedChild[] = [];
    const startApi = async (i: number) => {
      apis[i] = spawnService(`api ${i}`, {
        ...env,
        PORT: String(apiPorts[i]),
        PROCESS_ROLE: 'api',
      });
      await untilReady(`http://127.0.0.1:${apiPorts[i]}`, apis[i]);
    };
    const startWorker = async (i: number) => {
      workers[i] = spawnService(`worker ${i}`, {
        ...env,
        LOG_LEVEL: 'info',
        PROCESS_ROLE: 'worker',
      });
      await workers[i].waitForOutput(/Worker started/, 120_000, `worker ${i} started`);
    };
    await Promise.all([0, 1, 2].map(startApi));
    await Promise.all([0, 1].map(startWorker));
    const bases = apiPorts.map((port) => `http://127.0.0.1:${port}`);
    log(`3 API processes (:${apiPorts.join(', :')}) and 2 workers started`);

    // The tenant, its webhook to the receiver (every event type), bonuses approved by staff only.
    const slug = `faults-${runId.replace(/_/g, '-')}`;
    const tenant = (await send(bases, 'POST', '/admin/v1/tenants', adminAuth(adminToken), {
      slug,
      display_name: 'Fault run',
      allowed_origins: ['https://faults.example'],
    })) as { tenant_key: string; org_id: string };
    await send(bases, 'PUT', `/admin/v1/tenants/${slug}/webhook`, adminAuth(adminToken), {
      url: receiver.url,
      events: [...EVENT_TYPES],
    });
    const keyHeader = { 'x-service-tenant-key': tenant.tenant_key };

    // The load: CLIENTS loops, each write retried with its Idempotency-Key until answered.
    const writes: Write[] = [];
    const reads = { sent: 0, ok: 0 };
    /** Acknowledged members: the Federation API's `usr_` id, the Embed Data API's `mbr_` id. */
    const users: { usr: string; mbr: string }[] = [];
    const leads: string[] = [];
    const conversions: string[] = [];
    let phase = 'warm-up';
    let running = true;
    const client = async (n: number) => {
      let i = 0;
      while (running) {
        i++;
        const roll = Math.random();
        if (roll < 0.2 || users.length < 5) await write('user', `u-${runId}-${n}-${i}`);
        else if (roll < 0.5) await write('lead', `lead-${n}-${i}@faults.example`);
        else if (roll < 0.7 && leads.length) await write('conversion', `order-${n}-${i}`);
        else if (roll < 0.75 && conversions.length) await write('reversal', pick(conversions));
        else await read();
        await sleep(PAUSE_MS);
      }
    };
    const write = async (kind: Kind, key: string) => {
      const entry: Write = { kind, phase, acked: false, key };
      writes.push(entry);
      const idempotencyKey = randomBytes(12).toString('hex');
      const headers = { ...keyHeader, 'idempotency-key': idempotencyKey };
      const [method, path, body]: [string, string, unknown] =
        kind === 'user'
          ? [
              'POST',
              '/federation/v1/users/upsert',
              {
                external_id: key,
                full_name: `Partner ${key}`,
                ...(users.length ? { referrer_user_id: pick(users).usr } : {}),
              },
            ]
          : kind === 'lead'
            ? [
                'POST',
                '/federation/v1/leads',
                { referrer_user_id: pick(users).usr, contact: { name: 'Lead', email: key } },
              ]
            : kind === 'conversion'
              ? [
                  'POST',
                  '/federation/v1/conversions/register',
                  {
                    lead_id: leads.splice(Math.floor(Math.random() * leads.length), 1)[0],
                    amount_kopecks: 100_000,
                    currency: 'RUB',
                    external_order_id: key,
                  },
                ]
              : ['POST', `/federation/v1/conversions/${key}/reverse`, { reason: 'refund' }];
      if (kind === 'reversal') conversions.splice(conversions.indexOf(key), 1);
      const deadline = Date.now() + 120_000;
      while (Date.now() < deadline) {
        const res = await attempt(bases, method, path, headers, body);
        if (res && res.status < 500) {
          entry.acked = res.status < 300;
          const answer = res.body as Record<string, string>;
          if (!entry.acked) {
            entry.refused = res.status; // a definite 4xx refusal: not a write
            return;
          }
          entry.id = answer.service_user_id ?? answer.lead_id ?? answer.conversion_id ?? key;
          if (kind === 'user') users.push({ usr: entry.id, mbr: answer.tenant_service_id });
          if (kind === 'lead') leads.push(entry.id);
          if (kind === 'conversion') conversions.push(entry.id);
          return;
        }
        await sleep(500);
      }
    };
    const read = async () => {
      reads.sent++;
      const res = await attempt(
        bases,
        'GET',
        `/embed/v1/data/cabinet/${pick(users).mbr}?tenant=${slug}`,
        { origin: 'https://faults.example' },
        undefined,
      );
      if (res?.status === 200) reads.ok++;
    };
    const load = Array.from({ length: CLIENTS }, (_, n) => client(n));

    // The phases.
    const phases: { name: string; from: number; to: number; note: string }[] = [];
    const runPhase = async (name: string, fault: () => Promise<string>) => {
      phase = name;
      const from = Date.now();
      const note = await fault();
      const left = PHASE_S * 1000 - (Date.now() - from);
      if (left > 0) await sleep(left);
      phases.push({ name, from, to: Date.now(), note });
      log(`phase "${name}" done: ${note}`);
    };
    await runPhase('no fault', async () => 'steady load');
    await runPhase('worker SIGKILL', async () => {
      await workers[0].kill();
      await sleep(5000);
      await startWorker(0);
      return 'worker 0 killed, restarted 5 s later';
    });
    await runPhase('API SIGKILL', async () => {
      await apis[0].kill();
      await sleep(5000);
      await startApi(0);
      return 'API 0 killed, restarted 5 s later';
    });
    await runPhase('PostgreSQL restart', async () => {
      const t0 = Date.now();
      await primary.stop();
      await primary.start();
      return `down ${((Date.now() - t0) / 1000).toFixed(1)} s (fast shutdown, start)`;
    });
    await runPhase('Sentinel failover', async () => {
      const { from, to, ms } = await sentinel.killPrimaryAndFailOver();
      return `primary :${from} killed, :${to} promoted in ${ms} ms`;
    });
    await runPhase('Redis stopped 30 s', async () => {
      const frozen = sentinel.processes();
      for (const p of frozen) p.signal('SIGSTOP');
      await sleep(REDIS_STOP_S * 1000);
      for (const p of frozen) p.signal('SIGCONT');
      return `${frozen.length} Redis processes frozen for ${REDIS_STOP_S} s`;
    });
    running = false;
    await Promise.all(load);
    log(`load stopped: ${writes.length} writes, ${reads.sent} reads (${reads.ok} answered 200)`);

    // Settling: every delivery delivered or given up (dead), or the time is up.
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    onCleanup(() => db.end());
    const settleUntil = Date.now() + SETTLE_S * 1000;
    for (;;) {
      const [{ open }] = (
        await db.query(
          `SELECT count(*)::int AS open FROM webhook_deliveries WHERE tenant_id = $1 AND status = 'pending'`,
          [tenant.org_id],
        )
      ).rows as { open: number }[];
      if (!open) break;
      if (Date.now() > settleUntil) {
        log(`${open} deliveries still pending after ${SETTLE_S} s`);
        break;
      }
      await sleep(2000);
    }

    // The verdicts, per phase.
    const q = async <T>(sql: string, params: unknown[] = []) =>
      (await db.query(sql, [tenant.org_id, ...params])).rows as T[];
    const present = {
      user: new Set(
        (await q<{ id: string }>(`SELECT external_id AS id FROM members WHERE tenant_id = $1`)).map(
          (r) => r.id,
        ),
      ),
      lead: new Set(
        (await q<{ id: string }>(`SELECT id FROM leads WHERE tenant_id = $1`)).map((r) => r.id),
      ),
      conversion: new Set(
        (await q<{ id: string }>(`SELECT id FROM conversions WHERE tenant_id = $1`)).map(
          (r) => r.id,
        ),
      ),
      reversal: new Set(
        (
          await q<{ id: string }>(
            `SELECT id FROM conversions WHERE tenant_id = $1 AND status = 'reversed'`,
          )
        ).map((r) => r.id),
      ),
    };
    const lost = (w: Write) => w.acked && !present[w.kind].has(w.kind === 'user' ? w.key : w.id!);
    // Duplicated effects: the same lead request (its unique email), order, bonus or event twice.
    const duplicates = await q<{ what: string; at: Date }>(
      `SELECT 'lead ' || contact_email AS what, min(created_at) AS at FROM leads
        WHERE tenant_id = $1 GROUP BY contact_email HAVING count(*) > 1
       UNION ALL
       SELECT 'bonus ' || source_id || ' ' || member_id || ' ' || coalesce(tier, ''), min(created_at)
         FROM bonuses WHERE tenant_id = $1
        GROUP BY source_type, source_id, member_id, tier HAVING count(*) > 1
       UNION ALL
       SELECT 'event ' || event_type || ' ' || subject, min(occurred_at) FROM (
         SELECT event_type, occurred_at,
                coalesce(body::jsonb -> 'payload' ->> 'bonus_id', body::jsonb -> 'payload' ->> 'lead_id',
                         body::jsonb -> 'payload' ->> 'conversion_id') AS subject
           FROM events WHERE tenant_id = $1) e
        WHERE subject IS NOT NULL GROUP BY event_type, subject HAVING count(*) > 1`,
    );
    const events = await q<{ id: string; at: Date; status: string | null }>(
      `SELECT e.id, e.occurred_at AS at, d.status FROM events e
         LEFT JOIN webhook_deliveries d ON d.tenant_id = e.tenant_id AND d.event_id = e.id
        WHERE e.tenant_id = $1`,
    );
    const received = new Set(
      receiver.requests.map((r) => r.headers['x-service-event-id'] as string),
    );
    const redelivered = receiver.requests.length - received.size;
    const phaseOf = (at: number) =>
      phases.find((p) => at >= p.from && at < p.to)?.name ??
      (at < phases[0].from ? 'warm-up' : 'after');

    const rows = ['warm-up', ...phases.map((p) => p.name), 'after'].map((name) => {
      const mine = writes.filter((w) => w.phase === name);
      const evs = events.filter((e) => phaseOf(new Date(e.at).getTime()) === name);
      return {
        phase: name,
        sent: mine.length,
        acked: mine.filter((w) => w.acked).length,
        lost: mine.filter(lost).length,
        duplicated: duplicates.filter((d) => phaseOf(new Date(d.at).getTime()) === name).length,
        events: evs.length,
        delivered: evs.filter((e) => received.has(e.id)).length,
        undelivered: evs.filter((e) => !received.has(e.id)).length,
      };
    });
    const total = rows.reduce(
      (sum, r) => ({
        ...sum,
        sent: sum.sent + r.sent,
        acked: sum.acked + r.acked,
        lost: sum.lost + r.lost,
        duplicated: sum.duplicated + r.duplicated,
        events: sum.events + r.events,
        delivered: sum.delivered + r.delivered,
        undelivered: sum.undelivered + r.undelivered,
      }),
      {
        phase: 'total',
        sent: 0,
        acked: 0,
        lost: 0,
        duplicated: 0,
        events: 0,
        delivered: 0,
        undelivered: 0,
      },
    );
    const table = [...rows.filter((r) => r.sent || r.events), total];
    const columns = [
      'phase',
      'sent',
      'acked',
      'lost',
      'duplicated',
      'events',
      'delivered',
      'undelivered',
    ] as const;
    const width = (c: (typeof columns)[number]) =>
      Math.max(c.length, ...table.map((r) => String(r[c]).length));
    const line = (cells: string[]) =>
      cells.map((cell, i) => cell.padEnd(width(columns[i]))).join('  ');
    process.stdout.write(`\n${line([...columns])}\n`);
    for (const r of table) process.stdout.write(`${line(columns.map((c) => String(r[c])))}\n`);
    for (const p of phases) process.stdout.write(`  ${p.name}: ${p.note}\n`);
    const dead = events.filter((e) => e.status === 'dead').length;
    process.stdout.write(
      `writes by kind: ${(['user', 'lead', 'conversion', 'reversal'] as Kind[])
        .map(
          (k) =>
            `${k} ${writes.filter((w) => w.kind === k && w.acked).length}` +
            ` (${writes.filter((w) => w.kind === k && w.refused).length} refused)`,
        )
        .join(', ')} acknowledged; reads ${reads.ok}/${reads.sent} answered 200; ` +
        `${redelivered} deliveries received again (at least once, by design); ${dead} dead letters\n`,
    );
    if (duplicates.length)
      process.stdout.write(`duplicated: ${duplicates.map((d) => d.what).join('; ')}\n`);
    const lostWrites = writes.filter(lost);
    if (lostWrites.length) {
      process.stdout.write(
        `lost: ${lostWrites.map((w) => `${w.kind} ${w.id ?? w.key}`).join('; ')}\n`,
      );
    }
    // A run that wrote nothing of some kind, or emitted no event, proves nothing.
    const everyKind = (['user', 'lead', 'conversion', 'reversal'] as Kind[]).every((k) =>
      writes.some((w) => w.kind === k && w.acked),
    );
    const pass =
      everyKind &&
      total.events > 0 &&
      total.lost === 0 &&
      total.duplicated === 0 &&
      total.undelivered === 0;
    process.stdout.write(
      `${verdict(pass)}: ${total.lost} lost, ${total.duplicated} duplicated, ${total.undelivered} of ${total.events} events never delivered (target 0, 0, 0)\n`,
    );
  },
);

function pick<T>(list: T[]): T {
  return list[Math.floor(Math.random() * list.length)];
}

function adminAuth(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** One request to the API processes, starting at a random one, moving on when one is down. */
async function attempt(
  bases: string[],
  method: string,
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; body: unknown } | undefined> {
  const start = Math.floor(Math.random() * bases.length);
  for (let i = 0; i < bases.length; i++) {
    try {
      const res = await fetch(`${bases[(start + i) % bases.length]}${path}`, {
        method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Not JSON (a proxy's page): kept as text.
      }
      return { status: res.status, body: parsed };
    } catch {
      // Refused, reset or timed out: the next process.
    }
  }
  return undefined;
}

/** A request that must succeed (set-up), retried until it does. */
async function send(
  bases: string[],
  method: string,
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<unknown> {
  for (let i = 0; i < 20; i++) {
    const res = await attempt(bases, method, path, headers, body);
    if (res && res.status < 300) return res.body;
    if (res && res.status < 500)
      throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    await sleep(500);
  }
  throw new Error(`${method} ${path}: no answer`);
}
