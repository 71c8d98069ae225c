/**
 * Conversion latency against referral-network depth (ARCHITECTURE "Tests": targets live in bench/).
 * The cascade reads the upline one primary-key probe per tier, so registering a conversion for a
 * lead whose referrer sits 10,000 levels deep must cost about what it costs 10 levels deep.
 *
 * Run: npm run bench:conversions. Needs PostgreSQL and Redis (bench/harness.ts); creates and
 * drops its own database; exits 1 only if it crashes.
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { machineLine, postJson, runBenchmark, stats, verdict } from './harness';

const DEPTH = Number(process.env.BENCH_DEPTH ?? 10_000);
const SHALLOW = 10;
const WARMUP = Number(process.env.BENCH_WARMUP ?? 50);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const TARGET_RATIO = 1.3;
/**
 * `BENCH_QUALIFY=1` (npm run bench:qualified): every upline tier asks for personal sales and the
 * program compresses (docs/money.md §2), and every member has sold enough today, so each
 * conversion also reads its chain's personal sales and still pays every tier.
 */
const QUALIFY = process.env.BENCH_QUALIFY === '1';
/** referrer + upline_1 … upline_9: both leads' chains are long enough to pay every tier. */
const TIERS = Array.from({ length: 10 }, (_, i) => ({
  tier: i === 0 ? 'referrer' : `upline_${i}`,
  percent_bp: 100,
  ...(QUALIFY && i > 0 ? { qualify: { min_personal_sales_kopecks: 1000, window_days: 30 } } : {}),
}));

/** A Crockford-base32 id body of 26 characters, so the API accepts it (`usr_…`). */
const idBody = (sql: string) => `'BENCH' || lpad((${sql})::text, 21, '0')`;

runBenchmark(
  { name: QUALIFY ? 'conversions (qualified)' : 'conversions' },
  async ({ databaseUrl, adminToken, log, startApp }) => {
    const { base } = await startApp();
    log(`app listening on ${base}`);

    const call = (path: string, init: { headers?: Record<string, string>; body?: unknown }) =>
      postJson(base, path, init.headers ?? {}, init.body);

    const tenant = await call('/admin/v1/tenants', {
      headers: { authorization: `Bearer ${adminToken}` },
      body: {
        slug: `bench-${randomBytes(4).toString('hex')}`,
        display_name: 'Bench',
        allowed_origins: ['https://bench.example'],
        program: { tiers: TIERS, ...(QUALIFY ? { compression: true } : {}) },
      },
    });
    const tenantId = tenant.org_id as string;
    const tenantKey = tenant.tenant_key as string;

    // One chain 0 … DEPTH, in two statements: member i is referred by member i-1.
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      await db.query(
        `INSERT INTO service_users (id, created_at)
         SELECT 'usr_' || ${idBody('i')}, now() FROM generate_series(0, $1::int) AS i`,
        [DEPTH],
      );
      await db.query(
        `INSERT INTO members (tenant_id, id, service_user_id, external_id, full_name,
                              referrer_member_id, depth, root_member_id, created_at, updated_at)
         SELECT $1, 'mbr_' || ${idBody('i')}, 'usr_' || ${idBody('i')}, 'bench-' || i,
                'Member ' || i,
                CASE WHEN i = 0 THEN NULL ELSE 'mbr_' || ${idBody('i - 1')} END,
                i, 'mbr_' || ${idBody('0')}, now(), now()
           FROM generate_series(0, $2::int) AS i`,
        [tenantId, DEPTH],
      );
      // The Embed read model's kept counters, where the schema has them: a chain's member i has
      // DEPTH - i descendants, the deepest at DEPTH.
      const { rows: counters } = await db.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns
          WHERE table_name = 'members' AND column_name IN ('downline_count', 'deepest_depth')`,
      );
      if (counters.length === 2) {
        await db.query(
          `UPDATE members SET downline_count = $2::int - depth, deepest_depth = $2::int
            WHERE tenant_id = $1`,
          [tenantId, DEPTH],
        );
      }
      if (QUALIFY) {
        // Every member's own sales today: enough for every tier's `qualify`.
        await db.query(
          `INSERT INTO personal_sales_daily (tenant_id, member_id, currency, day, amount_kopecks)
           SELECT $1, id, 'RUB', (now() AT TIME ZONE 'UTC')::date, 100000 FROM members
            WHERE tenant_id = $1`,
          [tenantId],
        );
      }
      await db.query('ANALYZE service_users; ANALYZE members; ANALYZE personal_sales_daily');
      const [{ max }] = (
        await db.query('SELECT max(depth) AS max FROM members WHERE tenant_id = $1', [tenantId])
      ).rows;
      log(`chain of ${DEPTH + 1} members inserted (deepest at depth ${max})`);
    } finally {
      await db.end();
    }

    const usrAt = (depth: number) => `usr_BENCH${String(depth).padStart(21, '0')}`;
    const fed = (path: string, body: unknown) =>
      call(path, { headers: { 'x-service-tenant-key': tenantKey }, body });
    const leadOf = async (depth: number) =>
      (
        await fed('/federation/v1/leads', {
          referrer_user_id: usrAt(depth),
          contact: { name: `Lead at ${depth}`, email: `lead${depth}@example.org` },
        })
      ).lead_id as string;
    const scenarios = [
      {
        name: `shallow (depth ${SHALLOW})`,
        leadId: await leadOf(SHALLOW),
        samples: [] as number[],
      },
      { name: `deep (depth ${DEPTH})`, leadId: await leadOf(DEPTH), samples: [] as number[] },
    ];

    // Both pay every tier: check once, so the comparison is of equal work.
    for (const s of scenarios) {
      const res = await fed('/federation/v1/conversions/preview', {
        lead_id: s.leadId,
        amount_kopecks: 100_000,
        currency: 'RUB',
      });
      const paid = (res.cascaded_bonuses as unknown[]).length;
      if (paid !== TIERS.length)
        throw new Error(`${s.name}: ${paid} bonuses, expected ${TIERS.length}`);
    }

    let order = 0;
    const register = async (leadId: string): Promise<number> => {
      const t0 = process.hrtime.bigint();
      await fed('/federation/v1/conversions/register', {
        lead_id: leadId,
        amount_kopecks: 100_000 + order,
        currency: 'RUB',
        external_order_id: `bench-${order++}`,
      });
      return Number(process.hrtime.bigint() - t0) / 1e6;
    };

    // Sequential, one keep-alive connection, shallow and deep alternating so drift hits both alike.
    for (let i = 0; i < WARMUP; i++) for (const s of scenarios) await register(s.leadId);
    log(`warm-up done (${WARMUP} each); measuring ${REQUESTS} each`);
    for (let i = 0; i < REQUESTS; i++) {
      for (const s of scenarios) s.samples.push(await register(s.leadId));
    }

    const [shallow, deep] = scenarios.map((s) => ({ name: s.name, ...stats(s.samples) }));
    const ms = (v: number) => v.toFixed(2).padStart(8);
    process.stdout.write(
      [
        '',
        `POST /federation/v1/conversions/register: ${REQUESTS} sequential requests per lead after ${WARMUP} warm-up,`,
        `${TIERS.length} tiers (each conversion writes 1 conversion, ${TIERS.length} bonuses, ${TIERS.length + 1} events)` +
          (QUALIFY ? ', every upline tier qualified on personal sales, compression on' : ''),
        `machine: ${machineLine()}`,
        '',
        `${'lead referrer'.padEnd(22)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'mean ms'.padStart(8)} ${'min ms'.padStart(8)} ${'max ms'.padStart(8)}`,
        ...[shallow, deep].map(
          (r) =>
            `${r.name.padEnd(22)} ${ms(r.p50)} ${ms(r.p95)} ${ms(r.p99)} ${ms(r.mean)} ${ms(r.min)} ${ms(r.max)}`,
        ),
        '',
        ...[
          ['median', deep.p50 / shallow.p50],
          ['mean', deep.mean / shallow.mean],
        ].map(
          ([label, ratio]) =>
            `deep ÷ shallow (${label}): ${(ratio as number).toFixed(3)}  target ≤ ${TARGET_RATIO}  ${verdict((ratio as number) <= TARGET_RATIO)}`,
        ),
        '',
      ].join('\n'),
    );
  },
);
