import { EmbedTokenService } from '../../../src/access/embed-token.service';
import { ClickCounter } from '../../../src/deeplinks/click-counter';
import { createLead, registerConversion } from '../../factories/money.factory';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { createChain, type UpsertedMember } from '../../factories/users.factory';
import { createTestApp, type TestApp } from '../../utils/create-test-app';

/**
 * docs/console.md's stats (`GET /admin/v1/tenants/:slug/stats`), read from the rollups the triggers of
 * ConsoleRollups keep: after real operations through the API (leads, conversions and their
 * cascades, approvals, rejections, a reversal, clicks) and backdating, every number equals the
 * same number computed by a direct aggregate over the raw tables, and the trigger-kept rollups
 * equal a rebuild from scratch.
 */

const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

describe('console stats', () => {
  let t: TestApp;
  let org: TestTenant;
  let chain: UpsertedMember[];
  let viewer: string;

  const stats = (query: string, token = viewer, slug = org.slug) =>
    t.http().get(`/admin/v1/tenants/${slug}/stats${query}`).set('Authorization', `Bearer ${token}`);
  const admin = (path: string, body: Record<string, unknown> = {}) =>
    t
      .http()
      .post(`/admin/v1/tenants/${org.slug}${path}`)
      .set('Authorization', `Bearer ${t.adminToken}`)
      .send(body);

  /** The same numbers, straight from the raw tables. */
  async function rawStats(from: string, to: string) {
    const q = async (sql: string) =>
      (await t.db.query(sql, [org.orgId, from, to]))[0] as Record<string, number>;
    const inPeriod = `tenant_id = $1 AND (created_at AT TIME ZONE 'UTC')::date BETWEEN $2 AND $3`;
    const bonuses = await q(`SELECT
        coalesce(sum(amount_kopecks) FILTER (WHERE status = 'pending'), 0)::float8 AS pending,
        coalesce(sum(amount_kopecks) FILTER (WHERE status = 'approved'), 0)::float8 AS approved,
        coalesce(sum(amount_kopecks) FILTER (WHERE status = 'paid'), 0)::float8 AS paid
      FROM bonuses WHERE ${inPeriod} AND currency = 'RUB'`);
    const leads = await q(`SELECT count(*)::int AS leads,
        count(*) FILTER (WHERE status = 'converted')::int AS converted FROM leads WHERE ${inPeriod}`);
    const conv = await q(`SELECT count(*)::int AS conversions,
        coalesce(sum(amount_kopecks) FILTER (WHERE status <> 'reversed' AND currency = 'RUB'), 0)::float8
          AS revenue
      FROM conversions WHERE ${inPeriod}`);
    const members = await q(`SELECT count(*)::int AS n FROM members WHERE ${inPeriod}`);
    const top = await t.db.query(
      `SELECT member_id AS user_id, sum(amount_kopecks)::float8 AS commission_kopecks
         FROM bonuses WHERE ${inPeriod} AND status NOT IN ('rejected', 'reversed') AND currency = 'RUB'
        GROUP BY member_id HAVING sum(amount_kopecks) > 0 ORDER BY 2 DESC, 1 LIMIT 10`,
      [org.orgId, from, to],
    );
    return {
      totals: {
        new_partners: members.n,
        leads: leads.leads,
        conversions: conv.conversions,
        revenue_kopecks: conv.revenue,
        commission_pending_kopecks: bonuses.pending,
        commission_approved_kopecks: bonuses.approved,
        commission_paid_kopecks: bonuses.paid,
      },
      converted: leads.converted,
      top,
    };
  }

  /** The rollups summed over shards, as kept and as rebuilt. */
  async function rollups() {
    return t.db.query(
      `SELECT day::text, currency, sum(clicks)::int c, sum(new_partners)::int p, sum(leads)::int l,
              sum(converted_leads)::int cl, sum(conversions)::int n, sum(revenue_kopecks)::text r,
              sum(commission_pending_kopecks)::text cp, sum(commission_approved_kopecks)::text ca,
              sum(commission_other_kopecks)::text co
         FROM stats_daily WHERE tenant_id = $1 GROUP BY 1, 2
       HAVING sum(clicks) <> 0 OR sum(new_partners) <> 0 OR sum(leads) <> 0 OR sum(conversions) <> 0
           OR sum(commission_pending_kopecks) <> 0 OR sum(commission_approved_kopecks) <> 0
           OR sum(revenue_kopecks) <> 0 OR sum(converted_leads) <> 0 ORDER BY 1, 2`,
      [org.orgId],
    );
  }
  const partnerRollups = () =>
    t.db.query(
      `SELECT member_id, currency, day::text, commission_kopecks::text FROM stats_partner_daily
        WHERE tenant_id = $1 AND commission_kopecks <> 0 ORDER BY 1, 2, 3`,
      [org.orgId],
    );

  beforeAll(async () => {
    t = await createTestApp();
    org = await createTenant(t);
    viewer = await createStaffToken(t, org.slug, 'viewer');
    chain = await createChain(t, org.key, 4);
    const [, , , leaf] = chain;
    // Leads and conversions: a cascade of referrer + upline_1 bonuses each.
    const leads: string[] = [];
    for (let i = 0; i < 5; i++) leads.push(await createLead(t, org.key, leaf.serviceUserId));
    const conversions = [];
    for (let i = 0; i < 4; i++) {
      conversions.push(
        await registerConversion(t, org.key, {
          lead_id: leads[i],
          amount_kopecks: 100_000 * (i + 1),
          external_order_id: `order-${i}`,
        }),
      );
    }
    // A USD conversion: counted, but not in the RUB money.
    const usdLead = await createLead(t, org.key, chain[1].serviceUserId);
    await registerConversion(t, org.key, {
      lead_id: usdLead,
      amount_kopecks: 777_000,
      external_order_id: 'order-usd',
      currency: 'USD',
    });
    const [first, second] = conversions;
    expect((await admin(`/bonuses/${first.cascaded_bonuses[0].bonus_id}/approve`)).status).toBe(
      200,
    );
    const reject = await admin(`/bonuses/${second.cascaded_bonuses[1].bonus_id}/reject`, {
      reason: 'duplicate',
    });
    expect(reject.status).toBe(200);
    const rev = await admin(`/conversions/${conversions[2].conversion_id}/reverse`, {
      reason: 'refund',
    });
    expect(rev.status).toBe(200);
    const manual = await admin('/bonuses', {
      user_id: chain[0].serviceUserId,
      amount_kopecks: 123_45,
      currency: 'RUB',
      reason: 'campaign',
    });
    expect(manual.status).toBe(201);
    // Clicks: a short link of the leaf, clicked three times, then written by the counter.
    const token = t.app.get(EmbedTokenService).issue(org.orgId, leaf.memberId).token;
    const link = await t
      .http()
      .post(`/embed/v1/data/referral-link?tenant=${org.slug}`)
      .set('Origin', `https://${org.slug}.example`)
      .set('Authorization', `Bearer ${token}`)
      .send({ target_type: 'website', target_id: `https://${org.slug}.example/shop` });
    expect(link.status).toBe(200);
    for (let i = 0; i < 3; i++)
      expect((await t.http().get(`/s/${link.body.code}`)).status).toBe(302);
    await t.app.get(ClickCounter).flush();
    // Backdating moves rows to other days: the update triggers carry their amounts along.
    await t.db.query(
      `UPDATE bonuses SET created_at = created_at - interval '3 days'
        WHERE tenant_id = $1 AND source_id = $2`,
      [org.orgId, conversions[3].conversion_id],
    );
    await t.db.query(
      `UPDATE leads SET created_at = created_at - interval '40 days' WHERE tenant_id = $1 AND id = $2`,
      [org.orgId, leads[4]],
    );
  });
  afterAll(() => t.close());

  it('equals a direct aggregate over the raw tables, for every period', async () => {
    for (const [from, to] of [
      [daysAgo(29), today()],
      [daysAgo(3), daysAgo(3)],
      [daysAgo(60), daysAgo(1)],
      [daysAgo(2), today()],
    ]) {
      const res = await stats(`?from=${from}&to=${to}`);
      expect(res.status).toBe(200);
      const raw = await rawStats(from, to);
      expect(res.body).toMatchObject({ from, to, currency: 'RUB' });
      expect(res.body.totals).toMatchObject(raw.totals);
      expect(res.body.funnel).toEqual({
        clicks: res.body.totals.clicks,
        leads: raw.totals.leads,
        converted_leads: raw.converted,
      });
      expect(res.body.top_partners.map((p: { user_id: string }) => p.user_id)).toEqual(
        raw.top.map((p: { user_id: string }) => p.user_id),
      );
      expect(
        res.body.top_partners.map((p: { commission_kopecks: number }) => p.commission_kopecks),
      ).toEqual(raw.top.map((p: { commission_kopecks: number }) => p.commission_kopecks));
      // One item per day, zeros included, summing to the totals.
      const days = res.body.series as { date: string; leads: number; revenue_kopecks: number }[];
      expect(days[0].date).toBe(from);
      expect(days[days.length - 1].date).toBe(to);
      expect(new Set(days.map((d) => d.date)).size).toBe(days.length);
      expect(days.reduce((s, d) => s + d.leads, 0)).toBe(raw.totals.leads);
      expect(days.reduce((s, d) => s + d.revenue_kopecks, 0)).toBe(raw.totals.revenue_kopecks);
    }
  });

  it('counts clicks, new partners and every conversion today', async () => {
    const res = await stats(`?from=${today()}&to=${today()}`);
    expect(res.body.totals.clicks).toBe(3);
    expect(res.body.totals.new_partners).toBe(4);
    expect(res.body.totals.conversions).toBe(5); // the USD one too
    expect(res.body.top_partners[0]).toMatchObject({ display_name: expect.any(String) });
  });

  it('keeps the same rollups as a rebuild from the raw tables', async () => {
    const kept = await rollups();
    const keptPartners = await partnerRollups();
    await t.db.query('SELECT stats_rebuild($1)', [org.orgId]);
    expect(await rollups()).toEqual(kept);
    expect(await partnerRollups()).toEqual(keptPartners);
  });

  it('defaults to the last 30 days and refuses bad periods with 400', async () => {
    const res = await stats('');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ from: daysAgo(29), to: today() });
    expect(res.body.series).toHaveLength(30);
    for (const bad of [
      '?from=2026-02-30',
      '?from=yesterday',
      '?from=2026-11-10&to=2026-11-01',
      '?from=2020-01-01&to=2026-01-01',
      '?from=2026-01-01&from=2026-01-02',
    ]) {
      const r = await stats(bad);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('validation_failed');
    }
  });

  it('refuses days outside 2000-01-01..2100-12-31 and spans over 731 days with 400, at once', async () => {
    // 9999-12-31 used to loop for ever (the next day, +010000-01-01, sorts before it) and
    // 0000-01-01 answered 500; each is now a quick 400.
    for (const [query, field] of [
      ['?to=9999-12-31', 'to'],
      ['?from=9999-12-01&to=9999-12-31', 'from'],
      ['?from=9999-12-31', 'from'],
      ['?from=0000-01-01', 'from'],
      ['?to=0000-01-01', 'to'],
      ['?from=0000-01-01&to=0000-01-31', 'from'],
      ['?from=1999-12-31&to=2000-01-05', 'from'],
      ['?from=2100-12-01&to=2101-01-01', 'to'],
      ['?from=2024-01-01&to=2026-01-02', 'from'],
    ] as const) {
      const started = Date.now();
      const r = await stats(query).timeout(5_000);
      expect({ query, status: r.status, code: r.body.code }).toEqual({
        query,
        status: 400,
        code: 'validation_failed',
      });
      expect(r.body.errors.map((e: { field: string }) => e.field)).toContain(field);
      expect(Date.now() - started).toBeLessThan(2_000);
    }
    // The edges themselves answer, a default day kept inside the range.
    const edges = await stats('?from=2099-01-01&to=2100-12-31');
    expect(edges.status).toBe(200);
    expect(edges.body.series).toHaveLength(730);
    expect(edges.body.series.at(-1).date).toBe('2100-12-31');
    const first = await stats('?to=2000-01-10');
    expect(first.body).toMatchObject({ from: '2000-01-01', to: '2000-01-10' });
    const last = await stats('?from=2100-12-20');
    expect(last.body).toMatchObject({ from: '2100-12-20', to: '2100-12-31' });
    expect(last.body.series).toHaveLength(12);
    const longest = await stats('?from=2024-01-01&to=2025-12-31');
    expect(longest.status).toBe(200);
    expect(longest.body.series).toHaveLength(731);
  });

  it("is refused to another tenant's staff and without a token", async () => {
    const other = await createTenant(t);
    const stranger = await createStaffToken(t, other.slug, 'owner');
    const res = await stats('', stranger);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('forbidden');
    expect((await t.http().get(`/admin/v1/tenants/${org.slug}/stats`)).status).toBe(401);
  });
});
