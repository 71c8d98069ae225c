import { createLead, registerConversion } from '../../factories/money.factory';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { createChain, type UpsertedMember } from '../../factories/users.factory';
import { adminApi, embedApi } from '../../utils/api-client';
import { createTestApp, type TestApp } from '../../utils/create-test-app';

/**
 * docs/money.md §2, "Versions" (SPEC 15): every change of a program is an immutable version, listed
 * newest first; each conversion bonus records the version, phase, tier and compression that paid
 * it, and says so in a sentence of the tenant's locale, on every surface that shows the bonus.
 */
jest.setTimeout(60_000);

const referrerOnly = (percent_bp: number) => ({ tiers: [{ tier: 'referrer', percent_bp }] });

describe('program versions and the rule of each bonus', () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    tenant = await createTenant(t, { locale: 'en-US', currency: 'USD' });
  });

  const admin = () => adminApi(t, t.adminToken);
  const versions = (token = t.adminToken, q = '') =>
    adminApi(t, token).raw('get', `/admin/v1/tenants/${tenant.slug}/program/versions${q}`);
  let orders = 0;
  const sale = async (seller: UpsertedMember, amount: number) => {
    const leadId = await createLead(t, tenant.key, seller.serviceUserId, {
      contact: { name: 'Customer', email: `v${++orders}@example.org` },
    });
    const res = await registerConversion(t, tenant.key, {
      lead_id: leadId,
      amount_kopecks: amount,
      external_order_id: `v-${orders}`,
      currency: 'USD',
    });
    return { ...res, leadId };
  };

  it('keeps every change of the default, a group and an offer, newest first, with who made it', async () => {
    const first = await versions();
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(1);
    expect(first.body.items[0]).toMatchObject({
      program_version_id: expect.stringMatching(/^prv_[0-9A-HJKMNP-TV-Z]{26}$/),
      target: 'default',
      actor: { type: 'platform' },
    });
    expect(first.body.items[0].program.tiers).toEqual(tenant.body.program.tiers);

    expect((await admin().updateTenant(tenant.slug, { program: referrerOnly(2000) })).status).toBe(
      200,
    );
    const offer = await admin().createOffer(tenant.slug, {
      name: 'Pro',
      program: referrerOnly(3000),
    });
    const group = await admin().raw('post', `/admin/v1/tenants/${tenant.slug}/groups`, {
      slug: 'vip',
      name: 'VIP',
      program: referrerOnly(4000),
    });
    expect(group.status).toBe(201);
    // Back to the default: a version too, with no program of its own.
    const cleared = await admin().raw(
      'patch',
      `/admin/v1/tenants/${tenant.slug}/groups/${group.body.group_id}`,
      { program: null },
    );
    expect(cleared.status).toBe(200);

    const all = await versions(t.adminToken, '?page_size=3');
    expect(all.status).toBe(200);
    expect(all.body.pagination).toMatchObject({ total: 5, total_pages: 2 });
    expect(all.body.items.map((v: { target: unknown }) => v.target)).toEqual([
      { group_id: group.body.group_id },
      { group_id: group.body.group_id },
      { offer_id: offer.body.offer_id },
    ]);
    expect(all.body.items[0].program).toBeNull();
    expect(all.body.items[1].program.tiers).toEqual(referrerOnly(4000).tiers);
    const effective = all.body.items.map((v: { effective_at: string }) => v.effective_at);
    expect([...effective].sort().reverse()).toEqual(effective);

    // Viewers read it; another tenant's staff and bad pages are refused.
    const viewer = await createStaffToken(t, tenant.slug, 'viewer');
    expect((await versions(viewer)).status).toBe(200);
    const other = await createTenant(t);
    const stranger = await createStaffToken(t, other.slug, 'owner');
    expect([403, 404]).toContain((await versions(stranger)).status);
    expect((await versions(t.adminToken, '?page=0')).status).toBe(400);
  });

  it('records on each bonus the version, phase, tier and compression that paid it, on every surface', async () => {
    const [u3, u2, u1, r] = await createChain(t, tenant.key, 4);
    await admin().updateTenant(tenant.slug, {
      program: {
        phases: [
          {
            months: 12,
            tiers: [
              { tier: 'referrer', percent_bp: 1000 },
              {
                tier: 'upline_1',
                percent_bp: 500,
                qualify: { min_personal_sales_kopecks: 50_000, window_days: 30 },
              },
              { tier: 'upline_2', fixed_kopecks: 300 },
            ],
          },
          referrerOnly(500),
        ],
        compression: true,
      },
    });
    const version = (await versions()).body.items[0].program_version_id;
    await sale(u2, 60_000);
    const res = await sale(r, 100_000);
    expect(res.cascaded_bonuses.map((b) => [b.user_id, b.tier, b.amount_kopecks])).toEqual([
      [r.serviceUserId, 'referrer', 10_000],
      [u2.serviceUserId, 'upline_1', 5_000],
      [u3.serviceUserId, 'upline_2', 300],
    ]);
    expect(u1).toBeDefined();
    expect(res.cascaded_bonuses.map((b) => b.rule)).toEqual([
      { program_version_id: version, phase: 1, tier: 'referrer', compressed_from: null },
      { program_version_id: version, phase: 1, tier: 'upline_1', compressed_from: 'upline_1' },
      { program_version_id: version, phase: 1, tier: 'upline_2', compressed_from: null },
    ]);
    expect(res.cascaded_bonuses.map((b) => b.explanation)).toEqual([
      '10\u00a0% of $1,000.00, month 1 of phase 1 (12 months)',
      '5\u00a0% of $1,000.00, month 1 of phase 1 (12 months), passed up from upline_1',
      'a fixed $3.00, month 1 of phase 1 (12 months)',
    ]);

    // The Admin API's bonus objects and the widgets' transactions say the same.
    const listed = await admin().listBonuses(tenant.slug, { user_id: u2.serviceUserId });
    const mine = listed.body.items.find((b) => b.source_id === res.conversion_id)!;
    expect(mine.rule).toEqual(res.cascaded_bonuses[1].rule);
    expect(mine.explanation).toBe(res.cascaded_bonuses[1].explanation);
    const own = listed.body.items.find((b) => b.source_id !== res.conversion_id)!;
    expect(own.rule).toMatchObject({ tier: 'referrer', compressed_from: null });
    const embed = await embedApi(t, `https://${tenant.slug}.example`, tenant.slug).bonuses(
      u2.memberId,
    );
    expect(embed.body).toMatchObject({ transactions: expect.any(Array) });
    const item = embed.body.transactions.find((b) => b.source_id === res.conversion_id)!;
    expect(item.rule).toEqual(mine.rule);
    expect(item.explanation).toBe(mine.explanation);

    // The same order again answers the rule stored with it, after the program changed too.
    await admin().updateTenant(tenant.slug, { locale: 'ru-RU', program: referrerOnly(700) });
    const replayed = await registerConversion(t, tenant.key, {
      lead_id: res.leadId,
      amount_kopecks: 100_000,
      external_order_id: `v-${orders}`,
      currency: 'USD',
    });
    expect(replayed.cascaded_bonuses).toEqual(res.cascaded_bonuses);
    expect(replayed.conversion_id).toBe(res.conversion_id);
    const next = await sale(r, 100_000);
    const newer = (await versions()).body.items[0].program_version_id;
    expect(newer).not.toBe(version);
    expect(next.cascaded_bonuses).toEqual([
      expect.objectContaining({
        rule: { program_version_id: newer, phase: 1, tier: 'referrer', compressed_from: null },
        explanation: '7\u00a0% от 1\u00a0000,00\u00a0$',
      }),
    ]);
    const old = await admin().listBonuses(tenant.slug, { user_id: r.serviceUserId });
    expect(
      old.body.items.find((b) => b.source_id === res.conversion_id)!.rule!.program_version_id,
    ).toBe(version);
  });

  it('leaves rule and explanation null on lead and manual bonuses', async () => {
    await admin().updateTenant(tenant.slug, {
      program: { ...referrerOnly(1000), lead_bonus_kopecks: 500 },
    });
    const [r] = await createChain(t, tenant.key, 1);
    await createLead(t, tenant.key, r.serviceUserId, {
      contact: { name: 'L', email: 'l@example.org' },
    });
    const manual = await admin().raw('post', `/admin/v1/tenants/${tenant.slug}/bonuses`, {
      user_id: r.serviceUserId,
      amount_kopecks: 100,
      currency: 'USD',
      reason: 'thanks',
    });
    expect(manual.status).toBe(201);
    expect(manual.body).toMatchObject({ rule: null, explanation: null });
    const listed = await admin().listBonuses(tenant.slug, { user_id: r.serviceUserId });
    expect(listed.body.items.map((b) => [b.source_type, b.rule, b.explanation]).sort()).toEqual([
      ['lead', null, null],
      ['manual', null, null],
    ]);
  });
});
