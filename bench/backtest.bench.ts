/**
 * The backtest at scale (docs/money.md §2, "Backtest"): a 90-day backtest over 1,000,000
 * conversions on the 1,000,000-member data set of bench/seed-large.ts, through the real admin API
 * (`POST /admin/v1/tenants/bench/program/backtest`), with a draft that uses everything the replay
 * does (two phases, a qualified upline tier, compression), beside the floor measured in the same
 * run: one `SELECT` that reads those conversions into this process. Target: under 60 s and within
 * 5× the floor.
 *
 * Run: npm run bench:backtest   (npx ts-node --transpile-only bench/backtest.bench.ts)
 * Works on its own copy of `bench_embed` (built first when missing), to which it adds the
 * conversions (spread evenly over the last 89 days and inserted in that order, as registration
 * writes them, on 300,000 of the seed's leads) and their referrer
 * and upline_1 bonuses in set-based statements; the copy is dropped at the end. Knobs:
 * BENCH_BACKTEST_CONVERSIONS (1000000), BENCH_TEMPLATE_WAIT_S, BENCH_DATABASE_SERVER.
 * It reports PASS/FAIL, it is not a gate; it exits 1 only if it crashes (bench/harness.ts).
 */
import { loadavg } from 'node:os';
import { Client } from 'pg';
import { quoteIdent } from '../src/database/ensure-database';
import { BENCH_DATABASE_SERVER, runBenchmark } from './harness';
import { seedLarge } from './seed-large';

const CONVERSIONS = Number(process.env.BENCH_BACKTEST_CONVERSIONS ?? 1_000_000);
const LEADS_USED = 300_000;
const TEMPLATE_WAIT_S = Number(process.env.BENCH_TEMPLATE_WAIT_S ?? 600);
const TENANT_ID = 'org_01BENCH0000000000000000000';
const SLUG = 'bench';
const TARGET = { ratio: 5, seconds: 60 };
const DAY_MS = 86_400_000;

/** BENCH_BACKTEST_KEEP=<name>: build the copy under that name and keep it; a later run reuses it. */
const KEEP = process.env.BENCH_BACKTEST_KEEP;
const copyName = KEEP ?? `bench_backtest_${Date.now().toString(36)}`;
const copyUrl = `${BENCH_DATABASE_SERVER}/${copyName}`;

async function copyDataSet(log: (m: string) => void): Promise<string> {
  const source = process.env.BENCH_EMBED_DATABASE ?? 'bench_embed';
  const admin = new Client({ connectionString: `${BENCH_DATABASE_SERVER}/postgres` });
  await admin.connect();
  try {
    const kept =
      KEEP && (await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [KEEP]));
    if (kept && kept.rowCount) {
      log(`reusing ${KEEP}`);
      return copyUrl;
    }
    const exists = await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [source]);
    if (!exists.rowCount) await seedLarge({ reuse: true, log });
    const until = Date.now() + TEMPLATE_WAIT_S * 1000;
    for (;;) {
      try {
        await admin.query(`CREATE DATABASE ${quoteIdent(copyName)} TEMPLATE ${quoteIdent(source)}`);
        log(`copied ${source} to ${copyName}`);
        return copyUrl;
      } catch (error) {
        if (!/is being accessed by other users/.test(String(error)) || Date.now() > until) {
          throw error;
        }
        await new Promise((r) => setTimeout(r, 3000));
      }
    }
  } finally {
    await admin.end();
  }
}

/** The conversions (spread over the last 89 days), their bonuses and the personal sales. */
async function addConversions(db: Client, log: (m: string) => void, t0: number): Promise<void> {
  await db.query(`SET session_replication_role = replica`);
  await db.query(
    `CREATE TEMP TABLE used_leads AS
     SELECT row_number() OVER (ORDER BY id) AS n, id, referrer_member_id FROM leads
      WHERE tenant_id = $1 AND referrer_member_id IS NOT NULL LIMIT ${LEADS_USED}`,
    [TENANT_ID],
  );
  const [{ count: leads }] = (await db.query(`SELECT count(*)::int AS count FROM used_leads`)).rows;
  await db.query(
    `INSERT INTO conversions (tenant_id, id, lead_id, amount_kopecks, currency, external_order_id,
                              status, created_at)
     SELECT $1, 'cnv_bt' || lpad(g::text, 20, '0'), l.id, 1000 + (random() * 99000)::int, 'RUB',
            'bt-' || g, 'registered',
            now() - (1 - g::float8 / ($2::int + 1)) * interval '89 days'
       FROM generate_series(1, $2::int) g JOIN used_leads l ON l.n = 1 + g % $3::int`,
    [TENANT_ID, CONVERSIONS, leads],
  );
  for (const [tier, bp, depth] of [
    ['referrer', 1000, 0],
    ['upline_1', 300, 1],
  ] as const) {
    await db.query(
      `INSERT INTO bonuses (tenant_id, id, member_id, service_user_id, amount_kopecks, currency,
                            source_type, source_id, tier, status, due_at, created_at)
       SELECT c.tenant_id, 'bns_bt_${tier}_' || c.id, m.id, m.service_user_id,
              c.amount_kopecks * ${bp} / 10000, 'RUB', 'conversion', c.id, '${tier}', 'pending',
              c.created_at + interval '14 days', c.created_at
         FROM conversions c
         JOIN leads l ON l.tenant_id = c.tenant_id AND l.id = c.lead_id
         JOIN members r ON r.tenant_id = l.tenant_id AND r.id = l.referrer_member_id
         JOIN members m ON m.tenant_id = r.tenant_id
                       AND m.id = ${depth === 0 ? 'r.id' : 'r.referrer_member_id'}
        WHERE c.tenant_id = $1 AND c.id LIKE 'cnv_bt%' AND m.is_active`,
      [TENANT_ID],
    );
  }
  // What the triggers would have kept: the members' personal sales per day.
  await db.query(`DELETE FROM personal_sales_daily WHERE tenant_id = $1`, [TENANT_ID]);
  await db.query(
    `INSERT INTO personal_sales_daily (tenant_id, member_id, currency, day, shard,
                                       amount_kopecks, conversions)
     SELECT c.tenant_id, l.referrer_member_id, c.currency, (c.created_at AT TIME ZONE 'UTC')::date,
            0, sum(c.amount_kopecks), count(*)
       FROM conversions c JOIN leads l ON l.tenant_id = c.tenant_id AND l.id = c.lead_id
      WHERE c.tenant_id = $1 AND c.status <> 'reversed' AND l.referrer_member_id IS NOT NULL
      GROUP BY 1, 2, 3, 4`,
    [TENANT_ID],
  );
  await db.query(`SET session_replication_role = origin`);
  await db.query(`VACUUM ANALYZE conversions`);
  await db.query(`VACUUM ANALYZE bonuses`);
  await db.query(`VACUUM ANALYZE personal_sales_daily`);
  log(
    `setup: ${CONVERSIONS} conversions on ${leads} leads, their bonuses and personal sales, ` +
      `${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
}

runBenchmark({ name: 'backtest', database: copyDataSet }, async (bench) => {
  const { log, startApp, onCleanup, adminToken } = bench;
  onCleanup(async () => {
    if (KEEP) return;
    const admin = new Client({ connectionString: `${BENCH_DATABASE_SERVER}/postgres` });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(copyName)} WITH (FORCE)`);
    await admin.end();
    log(`dropped ${copyName}`);
  });
  const db = new Client({ connectionString: copyUrl });
  await db.connect();
  onCleanup(() => db.end());

  // Setup (not timed): the conversions and what the tenant's program paid for them.
  const t0 = Date.now();
  const [{ n: already }] = (
    await db.query(`SELECT count(*)::int AS n FROM conversions WHERE id LIKE 'cnv_bt%'`)
  ).rows;
  if (!already) await addConversions(db, log, t0);

  const to = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - 89 * DAY_MS).toISOString().slice(0, 10);
  const bounds = [TENANT_ID, `${from}T00:00:00Z`, new Date(Date.parse(to) + DAY_MS)];

  // The floor: the period's conversions read into this process, as the replay must read them.
  const floors: number[] = [];
  let floorRows = 0;
  for (let round = 0; round < 2; round++) {
    const started = process.hrtime.bigint();
    const res = await db.query(
      `SELECT id, lead_id, created_at, amount_kopecks, currency, status FROM conversions
        WHERE tenant_id = $1 AND created_at >= $2 AND created_at < $3`,
      bounds,
    );
    floors.push(Number(process.hrtime.bigint() - started) / 1e9);
    floorRows = res.rowCount!;
  }
  const floor = Math.min(...floors);
  log(`floor (one SELECT): ${floorRows} rows in ${floors.map((s) => s.toFixed(2)).join(' s, ')} s`);

  const draft = {
    phases: [
      {
        months: 1,
        tiers: [
          { tier: 'referrer', percent_bp: 2000 },
          {
            tier: 'upline_1',
            percent_bp: 500,
            qualify: { min_personal_sales_kopecks: 10_000, window_days: 30 },
          },
          { tier: 'upline_2', percent_bp: 200 },
        ],
      },
      {
        tiers: [
          { tier: 'referrer', percent_bp: 1000 },
          { tier: 'upline_1', percent_bp: 300 },
        ],
      },
    ],
    compression: true,
  };
  const { base } = await startApp();
  const loadBefore = loadavg();
  const started = process.hrtime.bigint();
  const res = await fetch(`${base}/admin/v1/tenants/${SLUG}/program/backtest`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ target: 'default', program: draft, from, to }),
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const body = (await res.json()) as {
    conversions: number;
    actual: { commission_kopecks: number };
    draft: { commission_kopecks: number; by_tier: Record<string, number> };
  };
  if (res.status !== 200)
    throw new Error(`backtest answered ${res.status}: ${JSON.stringify(body)}`);
  if (body.conversions !== floorRows) {
    throw new Error(
      `the backtest replayed ${body.conversions} conversions, the floor read ${floorRows}`,
    );
  }
  const ratio = seconds / floor;
  const pass = ratio <= TARGET.ratio && seconds < TARGET.seconds;
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
  process.stdout.write(
    [
      '',
      `backtest of ${from}…${to}: ${body.conversions} conversions, actual ${body.actual.commission_kopecks}, draft ${body.draft.commission_kopecks} (${Object.keys(body.draft.by_tier).join(', ')})`,
      `  backtest (POST …/program/backtest)  ${seconds.toFixed(2)} s   ${Math.round(body.conversions / seconds)} conversions/s`,
      `  floor (one SELECT of them)          ${floor.toFixed(2)} s`,
      `  backtest / floor                    ${ratio.toFixed(2)}×  (target ≤ ${TARGET.ratio}× and < ${TARGET.seconds} s): ${pass ? 'PASS' : 'FAIL'}`,
      `  load average before / after         ${load(loadBefore)} / ${load(loadavg())}`,
      '',
    ].join('\n'),
  );
});
