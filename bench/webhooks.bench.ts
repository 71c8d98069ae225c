/**
 * Webhook delivery throughput against a plain HTTPS client (ARCHITECTURE "Tests": targets live in
 * bench/). Every delivery pays for its bookkeeping (a claim in Postgres, a Bull job, the attempt
 * log), but a local receiver that answers at once must still get at least half the rate a bare
 * keep-alive HTTPS loop with the same concurrency achieves: target engine ÷ baseline ≥ 0.5.
 *
 * The engine is timed from the commit of N events (written by the producer's transaction, as a
 * real change writes them) until Postgres has every delivery recorded `delivered`; the rate that
 * includes writing them is printed beside it. Both sides first send WARMUP requests, so that the
 * figures are of warm code, not of the JIT compiler. The two sides alternate for BENCH_ROUNDS rounds
 * and the verdict is the median round's ratio, so one noisy moment on a shared machine cannot
 * decide it.
 *
 * Run: npx ts-node --transpile-only bench/webhooks.bench.ts
 * Needs PostgreSQL and Redis (BENCH_DATABASE_SERVER, BENCH_REDIS_URL; local defaults). Creates and
 * drops its own database `bench_webhooks_<random>` and Bull prefix (bench/harness.ts); exits 1 only
 * when it crashes.
 * Knobs: BENCH_EVENTS (N, 10000), BENCH_CONCURRENCY (C, 16; at most 64), BENCH_WARMUP (2000),
 * BENCH_ROUNDS (3), BENCH_CPU_PROFILE (a file for a CPU profile of the first engine round).
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { Client } from 'pg';
import { TransactionHost } from '../src/database/transaction-host';
import { EventsService } from '../src/outbox/events.service';
import { newId } from '../src/common/ids';
import { selfSignedCertificate } from '../test/utils/https-receiver';
import { runBenchmark } from './harness';

const N = Number(process.env.BENCH_EVENTS ?? 10000);
const C = Number(process.env.BENCH_CONCURRENCY ?? 16);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2000);
/** Rounds of engine then baseline; the verdict is the median round's ratio. */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const TARGET_RATIO = 0.5;
/** BENCH_CPU_PROFILE=<file>: a .cpuprofile of the first engine round alone (open it in Chrome DevTools). */
const PROFILE = process.env.BENCH_CPU_PROFILE;
/** The engine must finish within this, or the run reports what it got and FAIL. */
const ENGINE_DEADLINE_MS = 120_000;

/** Event ids of the baseline's requests start with this (the engine's start with `evt_`). */
const BASELINE_ID = 'base_';

const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A receiver that reads the body and answers 200 at once; counts requests per event id (the
 * engine's: the baseline's ids are marked, so later rounds still wait for every delivery).
 */
async function startReceiver() {
  const { key, cert } = selfSignedCertificate();
  const seen = new Map<string, number>();
  let requests = 0;
  let handshakes = 0;
  const server = https.createServer({ key, cert, keepAliveTimeout: 30_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      const id = req.headers['x-service-event-id'];
      if (typeof id === 'string' && !id.startsWith(BASELINE_ID))
        seen.set(id, (seen.get(id) ?? 0) + 1);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"received":true}');
    });
  });
  server.on('secureConnection', () => handshakes++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/hook`,
    cert,
    seen,
    requests: () => requests,
    handshakes: () => handshakes,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** N POSTs of `body` to `url`, C at a time over a keep-alive agent; returns the elapsed ms. */
async function plainLoop(url: string, ca: string, body: string, n: number, c: number) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: c, ca });
  const target = new URL(url);
  const post = () =>
    new Promise<void>((resolve, reject) => {
      const req = https.request(target, {
        method: 'POST',
        agent,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': String(Buffer.byteLength(body)),
          'X-Service-Event-Id': `${BASELINE_ID}${randomBytes(8).toString('hex')}`,
        },
      });
      req.on('error', reject);
      req.on('response', (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`)),
        );
      });
      req.end(body);
    });
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (next < n) {
        next++;
        await post();
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  agent.destroy();
  return elapsed;
}

runBenchmark(
  { name: 'webhooks' },
  async ({ databaseUrl, adminToken, log, startApp, onCleanup }) => {
    const receiver = await startReceiver();
    onCleanup(() => receiver.close());
    const { caFile } = selfSignedCertificate();
    const { app, base } = await startApp({
      // API and worker in one process: the receiver, the engine and the baseline share the box.
      PROCESS_ROLE: 'all',
      WEBHOOK_CA_FILE: caFile,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_CONCURRENCY: String(C),
      WEBHOOK_ENDPOINT_CONCURRENCY: String(C),
      WEBHOOK_TIMEOUT_MS: '10000',
    });
    const call = async (method: string, path: string, body: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return JSON.parse(text) as Record<string, unknown>;
    };
    const slug = `bench-${randomBytes(4).toString('hex')}`;
    const tenant = await call('POST', '/admin/v1/tenants', {
      slug,
      display_name: 'Bench',
      allowed_origins: ['https://bench.example'],
    });
    const tenantId = tenant.org_id as string;
    await call('PUT', `/admin/v1/tenants/${slug}/webhook`, {
      url: receiver.url,
      events: ['lead.created'],
    });
    log(`app on ${base}, receiver on ${receiver.url}, C=${C}, N=${N}`);

    const tx = app.get(TransactionHost);
    const events = app.get(EventsService);
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    const delivered = async () =>
      Number(
        (
          await db.query(
            `SELECT count(*)::int AS n FROM webhook_deliveries WHERE tenant_id = $1 AND status = 'delivered'`,
            [tenantId],
          )
        ).rows[0].n,
      );
    /**
     * Emits `n` lead.created events in one transaction, as the outbox does for real changes;
     * `onCommit` runs the moment it commits (before the engine's own after-commit hand-off).
     */
    const emit = (n: number, onCommit?: () => void) =>
      tx.transaction(() => {
        if (onCommit) tx.afterCommit(onCommit);
        return events.emitMany(
          tenantId,
          Array.from({ length: n }, (_, i) => ({
            type: 'lead.created' as const,
            payload: {
              lead_id: newId('lead'),
              referrer_user_id: newId('serviceUser'),
              contact: { name: `Lead ${i}`, email: `lead${i}@example.org` },
              offer_id: null,
              metadata: {},
              source: 'api',
            },
          })),
        );
      });
    /**
     * Until `target` deliveries are recorded as delivered: first watches the receiver (in this
     * process, free), then asks Postgres, so that polling does not compete with the engine.
     */
    const waitDelivered = async (target: number, deadline: number) => {
      while (receiver.seen.size < target && Date.now() < deadline) await sleep(2);
      let done = await delivered();
      while (done < target && Date.now() < deadline) {
        await sleep(2);
        done = await delivered();
      }
      return done;
    };

    try {
      // Warm-up: connections, JIT, prepared plans; the baseline's client warms up the same way.
      await emit(WARMUP);
      await waitDelivered(WARMUP, Date.now() + 60_000);
      log(`warm-up of ${WARMUP} delivered`);
      let body = '';
      let deliveredSoFar = WARMUP;

      /** The engine: N events committed at once, timed until every delivery is `delivered`. */
      const engineRound = async (round: number) => {
        const requestsBefore = receiver.requests();
        const handshakesBefore = receiver.handshakes();
        const profiler = PROFILE && round === 1 ? new Session() : undefined;
        if (profiler) {
          profiler.connect();
          await profiler.post('Profiler.enable');
          await profiler.post('Profiler.start');
        }
        // The clock starts when the events commit: writing them is the producer's work, and no
        // delivery can start before. From then on everything is the engine's: the hand-off to
        // Bull, claims, requests and attempt records, until Postgres has every delivery recorded.
        const emitStarted = process.hrtime.bigint();
        let t0 = 0n;
        let cpu0 = process.cpuUsage();
        const emitted = await emit(N, () => {
          t0 = process.hrtime.bigint();
          cpu0 = process.cpuUsage();
        });
        const committedMs = Number(t0 - emitStarted) / 1e6;
        const done = await waitDelivered(deliveredSoFar + N, Date.now() + ENGINE_DEADLINE_MS);
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        const cpu = cpuMs(process.cpuUsage(cpu0));
        if (profiler) {
          const { profile } = await profiler.post('Profiler.stop');
          writeFileSync(PROFILE!, JSON.stringify(profile));
          profiler.disconnect();
          log(`CPU profile of the engine phase written to ${PROFILE}`);
        }
        const engineDone = done - deliveredSoFar;
        deliveredSoFar = done;
        body = JSON.stringify(emitted[0]);
        // Where the time goes: the HTTP part of each attempt, as the attempt log records it.
        const [http] = (
          await db.query(
            `SELECT avg(duration_ms)::float AS mean,
                  percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms)::float AS p50,
                  max(duration_ms)::int AS max
             FROM webhook_attempts WHERE tenant_id = $1 AND event_id = ANY($2)`,
            [tenantId, emitted.map((e) => e.event_id)],
          )
        ).rows as { mean: number; p50: number; max: number }[];
        const duplicates = emitted.filter((e) => (receiver.seen.get(e.event_id) ?? 0) > 1).length;
        log(
          `round ${round} engine: ${engineDone}/${N} delivered in ${(ms / 1000).toFixed(2)} s ` +
            `after the commit (insert + commit before it: ${committedMs.toFixed(0)} ms), ` +
            `${receiver.requests() - requestsBefore} requests over ` +
            `${receiver.handshakes() - handshakesBefore} new TLS connections; HTTP part of an ` +
            `attempt: mean ${http.mean?.toFixed(1)} ms, p50 ${http.p50} ms, max ${http.max} ms`,
        );
        return {
          done: engineDone,
          rate: (engineDone / ms) * 1000,
          withInsertRate: (engineDone / (ms + committedMs)) * 1000,
          cpuEach: cpu / Math.max(1, engineDone),
          duplicates,
        };
      };

      /** The baseline: the same receiver, a body of the same size, the same concurrency. */
      const baselineRound = async (round: number) => {
        if (round === 1) await plainLoop(receiver.url, receiver.cert, body, WARMUP, C);
        const handshakesBefore = receiver.handshakes();
        const cpu0 = process.cpuUsage();
        const ms = await plainLoop(receiver.url, receiver.cert, body, N, C);
        const cpu = cpuMs(process.cpuUsage(cpu0));
        log(
          `round ${round} baseline: ${N} POSTs in ${(ms / 1000).toFixed(2)} s over ` +
            `${receiver.handshakes() - handshakesBefore} new TLS connections`,
        );
        return { rate: (N / ms) * 1000, cpuEach: cpu / N };
      };

      // Rounds alternate the two sides, so a noisy moment on a shared machine hits one round of
      // one side rather than deciding the verdict; the verdict is the median round's ratio.
      const rounds = [];
      for (let round = 1; round <= ROUNDS; round++) {
        const engine = await engineRound(round);
        const baseline = await baselineRound(round);
        const ratio = engine.done === N ? engine.rate / baseline.rate : 0;
        rounds.push({ engine, baseline, ratio });
      }
      const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[(ROUNDS - 1) >> 1].ratio;
      const duplicates = rounds.reduce((sum, r) => sum + r.engine.duplicates, 0);
      const incomplete = rounds.filter((r) => r.engine.done !== N).length;
      const cpu = os.cpus();
      const num = (n: number, width: number, digits = 1) => n.toFixed(digits).padStart(width);
      process.stdout.write(
        [
          '',
          `webhook deliveries: N=${N} events (body ${Buffer.byteLength(body)} bytes), C=${C} ` +
            `(WEBHOOK_CONCURRENCY = WEBHOOK_ENDPOINT_CONCURRENCY = baseline parallelism), ` +
            `one endpoint, ${ROUNDS} rounds`,
          `machine: ${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ` +
            `node ${process.version}, ${os.platform()} ${os.release()}`,
          '',
          `engine: commit → Bull → claim → HTTPS → attempt log; baseline: a plain keep-alive ` +
            `HTTPS POST loop (per second; CPU ms each)`,
          `round     engine  incl. insert  CPU ms     baseline  CPU ms    engine ÷ baseline`,
          ...rounds.map(
            (r, i) =>
              `${String(i + 1).padEnd(5)} ${num(r.engine.rate, 10)} ${num(r.engine.withInsertRate, 13)} ` +
              `${num(r.engine.cpuEach, 7, 2)} ${num(r.baseline.rate, 12)} ${num(r.baseline.cpuEach, 7, 2)} ` +
              `${num(r.ratio, 20, 3)}` +
              (r.engine.done === N
                ? ''
                : `  (only ${r.engine.done}/${N} within ${ENGINE_DEADLINE_MS} ms)`),
          ),
          `(CPU ms each: this process's user + system CPU time per delivery or request, the receiver's ` +
            `share included; Postgres and Redis not counted)`,
          `duplicate deliveries: ${duplicates}`,
          '',
          `engine ÷ baseline (median of ${ROUNDS} rounds): ${median.toFixed(3)}  target ≥ ${TARGET_RATIO}  ` +
            `${median >= TARGET_RATIO && duplicates === 0 && incomplete === 0 ? 'PASS' : 'FAIL'}`,
          '',
        ].join('\n'),
      );
    } finally {
      await db.end();
    }
  },
);
