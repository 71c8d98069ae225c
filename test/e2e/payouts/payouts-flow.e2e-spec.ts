import { createLead, eventsOf, registerConversion } from '../../factories/money.factory';
import {
  admin,
  approveBonus,
  invariantViolations,
  runPayouts,
} from '../../factories/payouts.factory';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser, UpsertedMember } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

/** One partner's money from approval to payment, a refund after payment, and netting. */
describe('Payouts: ledger, runs, clawbacks, CSV (e2e)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let partner: UpsertedMember;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t, {
      program: { tiers: [{ tier: 'referrer', percent_bp: 1000 }], grace_period_hours: 336 },
      payouts: { minimum_kopecks: 1000 },
    });
    partner = await upsertUser(t, tenant.key, {
      full_name: 'Анна "Partner", Ltd',
      email: 'anna@example.org',
    });
  });
  afterAll(() => t.close());

  const fed = () => ({ 'X-Service-Tenant-Key': tenant.key });
  const balances = async () => {
    const rows: { available_kopecks: string; in_payout_kopecks: string; paid_kopecks: string }[] =
      await t.db.query(
        `SELECT available_kopecks, in_payout_kopecks, paid_kopecks FROM ledger_balances
          WHERE tenant_id = $1 AND member_id = $2`,
        [tenant.orgId, partner.memberId],
      );
    const r = rows[0];
    return [Number(r.available_kopecks), Number(r.in_payout_kopecks), Number(r.paid_kopecks)];
  };
  async function sale(amount: number, order: string) {
    const lead = await createLead(t, tenant.key, partner.serviceUserId, {
      contact: { name: 'Buyer', email: `${order}@example.org` },
    });
    const conv = await registerConversion(t, tenant.key, {
      lead_id: lead,
      amount_kopecks: amount,
      external_order_id: order,
    });
    return { conversionId: conv.conversion_id, bonusId: conv.cascaded_bonuses[0].bonus_id };
  }

  it('pays, claws back a refund after payment, nets it and settles a run by CSV', async () => {
    expect(tenant.body.payouts).toEqual({
      minimum_kopecks: 1000,
      schedule: 'manual',
      hold_days: 0,
      require_details: false,
    });
    const first = await sale(100000, 'o-1');
    await approveBonus(t, tenant.slug, first.bonusId);
    expect(await balances()).toEqual([10000, 0, 0]);

    const run1 = await runPayouts(t, tenant.slug);
    expect(run1).toMatchObject({
      payouts_count: 1,
      total_kopecks: 10000,
      currency_totals: { RUB: 10000 },
    });
    const list = await t
      .http()
      .get(`/admin/v1/tenants/${tenant.slug}/payouts?run_id=${run1.run_id}`)
      .set(admin(t));
    expect(list.status).toBe(200);
    const payout = list.body.items[0];
    expect(payout).toMatchObject({
      run_id: run1.run_id,
      user_id: partner.serviceUserId,
      currency: 'RUB',
      amount_kopecks: 10000,
      status: 'pending',
      items: [{ bonus_id: first.bonusId, amount_kopecks: 10000 }],
      reference: null,
      paid_at: null,
    });
    expect(await balances()).toEqual([0, 10000, 0]);
    // A second run finds nothing payable: the bonus is held by the pending payout.
    expect((await runPayouts(t, tenant.slug)).payouts_count).toBe(0);

    // Refund while the payout is pending: a clawback, listed in written_off.
    const rev = await t
      .http()
      .post(`/federation/v1/conversions/${first.conversionId}/reverse`)
      .set(fed())
      .send({ reason: 'refund' });
    expect(rev.status).toBe(200);
    expect(rev.body.written_off).toEqual([
      {
        bonus_id: first.bonusId,
        user_id: partner.serviceUserId,
        amount_kopecks: 10000,
        clawback: true,
      },
    ]);
    const clawbacks = await eventsOf(t, tenant.orgId, 'clawback.created');
    expect(clawbacks).toHaveLength(1);
    expect(clawbacks[0].payload).toMatchObject({ bonus_id: first.bonusId, amount_kopecks: -10000 });
    expect(await balances()).toEqual([-10000, 10000, 0]);

    // The bank pays it anyway: paid by the tenant's back end.
    const paid = await t
      .http()
      .post(`/federation/v1/payouts/${payout.payout_id}/paid`)
      .set(fed())
      .send({ reference: 'BANK-1' });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'paid', reference: 'BANK-1' });
    expect(await balances()).toEqual([-10000, 0, 10000]);
    const paidEvents = await eventsOf(t, tenant.orgId, 'payout.paid');
    expect(paidEvents.map((e) => e.payload)).toEqual([
      expect.objectContaining({
        payout_id: payout.payout_id,
        reference: 'BANK-1',
        bonus_ids: [first.bonusId],
      }),
    ]);

    // The next sale is netted against the clawback: 30000 - 10000.
    const second = await sale(300000, 'o-2');
    await approveBonus(t, tenant.slug, second.bonusId);
    const run2 = await runPayouts(t, tenant.slug);
    expect(run2).toMatchObject({ payouts_count: 1, total_kopecks: 20000 });
    const csv = await t
      .http()
      .get(`/admin/v1/tenants/${tenant.slug}/payouts/runs/${run2.run_id}.csv`)
      .set(admin(t));
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.text.split('\r\n');
    expect(lines[0]).toBe(
      'payout_id,user_id,external_id,full_name,email,currency,amount_kopecks,amount,' +
        'method,details_masked,holder,iban,account,bik,paypal_email',
    );
    // The partner entered no payout details (docs/partners.md): those cells are empty.
    expect(lines[1]).toMatch(
      new RegExp(
        `^pay_\\w{26},${partner.serviceUserId},${partner.externalId},"Анна ""Partner"", Ltd",anna@example.org,RUB,20000,200.00,,,,,,,$`,
      ),
    );

    const settle = (body: string) =>
      t
        .http()
        .post(`/admin/v1/tenants/${tenant.slug}/payouts/runs/${run2.run_id}/settle`)
        .set(admin(t))
        .set('Content-Type', 'text/csv')
        .send(body);
    const withRef = (line: string, ref: string) => `${line},${ref}`;
    const bad = await settle(
      [
        `${lines[0]},reference`,
        withRef(lines[1].replace(',20000,', ',20001,'), 'R-2'),
        withRef(lines[1].replace(/^pay_\w+/, 'pay_01ARZ3NDEKTSV4RRFFQ69G5FAV'), 'R-3'),
      ].join('\r\n'),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation_failed');
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['line 2', 'line 3']);
    const stillPending = await t
      .http()
      .get(`/admin/v1/tenants/${tenant.slug}/payouts?run_id=${run2.run_id}`)
      .set(admin(t));
    expect(stillPending.body.items[0].status).toBe('pending');

    const good = await settle([`${lines[0]},reference`, withRef(lines[1], 'R-2')].join('\r\n'));
    expect(good.status).toBe(200);
    expect(good.body).toEqual({ run_id: run2.run_id, paid_count: 1 });
    expect(await balances()).toEqual([0, 0, 30000]);
    expect(await invariantViolations(t, tenant.orgId)).toEqual([]);
  });
});
