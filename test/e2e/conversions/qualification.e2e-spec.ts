import { createLead, registerConversion } from '../../factories/money.factory';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { createChain, type UpsertedMember } from '../../factories/users.factory';
import { adminApi } from '../../utils/api-client';
import { createTestApp, type TestApp } from '../../utils/create-test-app';
import { orgCsrf, orgSignIn } from '../../utils/pages-http';

/**
 * docs/money.md §2, "Qualification" and "Compression" (SPEC 15): an upline tier that asks for
 * personal sales pays only a member who sold that much in the window, reversals taking sales back;
 * with compression the tier goes on up the chain to the next qualified member, as far up as it
 * must (past the stretch of chain the tiers alone would read).
 */
jest.setTimeout(60_000);

const qualify = (min: number, window_days = 30) => ({
  min_personal_sales_kopecks: min,
  window_days,
});

describe('qualified uplines and compression', () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    tenant = await createTenant(t);
  });

  const setProgram = (program: unknown) =>
    adminApi(t, t.adminToken).updateTenant(tenant.slug, { program } as never);
  let orders = 0;
  /** A sale of `amount` by `seller`'s own lead; the paid [user, tier, amount] in chain order. */
  const sale = async (seller: UpsertedMember, amount: number) => {
    const leadId = await createLead(t, tenant.key, seller.serviceUserId, {
      contact: { name: 'Customer', email: `c${++orders}@example.org` },
    });
    const res = await registerConversion(t, tenant.key, {
      lead_id: leadId,
      amount_kopecks: amount,
      external_order_id: `o-${orders}`,
    });
    return {
      id: res.conversion_id,
      paid: res.cascaded_bonuses.map((b) => [b.user_id, b.tier, b.amount_kopecks]),
    };
  };

  it("pays SPEC 15's example, and the same chain without compression or after a refund", async () => {
    // createChain gives [root, …, deepest]: U3 → U2 → U1 → R.
    const [u3, u2, u1, r] = await createChain(t, tenant.key, 4);
    const program = {
      tiers: [
        { tier: 'referrer', percent_bp: 1000 },
        { tier: 'upline_1', percent_bp: 500, qualify: qualify(50_000) },
        { tier: 'upline_2', percent_bp: 300 },
      ],
      compression: true,
    };
    const saved = await setProgram(program);
    expect(saved.status).toBe(200);
    expect(saved.body.program).toEqual({
      lead_bonus_kopecks: 0,
      grace_period_hours: 336,
      ...program,
    });

    const u2Sale = await sale(u2, 60_000); // U2's own sale: 60 000 in the window
    const first = await sale(r, 100_000);
    expect(first.paid).toEqual([
      [r.serviceUserId, 'referrer', 10_000],
      [u2.serviceUserId, 'upline_1', 5_000],
      [u3.serviceUserId, 'upline_2', 3_000],
    ]);

    // Without compression U1's tier lapses and upline_2 stays with its own position, U2.
    expect((await setProgram({ ...program, compression: false })).status).toBe(200);
    const second = await sale(r, 100_000);
    expect(second.paid).toEqual([
      [r.serviceUserId, 'referrer', 10_000],
      [u2.serviceUserId, 'upline_2', 3_000],
    ]);

    // U2's sale refunded: U2 no longer qualifies, so with compression upline_1 goes to U3 (who
    // sold 50 000 meanwhile) and nobody is left above for upline_2. U1 is never paid.
    expect((await setProgram(program)).status).toBe(200);
    const reversed = await t
      .http()
      .post(`/federation/v1/conversions/${u2Sale.id}/reverse`)
      .set('X-Service-Tenant-Key', tenant.key)
      .send({ reason: 'refund' });
    expect(reversed.status).toBe(200);
    await sale(u3, 50_000); // U3 qualifies now, for upline_1 as for upline_2
    const third = await sale(r, 100_000);
    expect(third.paid).toEqual([
      [r.serviceUserId, 'referrer', 10_000],
      [u3.serviceUserId, 'upline_1', 5_000],
    ]);
    expect(JSON.stringify([first, second, third])).not.toContain(u1.serviceUserId);
  });

  it('counts sales in the window only, per tier, and a preview answers what register pays', async () => {
    const [top, mid, seller] = await createChain(t, tenant.key, 3);
    const program = {
      tiers: [
        { tier: 'referrer', percent_bp: 1000 },
        { tier: 'upline_1', fixed_kopecks: 700, qualify: qualify(1_000, 1) },
        { tier: 'upline_2', fixed_kopecks: 500, qualify: qualify(3_000, 7) },
      ],
    };
    expect((await setProgram(program)).status).toBe(200);
    // Two sales of mid's, one backdated 3 days: today's 1 000 qualifies for the 1-day window, the
    // 7-day window sees both (1 000 + 2 500) but top sold nothing.
    const today = await sale(mid, 1_000);
    const old = await sale(mid, 2_500);
    await t.db.query(
      `UPDATE conversions SET created_at = now() - interval '3 days' WHERE tenant_id = $1 AND id = $2`,
      [tenant.orgId, old.id],
    );
    expect(today.paid).toHaveLength(1); // the referrer's own share only: top sold nothing
    const paid = (await sale(seller, 10_000)).paid;
    expect(paid).toEqual([
      [seller.serviceUserId, 'referrer', 1_000],
      [mid.serviceUserId, 'upline_1', 700],
    ]);
    // The rollup keeps the backdated sale on its new day: moved, not counted twice.
    const days: { n: string }[] = await t.db.query(
      `SELECT sum(amount_kopecks)::text AS n FROM personal_sales_daily
        WHERE tenant_id = $1 AND member_id = (SELECT id FROM members WHERE tenant_id = $1 AND service_user_id = $2)`,
      [tenant.orgId, mid.serviceUserId],
    );
    expect(days[0].n).toBe('3500');
    const leadId = await createLead(t, tenant.key, seller.serviceUserId, {
      contact: { name: 'Preview', email: 'preview@example.org' },
    });
    const preview = await t
      .http()
      .post('/federation/v1/conversions/preview')
      .set('X-Service-Tenant-Key', tenant.key)
      .send({ lead_id: leadId, amount_kopecks: 10_000, currency: 'RUB' });
    expect(preview.status).toBe(200);
    expect(
      preview.body.cascaded_bonuses.map((b: { user_id: string; tier: string }) => [
        b.user_id,
        b.tier,
      ]),
    ).toEqual([
      [seller.serviceUserId, 'referrer'],
      [mid.serviceUserId, 'upline_1'],
    ]);
    // top, who sold nothing, is paid by no tier.
    expect(JSON.stringify([today.paid, paid])).not.toContain(top.serviceUserId);
  });

  it('compression walks as far up as it must, past the stretch of chain the tiers alone read', async () => {
    const chain = await createChain(t, tenant.key, 40);
    const [root] = chain;
    const seller = chain[39];
    await sale(root, 5_000); // only the root qualifies, 39 levels above the seller
    expect(
      (
        await setProgram({
          tiers: [
            { tier: 'referrer', percent_bp: 1000 },
            { tier: 'upline_1', percent_bp: 500, qualify: qualify(5_000) },
            { tier: 'upline_2', percent_bp: 300, qualify: qualify(5_000) },
          ],
          compression: true,
        })
      ).status,
    ).toBe(200);
    expect((await sale(seller, 100_000)).paid).toEqual([
      [seller.serviceUserId, 'referrer', 10_000],
      [root.serviceUserId, 'upline_1', 5_000],
    ]);
  });

  it("the console's program page shows the rules and saves what it shows, nothing kept aside", async () => {
    const program = {
      tiers: [
        { tier: 'referrer', percent_bp: 1000 },
        { tier: 'upline_1', percent_bp: 500, qualify: qualify(50_000) },
      ],
      compression: true,
    };
    expect((await setProgram(program)).status).toBe(200);
    const cookie = await orgSignIn(t.http, await createStaffToken(t, tenant.slug, 'owner'));
    const page = await t.http().get(`/org/${tenant.slug}/program?lang=en`).set('Cookie', cookie);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/name="p0_qmin_1"[^>]*value="500.00"/);
    expect(page.text).toMatch(/name="compression"[^>]*checked/);
    const post = async (fields: Record<string, string>) =>
      t
        .http()
        .post(`/org/${tenant.slug}/program`)
        .set('Cookie', cookie)
        .set('Origin', 'http://localhost:3000')
        .type('form')
        .send({
          _csrf: await orgCsrf(t.http, cookie, tenant.slug),
          intent: 'save',
          lead_bonus: '0',
          grace_period_hours: '336',
          p0_percent_0: '12',
          p0_fixed_0: '',
          p0_percent_1: '6',
          p0_fixed_1: '',
          amount: '1000',
          ...fields,
        });
    const saved = await post({ p0_qmin_1: '500', p0_qdays_1: '30', compression: 'on' });
    expect(saved.status).toBe(303);
    const after = await adminApi(t, t.adminToken).getTenant(tenant.slug);
    expect(after.body.program).toEqual({
      lead_bonus_kopecks: 0,
      grace_period_hours: 336,
      tiers: [
        { tier: 'referrer', percent_bp: 1200 },
        { tier: 'upline_1', percent_bp: 600, qualify: qualify(50_000) },
      ],
      compression: true,
    });
    // Fields left empty are rules removed, as the form showed them.
    expect((await post({})).status).toBe(303);
    const cleared = await adminApi(t, t.adminToken).getTenant(tenant.slug);
    expect(cleared.body.program).toEqual({
      lead_bonus_kopecks: 0,
      grace_period_hours: 336,
      tiers: [
        { tier: 'referrer', percent_bp: 1200 },
        { tier: 'upline_1', percent_bp: 600 },
      ],
    });
  });

  it('refuses qualification on the referrer tier and windows out of range', async () => {
    for (const [tiers, field] of [
      [
        [{ tier: 'referrer', percent_bp: 1000, qualify: qualify(1) }],
        'tiers.0.qualify: is for upline tiers only',
      ],
      [
        [
          { tier: 'referrer', percent_bp: 1000 },
          { tier: 'upline_1', percent_bp: 100, qualify: qualify(1, 0) },
        ],
        'program.tiers.1.qualify.window_days',
      ],
      [
        [
          { tier: 'referrer', percent_bp: 1000 },
          { tier: 'upline_1', percent_bp: 100, qualify: { window_days: 30 } },
        ],
        'program.tiers.1.qualify.min_personal_sales_kopecks',
      ],
    ] as const) {
      const res = await setProgram({ tiers });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(JSON.stringify(res.body.errors)).toContain(field);
    }
    const bad = await setProgram({ tiers: [{ tier: 'referrer', percent_bp: 1 }], compression: 1 });
    expect(bad.status).toBe(400);
  });
});
