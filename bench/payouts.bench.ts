/**
 * A payout run at scale (docs/payouts.md): one run over 100,000 members with approved balances
 * (several approved bonuses each) on the 1,000,000-member data set of bench/seed-large.ts, through
 * the real admin API (`POST /admin/v1/tenants/bench/payouts/runs`), beside the floor measured in
 * the same run: one hand-written `INSERT … SELECT` that aggregates the same balances into a table
 * shaped like `payouts`. Target: the run within 3× the floor and under 60 s.
 *
 * Run: npm run bench:payouts   (npx ts-node --transpile-only bench/payouts.bench.ts)
 * Works on its own copy of `bench_embed` (`CREATE DATABASE … TEMPLATE bench_embed`, once nothing
 * is connected to it; dropped at the end), so the shared data set is never written (not even
 * migrated: the copy is). Builds `bench_embed` first if it is missing (bench/seed-large.ts). Knobs: BENCH_PAYOUT_MEMBERS
 * (100000), BENCH_TEMPLATE_WAIT_S (600: how long to wait for `bench_embed` to be free),
 * BENCH_DATABASE_SERVER, BENCH_REDIS_URL.
 * It reports PASS/FAIL, it is not a gate; it exits 1 only if it crashes (bench/harness.ts).
 */
import { readFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { Client } from 'pg';
import { quoteIdent } from '../src/database/ensure-database';
import { BENCH_DATABASE_SERVER, runBenchmark } from './harness';
import { seedLarge } from './seed-large';

const MEMBERS = Number(process.env.BENCH_PAYOUT_MEMBERS ?? 100_000);
const TEMPLATE_WAIT_S = Number(process.env.BENCH_TEMPLATE_WAIT_S ?? 600);
const TENANT_ID = 'org_01BENCH0000000000000000000';
const SLUG = 'bench';
/** Bonuses of the chosen members are approved long ago; everyone else's are still on hold. */
const HOLD_DAYS = 3650;
const LONG_AGO = '2000-01-01T00:00:00Z';
const TARGET = { ratio: 3, seconds: 60 };

const copyName = `bench_payouts_${Date.now().toString(36)}`;
const copyUrl = `${BENCH_DATABASE_SERVER}/${copyName}`;

/** Copies the seeded data set once nothing is connected to it (a template must be idle). */
async function copyDataSet(log: (m: string) => void): Promise<string> {
  const source = process.env.BENCH_EMBED_DATABASE ?? 'bench_embed';
  const admin = new Client({ connectionString: `${BENCH_DATABASE_SERVER}/postgres` });
  await admin.connect();
  try {
    // Only a missing data set is seeded: seedLarge's reuse path would migrate the shared copy.
    const exists = await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [source]);
    if (!exists.rowCount) await seedLarge({ reuse: true, log });
    const until = Date.now() + TEMPLATE_WAIT_S * 1000;
    for (let attempt = 1; ; attempt++) {
      try {
        const started = Date.now();
        await admin.query(`CREATE DATABASE ${quoteIdent(copyName)} TEMPLATE ${quoteIdent(source)}`);
        log(`copied ${source} to ${copyName} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
        return copyUrl;
      } catch (error) {
        const busy = /is being accessed by other users/.test(String(error));
        if (!busy || Date.now() > until) throw error;
        if (attempt === 1) log(`${source} is in use; waiting until it is free to copy it`);
        await new Promise((r) => setTimeout(r, 3000));
      }
    }
  } finally {
    await admin.end();
  }
}

/**
 * CPU seconds (user + system) the given PostgreSQL backends have used so far, from /proc, each
 * pid mapped to its figure; null when the server is not on this machine (then not printed).
 */
async function backendCpu(pids: number[]): Promise<Map<number, number> | null> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    try {
      const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
      out.set(pid, (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      return null;
    }
  }
  return out;
}

async function dropCopy(log: (m: string) => void): Promise<void> {
  const admin = new Client({ connectionString: `${BENCH_DATABASE_SERVER}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(copyName)} WITH (FORCE)`);
  await admin.end();
  log(`dropped ${copyName}`);
}

runBenchmark(
  { name: 'payouts', database: copyDataSet },
  async ({ log, startApp, onCleanup, adminToken }) => {
    onCleanup(() => dropCopy(log));
    const db = new Client({ connectionString: copyUrl });
    await db.connect();
    onCleanup(() => db.end());

    // Setup (not timed): the chosen members' RUB bonuses become payable; nobody else's are.
    const t0 = Date.now();
    await db.query(`ALTER TABLE bonuses DISABLE TRIGGER USER`);
    const chosen = await db.query(
      `CREATE TABLE bench_chosen AS
       SELECT member_id FROM bonuses
        WHERE tenant_id = $1 AND status = 'approved' AND currency = 'RUB'
        GROUP BY member_id HAVING count(*) >= 2
        ORDER BY min(id) LIMIT $2`,
      [TENANT_ID, MEMBERS],
    );
    const moved = await db.query(
      `UPDATE bonuses b SET approved_at = $2 FROM bench_chosen c
        WHERE b.tenant_id = $1 AND b.member_id = c.member_id
          AND b.status = 'approved' AND b.currency = 'RUB'`,
      [TENANT_ID, LONG_AGO],
    );
    await db.query(`ALTER TABLE bonuses ENABLE TRIGGER USER`);
    await db.query(
      `UPDATE members SET is_active = true WHERE tenant_id = $1 AND NOT is_active
                      AND id IN (SELECT member_id FROM bench_chosen)`,
      [TENANT_ID],
    );
    await db.query(
      `UPDATE tenants SET payouts = jsonb_build_object('minimum_kopecks', 1, 'schedule', 'manual',
                                                        'hold_days', $2::int) WHERE id = $1`,
      [TENANT_ID, HOLD_DAYS],
    );
    await db.query(`VACUUM ANALYZE bonuses`);
    // The floor's table is `payouts` as it was when the floor was first measured: its columns and
    // indexes, without the items a payout now keeps (docs/payouts.md §10), so the floor stays the
    // same statement over the same shape from one change to the next.
    await db.query(`CREATE TABLE floor_payouts (LIKE payouts INCLUDING ALL)`);
    await db.query(`ALTER TABLE floor_payouts DROP COLUMN item_ids, DROP COLUMN item_amounts`);
    log(
      `setup: ${chosen.rowCount} members, ${moved.rowCount} approved RUB bonuses payable ` +
        `(${(moved.rowCount! / chosen.rowCount!).toFixed(1)} each), ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );

    // The floor: the same balances aggregated into payout rows by one statement.
    const floorSql = `
      INSERT INTO floor_payouts (tenant_id, id, run_id, member_id, service_user_id, currency,
                                 amount_kopecks, status, created_at)
      SELECT $1, 'pay_' || s.member_id || s.currency, 'floor', s.member_id, m.service_user_id,
             s.currency, s.amount, 'pending', now()
        FROM (SELECT member_id, currency, sum(amount_kopecks) AS amount FROM bonuses
               WHERE tenant_id = $1 AND status = 'approved'
                 AND approved_at <= now() - make_interval(days => $2)
               GROUP BY member_id, currency HAVING sum(amount_kopecks) >= 1) s
        JOIN members m ON m.tenant_id = $1 AND m.id = s.member_id
       WHERE m.is_active`;
    const floors: number[] = [];
    const floorCpus: number[] = [];
    const [{ pid: floorPid }] = (await db.query(`SELECT pg_backend_pid() AS pid`)).rows;
    let floorCount = 0;
    let floorTotal = '0';
    for (let round = 0; round < 2; round++) {
      await db.query(`TRUNCATE floor_payouts`);
      const cpu0 = await backendCpu([floorPid]);
      const started = process.hrtime.bigint();
      const res = await db.query(floorSql, [TENANT_ID, HOLD_DAYS]);
      floors.push(Number(process.hrtime.bigint() - started) / 1e9);
      const cpu1 = await backendCpu([floorPid]);
      if (cpu0 && cpu1) floorCpus.push(cpu1.get(floorPid)! - cpu0.get(floorPid)!);
      floorCount = res.rowCount!;
      const [sum] = (await db.query(`SELECT sum(amount_kopecks)::text AS s FROM floor_payouts`))
        .rows;
      floorTotal = sum.s;
    }
    const floor = Math.min(...floors);
    log(
      `floor (INSERT … SELECT): ${floorCount} payouts in ${floors.map((s) => s.toFixed(2)).join(' s, ')} s`,
    );

    // The run, through the real API; the CPU of every other backend of the copy is the run's.
    const { base } = await startApp();
    const backends = async () =>
      (
        await db.query(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> $1`,
          [floorPid],
        )
      ).rows.map((r: { pid: number }) => r.pid);
    const runCpu0 = await backendCpu(await backends());
    const loadBefore = loadavg();
    const started = process.hrtime.bigint();
    const res = await fetch(`${base}/admin/v1/tenants/${SLUG}/payouts/runs`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${adminToken}` },
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const runCpu1 = await backendCpu(await backends());
    const runCpu =
      runCpu0 && runCpu1
        ? [...runCpu1].reduce((sum, [pid, cpu]) => sum + cpu - (runCpu0.get(pid) ?? 0), 0)
        : null;
    const body = (await res.json()) as { payouts_count: number; total_kopecks: number };
    if (res.status !== 201) throw new Error(`run answered ${res.status}: ${JSON.stringify(body)}`);
    const [items] = (
      await db.query(`SELECT count(*)::int AS n FROM payout_claims WHERE tenant_id = $1`, [
        TENANT_ID,
      ])
    ).rows;
    const [events] = (
      await db.query(
        `SELECT count(*)::int AS n FROM events WHERE tenant_id = $1 AND event_type = 'payout.created'`,
        [TENANT_ID],
      )
    ).rows;
    log(
      `run: ${body.payouts_count} payouts, ${items.n} items, ${events.n} payout.created events in ${seconds.toFixed(2)} s`,
    );
    if (events.n !== body.payouts_count)
      throw new Error(`${events.n} payout.created events for ${body.payouts_count} payouts`);
    if (body.payouts_count !== floorCount || String(body.total_kopecks) !== floorTotal)
      throw new Error(
        `the run and the floor disagree: ${body.payouts_count} / ${body.total_kopecks} vs ${floorCount} / ${floorTotal}`,
      );

    const ratio = seconds / floor;
    const pass = ratio <= TARGET.ratio && seconds < TARGET.seconds;
    const floorCpu = floorCpus.length ? Math.min(...floorCpus) : null;
    const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
    process.stdout.write(
      [
        '',
        `payout run over ${body.payouts_count} members (${items.n} bonuses), same totals as the floor`,
        `  run (POST …/payouts/runs)     ${seconds.toFixed(2)} s   ${Math.round(body.payouts_count / seconds)} payouts/s`,
        `  floor (one INSERT … SELECT)   ${floor.toFixed(2)} s   ${Math.round(floorCount / floor)} payouts/s`,
        `  run / floor                   ${ratio.toFixed(2)}×  (target ≤ ${TARGET.ratio}× and < ${TARGET.seconds} s): ${pass ? 'PASS' : 'FAIL'}`,
        ...(runCpu !== null && floorCpu !== null
          ? [
              `  backend CPU: run ${runCpu.toFixed(2)} s, floor ${floorCpu.toFixed(2)} s ` +
                `(${floorCpus.map((c) => c.toFixed(2)).join(' s, ')} s): ` +
                `${(runCpu / floorCpu).toFixed(2)}× (what load disturbs least; not the target)`,
            ]
          : []),
        `  load average before the run   ${load(loadBefore)} on ${cpus().length} cores`,
        `  load average after the run    ${load(loadavg())} on ${cpus().length} cores`,
        '',
      ].join('\n'),
    );
  },
);
