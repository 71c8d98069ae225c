import { createLead } from '../../factories/money.factory';
import { admin, approveBonus } from '../../factories/payouts.factory';
import { createTenant, type TestTenant } from '../../factories/tenants.factory';
import { upsertUser, type UpsertedUser } from '../../factories/users.factory';
import { createTestApp, type TestApp } from '../../utils/create-test-app';

/**
 * docs/money.md, "The safe range" (issue #32, 6a): two huge manual bonuses used to add up past
 * 2^53 kopecks, after which nine payout and widget surfaces answered 500 and the payout could not
 * be canceled. The writes that would take a tenant's money past the range are refused with 422
 * `amount_out_of_range`, so every sum the surfaces answer is exact.
 */
jest.setTimeout(120_000);

const MAX = Number.MAX_SAFE_INTEGER;
const ONE_QUADRILLION = 1_000_000_000_000_000;

describe('money: the safe range', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let partner: UpsertedUser;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    tenant = await createTenant(t, {
      program: { tiers: [{ tier: 'referrer', percent_bp: 1000 }] },
      payouts: { minimum_kopecks: 1 },
    });
    partner = await upsertUser(t, tenant.key);
  });

  const adminApi = (method: 'get' | 'post', path: string) =>
    t.http()[method](`/admin/v1/tenants/${tenant.slug}${path}`).set(admin(t));
  const manual = (amount: number) =>
    adminApi('post', '/bonuses').send({
      user_id: partner.serviceUserId,
      amount_kopecks: amount,
      currency: 'RUB',
      reason: 'bonus',
    });
  const count = async (table: string) =>
    (
      await t.db.query(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = $1`, [
        tenant.orgId,
      ])
    )[0].n as number;

  it('refuses a manual bonus, an adjustment or a conversion past the range with 422, storing nothing', async () => {
    for (const amount of [MAX, -MAX, 5_000_000_000_000_000]) {
      const res = await manual(amount);
      expect({ amount, status: res.status, code: res.body.code }).toEqual({
        amount,
        status: 422,
        code: 'amount_out_of_range',
      });
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    const lead = await createLead(t, tenant.key, partner.serviceUserId);
    const conversion = await t
      .http()
      .post('/federation/v1/conversions/register')
      .set('X-Service-Tenant-Key', tenant.key)
      .send({ lead_id: lead, amount_kopecks: MAX, currency: 'RUB', external_order_id: 'huge' });
    expect(conversion.status).toBe(422);
    expect(conversion.body.code).toBe('amount_out_of_range');
    expect(await count('bonuses')).toBe(0);
    expect(await count('conversions')).toBe(0);
    // An ordinary amount still goes through.
    expect((await manual(100_000)).status).toBe(201);
  });

  it('huge bonuses never add up past the range: the payout surfaces answer and the payout cancels', async () => {
    // Twelve bonuses of 10^15 would be 1.2 * 10^16 > 2^53: some are refused, whatever backend
    // each write lands on, and what was accepted stays a safe sum.
    const accepted: string[] = [];
    let refused = 0;
    for (let i = 0; i < 12; i++) {
      const res = await manual(ONE_QUADRILLION);
      if (res.status === 201) accepted.push(res.body.bonus_id as string);
      else {
        expect(res.status).toBe(422);
        expect(res.body.code).toBe('amount_out_of_range');
        refused++;
      }
    }
    expect(refused).toBeGreaterThanOrEqual(4);
    expect(accepted.length * ONE_QUADRILLION).toBeLessThanOrEqual(MAX);
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    for (const id of accepted) await approveBonus(t, tenant.slug, id);

    const total = accepted.length * ONE_QUADRILLION;
    const user = await adminApi('get', `/users/${partner.memberId}`);
    expect(user.status).toBe(200);
    const run = await adminApi('post', '/payouts/runs');
    expect(run.status).toBe(201);
    expect(run.body).toMatchObject({ payouts_count: 1, total_kopecks: total });
    for (const path of [
      '/payouts/runs',
      `/payouts?run_id=${run.body.run_id}`,
      `/payouts/runs/${run.body.run_id}.csv`,
      '/stats',
      `/bonuses?user_id=${partner.memberId}`,
    ]) {
      const res = await adminApi('get', path);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
    }
    const list = await adminApi('get', `/payouts?run_id=${run.body.run_id}`);
    const payout = list.body.items[0];
    expect(payout.amount_kopecks).toBe(total);
    const canceled = await adminApi('post', `/payouts/${payout.payout_id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe('canceled');
  });
});
