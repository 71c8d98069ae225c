import { createLead } from '../../factories/money.factory';
import { admin, approveBonus } from '../../factories/payouts.factory';
import { createTenant, type TestTenant } from '../../factories/tenants.factory';
import { upsertUser, type UpsertedMember } from '../../factories/users.factory';
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
  let partner: UpsertedMember;

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

  it('takes amounts up to the range, refuses what would pass it with 422 and stores nothing', async () => {
    // A conversion of 2^53 - 1 fills the conversions budget; its bonus (10 %) fits the bonuses one.
    const lead = await createLead(t, tenant.key, partner.serviceUserId);
    const register = (amount: number, order: string) =>
      t
        .http()
        .post('/federation/v1/conversions/register')
        .set('X-Service-Tenant-Key', tenant.key)
        .send({ lead_id: lead, amount_kopecks: amount, currency: 'RUB', external_order_id: order });
    const full = await register(MAX, 'full');
    expect(full.status).toBe(200);
    const commission = full.body.cascaded_bonuses[0].amount_kopecks as number;
    expect(commission).toBe(900_719_925_474_099);
    const refused = await register(1, 'one-more');
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('amount_out_of_range');
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(await count('conversions')).toBe(1);
    // Bonuses: what is left of the range, and not a kopeck more, either sign.
    for (const amount of [MAX, MAX - commission + 1, -(MAX - commission + 1)]) {
      const res = await manual(amount);
      expect({ amount, status: res.status, code: res.body.code }).toEqual({
        amount,
        status: 422,
        code: 'amount_out_of_range',
      });
    }
    expect(await count('bonuses')).toBe(1);
    expect((await manual(MAX - commission)).status).toBe(201);
    expect((await manual(-1)).status).toBe(422);
    expect(await count('bonuses')).toBe(2);
  });

  it('holds under concurrent writers: exactly what fits is taken', async () => {
    // 20 bonuses of 5 * 10^14 at once (10^16 in all) over several backends, so several parts
    // of the budget: exactly 18 fit in 2^53 - 1.
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => manual(500_000_000_000_000)),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(18);
    expect(statuses.filter((s) => s === 422)).toHaveLength(2);
    const [{ used, caps }] = await t.db.query(
      `SELECT sum(used_kopecks)::text AS used, sum(cap_kopecks)::text AS caps
         FROM tenant_money_budget WHERE tenant_id = $1 AND kind = 'bonuses'`,
      [tenant.orgId],
    );
    expect(used).toBe(String(18 * 500_000_000_000_000));
    expect(BigInt(caps)).toBeLessThanOrEqual(BigInt(MAX));
  });

  it('huge bonuses never add up past the range: the payout surfaces answer and the payout cancels', async () => {
    // Twelve bonuses of 10^15 would be 1.2 * 10^16 > 2^53: nine fit, whatever backend each
    // write lands on, and the last three are refused.
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
    expect({ accepted: accepted.length, refused }).toEqual({ accepted: 9, refused: 3 });
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
