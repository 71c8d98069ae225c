import { createLink, federation } from '../../factories/fraud.factory';
import { createLead, eventsOf } from '../../factories/money.factory';
import { createTenant, type TestTenant } from '../../factories/tenants.factory';
import { createChain, upsertUser, type UpsertedMember } from '../../factories/users.factory';
import { adminApi } from '../../utils/api-client';
import { createTestApp, type TestApp } from '../../utils/create-test-app';

/**
 * docs/money.md §2, "Phases": a program that pays by phases of months or of the lead's
 * conversions, a conversion past a limited last phase registered with no bonuses and a
 * `reward_note`, and a customer's renewals by promo code kept on one lead so they advance the
 * phases.
 */
jest.setTimeout(60_000);

const referrer = (percent_bp: number) => [{ tier: 'referrer', percent_bp }];

describe('program phases', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let partner: UpsertedMember;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    tenant = await createTenant(t);
    partner = await upsertUser(t, tenant.key, { email: 'partner@phases.example' });
  });

  const setProgram = (program: unknown) =>
    adminApi(t, t.adminToken).updateTenant(tenant.slug, { program } as never);
  const register = (body: Record<string, unknown>) =>
    federation(t, tenant, '/federation/v1/conversions/register', { currency: 'RUB', ...body });
  const amounts = (res: { body: { cascaded_bonuses: { amount_kopecks: number }[] } }) =>
    res.body.cascaded_bonuses.map((b) => b.amount_kopecks);

  it('pays 30 % for two conversions, 10 % for the third, then nothing (registered, with a reward_note)', async () => {
    const phases = [
      { conversions: 2, tiers: referrer(3000) },
      { conversions: 1, tiers: referrer(1000) },
    ];
    const saved = await setProgram({ phases });
    expect(saved.status).toBe(200);
    expect(saved.body.program).toEqual({ lead_bonus_kopecks: 0, phases, grace_period_hours: 336 });
    const leadId = await createLead(t, tenant.key, partner.serviceUserId);
    const paid: number[][] = [];
    for (const order of ['o-1', 'o-2', 'o-3']) {
      const res = await register({
        lead_id: leadId,
        amount_kopecks: 100_000,
        external_order_id: order,
      });
      expect(res.status).toBe(200);
      expect(res.body.reward_note).toBeUndefined();
      paid.push(amounts(res));
    }
    expect(paid).toEqual([[30_000], [30_000], [10_000]]);

    const preview = await federation(t, tenant, '/federation/v1/conversions/preview', {
      lead_id: leadId,
      amount_kopecks: 100_000,
      currency: 'RUB',
    });
    expect(preview.body.cascaded_bonuses).toEqual([]);
    expect(preview.body.reward_note).toMatch(/last phase/);

    const past = await register({
      lead_id: leadId,
      amount_kopecks: 100_000,
      external_order_id: 'o-4',
    });
    expect(past.status).toBe(200);
    expect(past.body.cascaded_bonuses).toEqual([]);
    expect(past.body.reward_note).toMatch(/phase 2, 1 conversion/);
    // The same order again answers the same, note included.
    const again = await register({
      lead_id: leadId,
      amount_kopecks: 100_000,
      external_order_id: 'o-4',
    });
    expect(again.body).toEqual(past.body);
    const cascaded = (await eventsOf(t, tenant.orgId, 'conversion.cascaded')).map(
      (e) => e.payload.cascaded_bonuses,
    );
    expect(cascaded).toHaveLength(4);
    expect(cascaded[3]).toEqual([]);
    const [{ bonuses }] = await t.db.query(
      `SELECT count(*)::int AS bonuses FROM bonuses WHERE tenant_id = $1 AND source_type = 'conversion'`,
      [tenant.orgId],
    );
    expect(bonuses).toBe(3);
  });

  it('counts reversed conversions: a reversal does not give the lead its phase back', async () => {
    await setProgram({
      phases: [{ conversions: 1, tiers: referrer(5000) }, { tiers: referrer(500) }],
    });
    const leadId = await createLead(t, tenant.key, partner.serviceUserId);
    const first = await register({
      lead_id: leadId,
      amount_kopecks: 10_000,
      external_order_id: 'r-1',
    });
    expect(amounts(first)).toEqual([5000]);
    const reversed = await federation(
      t,
      tenant,
      `/federation/v1/conversions/${first.body.conversion_id}/reverse`,
      { reason: 'refund' },
    );
    expect(reversed.status).toBe(200);
    const second = await register({
      lead_id: leadId,
      amount_kopecks: 10_000,
      external_order_id: 'r-2',
    });
    expect(amounts(second)).toEqual([500]);
  });

  it('pays 25 % for twelve calendar months from the first conversion, then 10 % for ever', async () => {
    await setProgram({
      phases: [{ months: 12, tiers: referrer(2500) }, { tiers: referrer(1000) }],
    });
    const leadId = await createLead(t, tenant.key, partner.serviceUserId);
    const first = await register({
      lead_id: leadId,
      amount_kopecks: 10_000,
      external_order_id: 'm-1',
    });
    expect(amounts(first)).toEqual([2500]);
    const inside = await register({
      lead_id: leadId,
      amount_kopecks: 10_000,
      external_order_id: 'm-2',
    });
    expect(amounts(inside)).toEqual([2500]);
    // The first conversion a year and a day ago: the lead is past its first phase.
    await t.db.query(
      `UPDATE conversions SET created_at = now() - interval '1 year 1 day'
        WHERE tenant_id = $1 AND id = $2`,
      [tenant.orgId, first.body.conversion_id],
    );
    const later = await register({
      lead_id: leadId,
      amount_kopecks: 10_000,
      external_order_id: 'm-3',
    });
    expect(amounts(later)).toEqual([1000]);
  });

  it("a customer's renewals by promo code are one lead's conversions, even when the first two orders arrive at once", async () => {
    await setProgram({
      phases: [{ conversions: 2, tiers: referrer(2000) }, { tiers: referrer(500) }],
    });
    await createLink(t, tenant, partner, { promo_code: 'RENEW' });
    const order = (id: string, customer: Record<string, string>) =>
      register({ promo_code: 'renew', customer, amount_kopecks: 10_000, external_order_id: id });
    const firstTwo = await Promise.all([
      order('sub-1', { external_id: 'cust-1', name: 'Customer' }),
      order('sub-2', { external_id: 'cust-1', name: 'Customer' }),
    ]);
    expect(firstTwo.map((r) => r.status)).toEqual([200, 200]);
    expect(firstTwo[0].body.lead_id).toBe(firstTwo[1].body.lead_id);
    expect(firstTwo.flatMap(amounts)).toEqual([2000, 2000]);
    const renewal = await order('sub-3', { external_id: 'cust-1', name: 'Customer' });
    expect(renewal.body.lead_id).toBe(firstTwo[0].body.lead_id);
    expect(amounts(renewal)).toEqual([500]);
    // Another customer is another lead, in phase 1; a customer known by email alone is matched by it.
    const other = await order('other-1', { email: 'Buyer@Shop.example' });
    expect(other.body.lead_id).not.toBe(firstTwo[0].body.lead_id);
    expect(amounts(other)).toEqual([2000]);
    const sameMailbox = await order('other-2', { email: 'buyer@shop.example' });
    expect(sameMailbox.body.lead_id).toBe(other.body.lead_id);
  });

  it('a group program of phases reaches as far up the chain as its deepest phase', async () => {
    const owner = adminApi(t, t.adminToken).raw;
    const group = await owner('post', `/admin/v1/tenants/${tenant.slug}/groups`, {
      slug: 'deep',
      name: 'Deep',
      program: {
        phases: [
          { conversions: 1, tiers: referrer(1000) },
          {
            tiers: [
              { tier: 'referrer', percent_bp: 1000 },
              { tier: 'upline_1', percent_bp: 500 },
              { tier: 'upline_2', percent_bp: 300 },
              { tier: 'upline_3', percent_bp: 100 },
            ],
          },
        ],
      },
    });
    expect(group.status).toBe(201);
    const chain = await createChain(t, tenant.key, 4);
    const seller = chain[3];
    await owner('post', `/admin/v1/tenants/${tenant.slug}/users/${seller.serviceUserId}/group`, {
      group_id: group.body.group_id,
    });
    const leadId = await createLead(t, tenant.key, seller.serviceUserId);
    const first = await register({
      lead_id: leadId,
      amount_kopecks: 10_000,
      external_order_id: 'g-1',
    });
    expect(amounts(first)).toEqual([1000]);
    const second = await register({
      lead_id: leadId,
      amount_kopecks: 10_000,
      external_order_id: 'g-2',
    });
    expect(second.body.cascaded_bonuses.map((b: { tier: string }) => b.tier)).toEqual([
      'referrer',
      'upline_1',
      'upline_2',
      'upline_3',
    ]);
  });

  it('refuses tiers and phases together, and a phase without a limit before the last (400)', async () => {
    const both = await setProgram({ tiers: referrer(1000), phases: [{ tiers: referrer(1000) }] });
    expect(both.status).toBe(400);
    expect(both.body.code).toBe('validation_failed');
    expect(JSON.stringify(both.body.errors)).toContain('phases');
    const open = await setProgram({
      phases: [{ tiers: referrer(1000) }, { tiers: referrer(500) }],
    });
    expect(open.status).toBe(400);
    expect(JSON.stringify(open.body.errors)).toContain('phases.0');
    const over = await setProgram({
      phases: [{ months: 1, tiers: referrer(10_001) }, { tiers: referrer(500) }],
    });
    expect(over.status).toBe(400);
  });
});
