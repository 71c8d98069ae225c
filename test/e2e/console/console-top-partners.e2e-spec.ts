import fc from 'fast-check';
import { createTenant, type TestTenant } from '../../factories/tenants.factory';
import { createChain, type UpsertedMember } from '../../factories/users.factory';
import { createTestApp, type TestApp } from '../../utils/create-test-app';

/**
 * The top partners of the stats (docs/console.md) are settled from each day's largest commissions and a
 * bound on everyone else, or from the members whose all-time totals reach the best sums found
 * (StatsReader.topPartners), without summing every partner. Property:
 * for random histories of bonuses (amounts skewed or flat, negative adjustments, every status,
 * many partners a day, so that the bound is what settles the top; two currencies) and random periods, the API's top 10 equals a brute-force
 * ranking over the raw bonuses, and the rollups the triggers kept equal a rebuild.
 */

const bonus = fc.record({
  member: fc.nat({ max: 79 }),
  amount: fc.oneof(fc.integer({ min: 1, max: 2_000 }), fc.integer({ min: -500, max: 50_000 })),
  status: fc.constantFrom('pending', 'approved', 'rejected', 'reversed', 'paid', 'review'),
  daysAgo: fc.nat({ max: 6 }),
  usd: fc.boolean(),
});

describe('console stats: top partners (property)', () => {
  let t: TestApp;
  let org: TestTenant;
  let members: UpsertedMember[];
  let n = 0;

  beforeAll(async () => {
    t = await createTestApp();
    org = await createTenant(t);
    members = await createChain(t, org.key, 80);
  }, 120_000);
  afterAll(() => t.close());

  type Row = { member: number; amount: number; status: string; daysAgo: number; usd: boolean };
  const day = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString().slice(0, 10);

  /** Rejects every bonus so far (they drop out of every top), then inserts `rows`. */
  async function replaceBonuses(rows: Row[]) {
    await t.db.query(
      `UPDATE bonuses SET status = 'rejected' WHERE tenant_id = $1 AND status <> 'rejected'`,
      [org.orgId],
    );
    await t.db.query(
      `INSERT INTO bonuses (tenant_id, id, member_id, service_user_id, amount_kopecks,
                            currency, source_type, source_id, status, due_at, created_at)
       SELECT $1, 'bns_P' || $2 || '_' || i, m.id, m.service_user_id, r.amount,
              CASE WHEN r.usd THEN 'USD' ELSE 'RUB' END, 'manual', 'stf_x', r.status, now(),
              now() - make_interval(days => r.days)
         FROM unnest($3::int[], $4::bigint[], $5::text[], $6::int[], $7::bool[])
                WITH ORDINALITY AS r (member, amount, status, days, usd, i)
         JOIN members m ON m.tenant_id = $1 AND m.id = ($8::text[])[r.member + 1]`,
      [
        org.orgId,
        n++,
        rows.map((r) => r.member),
        rows.map((r) => r.amount),
        rows.map((r) => r.status),
        rows.map((r) => r.daysAgo),
        rows.map((r) => r.usd),
        members.map((m) => m.memberId),
      ],
    );
  }

  /** The API's top partners of the period and the brute-force ranking over the raw bonuses. */
  async function tops(from: string, to: string) {
    const res = await t
      .http()
      .get(`/admin/v1/tenants/${org.slug}/stats?from=${from}&to=${to}`)
      .set('Authorization', `Bearer ${t.adminToken}`);
    expect(res.status).toBe(200);
    const raw: { user_id: string; commission_kopecks: number }[] = await t.db.query(
      `SELECT member_id AS user_id, sum(amount_kopecks)::float8 AS commission_kopecks
         FROM bonuses
        WHERE tenant_id = $1 AND currency = 'RUB' AND status NOT IN ('rejected', 'reversed')
          AND (created_at AT TIME ZONE 'UTC')::date BETWEEN $2 AND $3
        GROUP BY member_id HAVING sum(amount_kopecks) > 0 ORDER BY 2 DESC, 1 LIMIT 10`,
      [org.orgId, from, to],
    );
    const api = res.body.top_partners.map((p: { user_id: string; commission_kopecks: number }) => ({
      user_id: p.user_id,
      commission_kopecks: p.commission_kopecks,
    }));
    return { api, raw };
  }

  it("finds a steady partner who is never in any day's top 10", async () => {
    // Each of 7 days: 10 partners of their own earn 100 once; partner 79 earns 99 every day.
    const rows: Row[] = [];
    for (let d = 0; d < 7; d++) {
      for (let k = 0; k < 10; k++) {
        rows.push({ member: d * 10 + k, amount: 100, status: 'approved', daysAgo: d, usd: false });
      }
      rows.push({ member: 79, amount: 99, status: 'pending', daysAgo: d, usd: false });
    }
    await replaceBonuses(rows);
    const { api, raw } = await tops(day(6), day(0));
    expect(raw[0]).toEqual({ user_id: members[79].memberId, commission_kopecks: 693 });
    expect(api).toEqual(raw);
  });

  it('finds, where the day bound settles nothing, a steady partner through the all-time totals', async () => {
    // Each of 7 days, 45 partners (overlapping from day to day) earn 100: each day's 40th value
    // keeps the bound at 700, above any of them (about 400). Partner 79 earns 99 every day, 46th
    // each day, so in no day's 40 largest: only the all-time totals (stats_partner_totals) find it.
    const rows: Row[] = [];
    for (let d = 0; d < 7; d++) {
      for (let k = 0; k < 45; k++) {
        rows.push({
          member: (d * 45 + k) % 79,
          amount: 100,
          status: 'approved',
          daysAgo: d,
          usd: false,
        });
      }
      rows.push({ member: 79, amount: 99, status: 'approved', daysAgo: d, usd: false });
    }
    await replaceBonuses(rows);
    const { api, raw } = await tops(day(6), day(0));
    expect(raw[0]).toEqual({ user_id: members[79].memberId, commission_kopecks: 693 });
    expect(api).toEqual(raw);
  });

  it('equals a brute-force ranking over the raw bonuses', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(bonus, { minLength: 1, maxLength: 400 }),
        fc.nat({ max: 7 }),
        fc.nat({ max: 7 }),
        async (rows, a, b) => {
          await replaceBonuses(rows);
          const { api, raw } = await tops(day(Math.max(a, b)), day(Math.min(a, b)));
          expect(api).toEqual(raw);
        },
      ),
      { numRuns: 25 },
    );
    // The last random history may hold no positive commission at all (one rejected bonus, say),
    // which would leave nothing to compare: end on one that does, over every status and both
    // currencies, on top of all the runs' inserts and rejections.
    await replaceBonuses(
      ['pending', 'approved', 'rejected', 'reversed', 'paid', 'review'].flatMap((status, i) => [
        { member: i, amount: 1_000 + i, status, daysAgo: i, usd: false },
        { member: i + 10, amount: -300, status, daysAgo: i, usd: true },
        { member: i + 10, amount: 700, status, daysAgo: 0, usd: true },
      ]),
    );
    // Whatever the inserts and updates did, the kept rollups are what a rebuild gives.
    const rollups = () =>
      Promise.all([
        t.db.query(
          `SELECT member_id, currency, day::text, commission_kopecks::text FROM stats_partner_daily
            WHERE tenant_id = $1 AND commission_kopecks <> 0 ORDER BY 1, 2, 3`,
          [org.orgId],
        ),
        t.db.query(
          `SELECT member_id, currency, positive_kopecks::text FROM stats_partner_totals
            WHERE tenant_id = $1 AND positive_kopecks <> 0 ORDER BY 1, 2`,
          [org.orgId],
        ),
      ]);
    const kept = await rollups();
    await t.db.query('SELECT stats_rebuild($1)', [org.orgId]);
    expect(kept[1].length).toBeGreaterThan(0);
    expect(kept).toEqual(await rollups());
  }, 300_000);
});
