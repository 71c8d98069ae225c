/**
 * Short-link redirect throughput (docs/embedding.md, GET /s/:code): each redirect looks the code up (in
 * memory once it has been followed), counts a click (written to deeplinks and members in batches
 * by ClickCounter) and answers 302 with `ref` added. The benchmark
 * compares it with the floor of what any Node HTTP server can do on this machine: a node:http
 * server answering a static 302 with a Location of the same length. Target: the service reaches
 * at least half the static server's requests per second (ratio ≥ 0.5) in the median of BENCH_ROUNDS
 * (3) alternating rounds.
 *
 * Run: npm run bench:redirects. Needs PostgreSQL and Redis (bench/harness.ts); creates and
 * drops its own database; exits 1 only if it crashes.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { EmbedTokenService } from '../src/access/embed-token.service';
import { ClickCounter } from '../src/deeplinks/click-counter';
import { autocannonJson, machineLine, postJson, runBenchmark, verdict } from './harness';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP_S = Number(process.env.BENCH_WARMUP ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TARGET_RATIO = 0.5;
/** At least this share of the 302s autocannon counted must show up in deeplinks.clicks_count. */
const CLICKS_FLOOR = 0.99;

/** The part of autocannon's `--json` result this script reads. */
interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number; max: number };
  statusCodeStats: Record<string, { count: number }>;
  errors: number;
  timeouts: number;
  non2xx: number;
}

/** autocannon in a child process (harness.ts), CONNECTIONS connections for `seconds`. */
function cannon(url: string, seconds: number): Promise<CannonResult> {
  return autocannonJson(url, ['-c', String(CONNECTIONS), '-d', String(seconds)]);
}

const count302 = (r: CannonResult) => r.statusCodeStats['302']?.count ?? 0;

runBenchmark(
  { name: 'redirects' },
  async ({ databaseUrl, adminToken, log, startApp, onCleanup }) => {
    const { app, base } = await startApp();
    log(`app listening on ${base}`);
    const call = (path: string, headers: Record<string, string>, body: unknown) =>
      postJson(base, path, headers, body);

    const slug = `bench-${randomBytes(4).toString('hex')}`;
    const origin = `https://${slug}.example`;
    const tenant = await call(
      '/admin/v1/tenants',
      { authorization: `Bearer ${adminToken}` },
      { slug, display_name: 'Bench', allowed_origins: [origin] },
    );
    const tenantId = tenant.org_id as string;
    const member = await call(
      '/federation/v1/users/upsert',
      { 'x-service-tenant-key': tenant.tenant_key as string },
      { external_id: 'bench-partner', full_name: 'Bench Partner' },
    );
    const { token } = app
      .get(EmbedTokenService)
      .issue(tenantId, member.tenant_service_id as string);
    const link = await call(
      `/embed/v1/data/referral-link?tenant=${slug}`,
      { authorization: `Bearer ${token}`, origin },
      { target_type: 'website', target_id: `${origin}/catalog/spring?utm_source=partner` },
    );
    const code = link.code as string;
    const deeplinkId = link.deeplink_id as string;

    // One probe: the real answer, whose Location length the static server copies.
    const probe = await fetch(`${base}/s/${code}`, { redirect: 'manual' });
    const location = probe.headers.get('location') ?? '';
    await probe.text();
    // The ref carries the click time (docs/fraud.md), so it is the link's own one plus `c`.
    const ref = probe.status === 302 ? new URL(location).searchParams.get('ref') : null;
    const claims = ref
      ? (JSON.parse(Buffer.from(ref.split('.')[0], 'base64url').toString()) as {
          d?: string;
          c?: number;
        })
      : {};
    if (claims.d !== deeplinkId || typeof claims.c !== 'number') {
      throw new Error(`GET /s/${code}: ${probe.status} ${location}`);
    }
    log(`link ${code} → 302 (Location ${location.length} characters)`);

    // The floor: node:http, a static 302, a Location of the same length, the same no-store.
    const staticLocation = `${origin}/`.padEnd(location.length, 'x');
    const baseline = http.createServer((_req, res) => {
      res.writeHead(302, {
        Location: staticLocation,
        'Cache-Control': 'no-store',
        'Content-Length': '0',
      });
      res.end();
    });
    await new Promise<void>((resolve) => baseline.listen(0, '127.0.0.1', resolve));
    onCleanup(async () => {
      baseline.closeAllConnections();
      await new Promise((r) => baseline.close(r));
    });
    const baselineUrl = `http://127.0.0.1:${(baseline.address() as AddressInfo).port}/s/${code}`;

    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    onCleanup(() => db.end());
    const clicks = async () =>
      Number(
        (
          await db.query('SELECT clicks_count FROM deeplinks WHERE tenant_id = $1 AND id = $2', [
            tenantId,
            deeplinkId,
          ])
        ).rows[0].clicks_count,
      );

    // CPU time of this process (both servers, not the load generator) per answered request: a
    // figure that stays meaningful on a busy machine, where requests per second do not.
    const measured = async (url: string) => {
      const cpu0 = process.cpuUsage();
      const result = await cannon(url, DURATION_S);
      const cpu = process.cpuUsage(cpu0);
      return { ...result, cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / result.requests.total };
    };

    log(`warm-up ${WARMUP_S}s each`);
    await cannon(`${base}/s/${code}`, WARMUP_S);
    await cannon(baselineUrl, WARMUP_S);
    // Let requests still in flight at the warm-up's deadline finish before counting.
    await new Promise((r) => setTimeout(r, 500));

    // The two sides alternate for ROUNDS rounds and the verdict is the median round's ratio: a
    // noisy moment on a shared machine hits one round of one side instead of deciding the result.
    type Measured = CannonResult & { cpuMsPerRequest: number };
    const rounds: { service: Measured; floor: Measured; ratio: number }[] = [];
    let recorded = 0;
    let redirects = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      await app.get(ClickCounter).flush();
      const clicksBefore = await clicks();
      log(`round ${round}/${ROUNDS}: GET /s/${code}, ${DURATION_S}s, ${CONNECTIONS} connections`);
      const service = await measured(`${base}/s/${code}`);
      await new Promise((r) => setTimeout(r, 500));
      await app.get(ClickCounter).flush(); // what the timer would write within CLICK_FLUSH_MS
      recorded += (await clicks()) - clicksBefore;
      redirects += count302(service);
      log(`round ${round}/${ROUNDS}: the static node:http 302, ${DURATION_S}s`);
      const floor = await measured(baselineUrl);
      rounds.push({ service, floor, ratio: service.requests.average / floor.requests.average });
    }
    // Up to one request per connection in flight at each round's deadline, counted by the
    // service but not by autocannon.
    const slack = CONNECTIONS * ROUNDS;
    const ratios = rounds.map((r) => r.ratio);
    const ratio = ratios.slice().sort((a, b) => a - b)[Math.floor(ratios.length / 2)];
    const row = (name: string, r: Measured) =>
      [
        name.padEnd(30),
        r.requests.average.toFixed(0).padStart(8),
        r.latency.p50.toFixed(1).padStart(8),
        r.latency.p99.toFixed(1).padStart(8),
        String(count302(r)).padStart(8),
        String(r.non2xx - count302(r) + r.errors + r.timeouts).padStart(8),
        r.cpuMsPerRequest.toFixed(3).padStart(10),
      ].join(' ');
    const header = [
      'server'.padEnd(30),
      ...['req/s', 'p50 ms', 'p99 ms', '302s', 'other'].map((h) => h.padStart(8)),
      'CPU ms/req',
    ].join(' ');
    process.stdout.write(
      [
        '',
        `GET /s/:code (website link: lookup, click recorded, 302 with ref) against a static node:http 302,`,
        `autocannon ${CONNECTIONS} connections × ${DURATION_S}s, ${ROUNDS} rounds alternating, after ${WARMUP_S}s warm-up; Location ${location.length} characters`,
        `machine: ${machineLine()}`,
        '',
        header,
        ...rounds.flatMap((r, i) => [
          row(`service GET /s/:code, round ${i + 1}`, r.service),
          row(`static node:http 302, round ${i + 1}`, r.floor),
        ]),
        '',
        `service ÷ static (req/s) by round: ${ratios.map((r) => r.toFixed(3)).join(', ')}`,
        `service ÷ static (req/s), median round: ${ratio.toFixed(3)}  target ≥ ${TARGET_RATIO}  ${verdict(ratio >= TARGET_RATIO)}`,
        `clicks recorded during the run: ${recorded}; 302 responses counted: ${redirects}; ` +
          `recorded ÷ counted: ${redirects ? (recorded / redirects).toFixed(4) : 'n/a'}  ` +
          `(expected ${redirects} … ${redirects + slack}, at least ${CLICKS_FLOOR * 100} %)  ` +
          `${verdict(recorded >= redirects * CLICKS_FLOOR && recorded <= redirects + slack)}`,
        '',
      ].join('\n'),
    );
  },
);
