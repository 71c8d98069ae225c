/**
 * The program console at scale (docs/console.md): the overview and the partners search of a
 * tenant of 1,000,000 members, 2,000,000 leads and 3,000,000 bonuses, p50/p95/p99, each printed
 * beside the same answer computed by a direct aggregate query over the raw tables (what the page
 * would cost without the rollups and indexes of ConsoleRollups). Target: overview p95 ≤ 300 ms.
 *
 * Run:  npm run bench:console
 * Data: the database `console_bench` (BENCH_CONSOLE_DATABASE), built once by bench/seed-large.ts
 * (a few minutes) and kept between runs; `bench_embed` is never touched. The seed loads with the
 * triggers off, so the rollups are rebuilt (`stats_rebuild`, timed) when they are missing.
 * Knobs: BENCH_CONSOLE_SAMPLES (40), BENCH_CONSOLE_BASELINE_SAMPLES (5), BENCH_DATABASE_SERVER.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { BENCH_DATABASE_SERVER, type Bench, runBenchmark, stats, verdict } from './harness';

const DATABASE = process.env.BENCH_CONSOLE_DATABASE ?? 'console_bench';
const SAMPLES = Number(process.env.BENCH_CONSOLE_SAMPLES ?? 40);
const BASELINE_SAMPLES = Number(process.env.BENCH_CONSOLE_BASELINE_SAMPLES ?? 5);
const TENANT_ID = 'org_01BENCH0000000000000000000';
const SLUG = 'bench';
const TARGET_P95_MS = 300;
const SEED_FILE = resolve(__dirname, '.seed-large.json');

/** The console's own copy of the 1M data set: reused when complete, else seeded (not bench_embed). */
async function prepareDatabase(log: (m: string) => void): Promise<string> {
  const url = `${BENCH_DATABASE_SERVER}/${DATABASE}`;
  const members = await countMembers(url);
  if (members >= 1_000_000) {
    log(`reusing ${DATABASE} (${members.toLocaleString('en')} members)`);
    return url;
  }
  log(`building ${DATABASE} with bench/seed-large.ts (a few minutes)`);
  // The seed notes what it built in bench/.seed-large.json, which the embed benchmark reads: keep it.
  const saved = existsSync(SEED_FILE) ? readFileSync(SEED_FILE) : undefined;
  try {
    execFileSync('npx', ['ts-node', '--transpile-only', resolve(__dirname, 'seed-large.ts')], {
      env: { ...process.env, BENCH_EMBED_DATABASE: DATABASE },
      stdio: 'inherit',
    });
  } finally {
    if (saved) writeFileSync(SEED_FILE, saved);
    else rmSync(SEED_FILE, { force: true });
  }
  return url;
}

async function countMembers(url: string): Promise<number> {
  const db = new Client({ connectionString: url });
  try {
    await db.connect();
    const [row] = (
      await db.query('SELECT count(*)::int AS n FROM members WHERE tenant_id = $1', [TENANT_ID])
    ).rows;
    return row.n as number;
  } catch {
    return 0;
  } finally {
    await db.end().catch(() => undefined);
  }
}

const day = (offset: number) =>
  new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** The overview's numbers straight from the raw tables: what the rollups replace. */
const RAW_OVERVIEW = `
  WITH period AS (SELECT $2::date::timestamp AT TIME ZONE 'UTC' AS f,
                         ($3::date + 1)::timestamp AT TIME ZONE 'UTC' AS t),
  b AS (SELECT member_id, status, amount_kopecks FROM bonuses, period
         WHERE tenant_id = $1 AND currency = 'RUB'
           AND created_at >= f AND created_at < t)
  SELECT
    (SELECT count(*) FROM members, period WHERE tenant_id = $1
        AND created_at >= f AND created_at < t)::float8 AS new_partners,
    (SELECT count(*) FROM leads, period WHERE tenant_id = $1
        AND created_at >= f AND created_at < t)::float8 AS leads,
    (SELECT count(*) FROM conversions, period WHERE tenant_id = $1
        AND created_at >= f AND created_at < t)::float8 AS conversions,
    (SELECT coalesce(sum(amount_kopecks) FILTER (WHERE status = 'pending'), 0) FROM b)::float8
      AS commission_pending_kopecks,
    (SELECT coalesce(sum(amount_kopecks) FILTER (WHERE status = 'approved'), 0) FROM b)::float8
      AS commission_approved_kopecks,
    (SELECT json_agg(x) FROM (SELECT member_id, sum(amount_kopecks)::float8 AS c FROM b
        WHERE status NOT IN ('rejected', 'reversed') GROUP BY member_id
        ORDER BY 2 DESC, 1 LIMIT 10) x) AS top`;

/** The partners search without its trigram index: a scan of the tenant's members. */
const RAW_SEARCH = `
  SELECT id, full_name, email, external_id FROM members
   WHERE tenant_id = $1 AND (full_name ILIKE $2 OR email ILIKE $2 OR external_id ILIKE $2)
   ORDER BY created_at DESC, id DESC LIMIT 25`;

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const started = process.hrtime.bigint();
  const value = await fn();
  return [Number(process.hrtime.bigint() - started) / 1e6, value];
}

async function sample(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await timed(fn))[0]);
  return out;
}

const fmt = (s: ReturnType<typeof stats>) =>
  `p50 ${s.p50.toFixed(1)} ms · p95 ${s.p95.toFixed(1)} ms · p99 ${s.p99.toFixed(1)} ms`;

/** Signs in at /org/sign-in as a browser does; answers the session cookie. */
async function signIn(base: string, token: string): Promise<string> {
  const form = await fetch(`${base}/org/sign-in`);
  const pre = (form.headers.getSetCookie?.() ?? []).map((c) => c.split(';')[0]).join('; ');
  const csrf = /name="_csrf" value="([^"]*)"/.exec(await form.text())?.[1] ?? '';
  const res = await fetch(`${base}/org/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: pre },
    body: new URLSearchParams({ token, _csrf: csrf }).toString(),
  });
  const cookie = (res.headers.getSetCookie?.() ?? []).find((c) => c.startsWith('svc_admin='));
  if (!cookie) throw new Error(`sign-in failed: ${res.status}`);
  return cookie.split(';')[0];
}

async function body(bench: Bench): Promise<void> {
  const { log } = bench;
  const db = new Client({ connectionString: bench.databaseUrl });
  await db.connect();
  bench.onCleanup(() => db.end());
  const [{ n }] = (
    await db.query('SELECT count(*)::int AS n FROM stats_daily WHERE tenant_id = $1', [TENANT_ID])
  ).rows;
  if (n === 0) {
    const [ms] = await timed(() => db.query('SELECT stats_rebuild($1)', [TENANT_ID]));
    await db.query('ANALYZE stats_daily; ANALYZE stats_partner_daily');
    log(`rollups rebuilt from the raw tables in ${(ms / 1000).toFixed(1)} s (once per data set)`);
  }
  const sizes = (
    await db.query(
      `SELECT (SELECT count(*) FROM stats_daily WHERE tenant_id = $1)::int AS days,
                           (SELECT count(*) FROM stats_partner_daily WHERE tenant_id = $1)::int AS partner_days`,
      [TENANT_ID],
    )
  ).rows[0];
  log(`rollup rows: stats_daily ${sizes.days}, stats_partner_daily ${sizes.partner_days}`);

  const { base } = await bench.startApp();
  const auth = { authorization: `Bearer ${bench.adminToken}` };
  const cookie = await signIn(base, bench.adminToken);
  const get = async (path: string, headers: Record<string, string>) => {
    const res = await fetch(`${base}${path}`, { headers });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 200)}`);
    return text;
  };

  // Each figure is printed as soon as it is measured (a run takes minutes on a busy machine).
  const lines = {
    push: (...more: string[]) => more.forEach((l) => process.stdout.write(`${l}\n`)),
  };
  process.stdout.write(
    `\nProgram console on ${SLUG}: 1,000,000 members, 2,000,000 leads, 3,000,000 bonuses\n`,
  );
  let overviewP95 = 0;
  for (const days of [30, 90]) {
    const from = day(-(days - 1));
    const to = day(0);
    // The answers agree before anything is timed.
    const api = JSON.parse(
      await get(`/admin/v1/tenants/${SLUG}/stats?from=${from}&to=${to}`, auth),
    );
    const raw = (await db.query(RAW_OVERVIEW, [TENANT_ID, from, to])).rows[0];
    const same =
      api.totals.new_partners === raw.new_partners &&
      api.totals.leads === raw.leads &&
      api.totals.commission_pending_kopecks === raw.commission_pending_kopecks &&
      api.totals.commission_approved_kopecks === raw.commission_approved_kopecks &&
      JSON.stringify(api.top_partners.map((p: { user_id: string }) => p.user_id)) ===
        JSON.stringify((raw.top ?? []).map((p: { member_id: string }) => p.member_id));
    if (!same)
      throw new Error(
        `${days} days: the API ${JSON.stringify(api.totals)} ≠ raw ${JSON.stringify(raw)}`,
      );
    for (let i = 0; i < 5; i++) await get(`/org/${SLUG}?from=${from}&to=${to}`, { cookie });
    const page = stats(
      await sample(SAMPLES, () => get(`/org/${SLUG}?from=${from}&to=${to}`, { cookie })),
    );
    const json = stats(
      await sample(SAMPLES, () =>
        get(`/admin/v1/tenants/${SLUG}/stats?from=${from}&to=${to}`, auth),
      ),
    );
    const direct = stats(
      await sample(BASELINE_SAMPLES, () => db.query(RAW_OVERVIEW, [TENANT_ID, from, to])),
    );
    overviewP95 = Math.max(overviewP95, page.p95);
    lines.push(
      `overview, last ${days} days (${api.totals.leads.toLocaleString('en')} leads, ` +
        `${api.totals.new_partners.toLocaleString('en')} new partners; page = API = raw: yes)`,
      `  page /org/${SLUG}          ${fmt(page)}`,
      `  GET …/stats             ${fmt(json)}`,
      `  raw aggregate (SQL only) ${fmt(direct)}   ← what the page would cost without rollups`,
    );
  }

  for (const q of ['member 4242', 'member777@example', 'ext-00031337', 'zzz-no-such']) {
    const enc = encodeURIComponent(q);
    const api = JSON.parse(
      await get(`/admin/v1/tenants/${SLUG}/users?q=${enc}&page_size=25`, auth),
    );
    const rawIds = (await db.query(RAW_SEARCH, [TENANT_ID, `%${q}%`])).rows.map((r) => r.id);
    const same =
      JSON.stringify(api.items.map((p: { user_id: string }) => p.user_id)) ===
      JSON.stringify(rawIds);
    const page = stats(
      await sample(Math.ceil(SAMPLES / 2), () => get(`/org/${SLUG}/partners?q=${enc}`, { cookie })),
    );
    const json = stats(
      await sample(Math.ceil(SAMPLES / 2), () =>
        get(`/admin/v1/tenants/${SLUG}/users?q=${enc}&page_size=25`, auth),
      ),
    );
    const direct = stats(
      await sample(BASELINE_SAMPLES, () => db.query(RAW_SEARCH, [TENANT_ID, `%${q}%`])),
    );
    lines.push(
      `partners search q="${q}" (${api.pagination.total.toLocaleString('en')} found; first page = raw: ${same ? 'yes' : 'NO'})`,
      `  page /org/${SLUG}/partners ${fmt(page)}`,
      `  GET …/users             ${fmt(json)}`,
      `  raw ILIKE scan (SQL)    ${fmt(direct)}`,
    );
  }
  const list = stats(
    await sample(Math.ceil(SAMPLES / 2), () => get(`/org/${SLUG}/partners`, { cookie })),
  );
  lines.push(`partners list, newest first, page 1: page ${fmt(list)}`);

  process.stdout.write(
    `overview page p95 ${overviewP95.toFixed(1)} ms (target ≤ ${TARGET_P95_MS} ms): ${verdict(overviewP95 <= TARGET_P95_MS)}\n`,
  );
}

runBenchmark({ name: 'console', database: prepareDatabase }, body);
