import { createLead, registerConversion } from '../../factories/money.factory';
import { admin, approveBonus, runPayouts } from '../../factories/payouts.factory';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser, UpsertedMember } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

const money = (kopecks: number) =>
  new Intl.NumberFormat('ru-RU', {
    style: 'currency',
    currency: 'RUB',
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  }).format(kopecks / 100);

/** What a partner's widget reads about their money: balances per account and payout history. */
describe('Payouts: embed balances and history (e2e)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let partner: UpsertedMember;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t, {
      program: { tiers: [{ tier: 'referrer', percent_bp: 1000 }] },
      payouts: { minimum_kopecks: 1 },
    });
    partner = await upsertUser(t, tenant.key, { full_name: 'Partner' });
    for (const [order, amount] of [
      ['o-1', 100000],
      ['o-2', 50000],
    ] as const) {
      const lead = await createLead(t, tenant.key, partner.serviceUserId, {
        contact: { name: 'Buyer', email: `${order}@example.org` },
      });
      const conv = await registerConversion(t, tenant.key, {
        lead_id: lead,
        amount_kopecks: amount,
        external_order_id: order,
      });
      await approveBonus(t, tenant.slug, conv.cascaded_bonuses[0].bonus_id);
      const run = await runPayouts(t, tenant.slug);
      const list = await t
        .http()
        .get(`/admin/v1/tenants/${tenant.slug}/payouts?run_id=${run.run_id}`)
        .set(admin(t));
      if (order === 'o-1') {
        const paid = await t
          .http()
          .post(`/admin/v1/tenants/${tenant.slug}/payouts/${list.body.items[0].payout_id}/paid`)
          .set(admin(t))
          .send({ reference: 'BANK-1' });
        expect(paid.status).toBe(200);
      }
    }
  });
  afterAll(() => t.close());

  const read = (path: string, origin = `https://${tenant.slug}.example`) =>
    t.http().get(`/embed/v1/data/${path}`).set('Origin', origin);

  it('lists the payouts newest first, with human statuses in the locale', async () => {
    const res = await read(`payouts/${partner.memberId}?tenant=${tenant.slug}`);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(`https://${tenant.slug}.example`);
    expect(res.body.user.display_name).toBe('Partner');
    expect(res.body.tenant).toEqual({ slug: tenant.slug, display_name: `Tenant ${tenant.slug}` });
    expect(res.body.pagination).toEqual({ page: 1, page_size: 20, total: 2, total_pages: 1 });
    expect(res.body.payouts.map((p: { status: string }) => p.status)).toEqual(['pending', 'paid']);
    expect(res.body.payouts[1]).toMatchObject({
      amount_kopecks: 10000,
      amount_formatted: money(10000),
      currency: 'RUB',
      status_human: 'Выплачено',
    });
    expect(res.body.payouts[1].paid_at).toMatch(/Z$/);
    const en = await read(
      `payouts/${partner.memberId}?tenant=${tenant.slug}&locale=en&page_size=1`,
    );
    expect(en.body.payouts).toHaveLength(1);
    expect(en.body.payouts[0].status_human).toBe('Processing');
    expect(en.body.pagination.total_pages).toBe(2);
  });

  it('gives each account its balances: available, in payout, paid', async () => {
    const res = await read(`bonuses/${partner.memberId}?tenant=${tenant.slug}`);
    expect(res.status).toBe(200);
    expect(res.body.accounts).toEqual([
      expect.objectContaining({
        currency: 'RUB',
        available_kopecks: 0,
        in_payout_kopecks: 5000,
        paid_kopecks: 10000,
        available_formatted: money(0),
        in_payout_formatted: money(5000),
        paid_formatted: money(10000),
      }),
    ]);
  });

  it('refuses what every Embed Data read refuses', async () => {
    const unknown = await read(`payouts/mbr_01ARZ3NDEKTSV4RRFFQ69G5FAV?tenant=${tenant.slug}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('user_not_found');
    const origin = await read(
      `payouts/${partner.memberId}?tenant=${tenant.slug}`,
      'https://evil.example',
    );
    expect(origin.status).toBe(403);
    expect(origin.body.code).toBe('origin_not_allowed');
    const page = await read(`payouts/${partner.memberId}?tenant=${tenant.slug}&page_size=101`);
    expect(page.status).toBe(400);
  });
});
