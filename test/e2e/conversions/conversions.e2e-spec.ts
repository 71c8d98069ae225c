import { createLead, eventsOf, registerConversion } from '../../factories/money.factory';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { createChain } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

describe('conversions: register, cascade, reverse', () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    tenant = await createTenant(t, {
      program: {
        tiers: [
          { tier: 'referrer', percent_bp: 1000 },
          { tier: 'upline_1', percent_bp: 300 },
          { tier: 'upline_2', fixed_kopecks: 5000 },
        ],
      },
    });
  });

  it('pays the referrer and uplines by tier, floors each share, and emits the events', async () => {
    const [top, mid, referrer] = await createChain(t, tenant.key, 3);
    const leadId = await createLead(t, tenant.key, referrer.serviceUserId);
    const res = await registerConversion(t, tenant.key, {
      lead_id: leadId,
      amount_kopecks: 123_457,
      external_order_id: 'o-1',
    });
    expect(res.cascaded_bonuses).toEqual([
      {
        user_id: referrer.serviceUserId,
        amount_kopecks: 12_345,
        tier: 'referrer',
        rule: {
          program_version_id: expect.stringMatching(/^prv_/),
          phase: 1,
          tier: 'referrer',
          compressed_from: null,
        },
        explanation: '10\u00a0% от 1\u00a0234,57\u00a0₽',
        bonus_id: expect.stringMatching(/^bns_/),
      },
      {
        user_id: mid.serviceUserId,
        amount_kopecks: 3_703,
        tier: 'upline_1',
        rule: {
          program_version_id: expect.stringMatching(/^prv_/),
          phase: 1,
          tier: 'upline_1',
          compressed_from: null,
        },
        explanation: '3\u00a0% от 1\u00a0234,57\u00a0₽',
        bonus_id: expect.stringMatching(/^bns_/),
      },
      {
        user_id: top.serviceUserId,
        amount_kopecks: 5_000,
        tier: 'upline_2',
        rule: {
          program_version_id: expect.stringMatching(/^prv_/),
          phase: 1,
          tier: 'upline_2',
          compressed_from: null,
        },
        explanation: 'фиксированно 50,00\u00a0₽',
        bonus_id: expect.stringMatching(/^bns_/),
      },
    ]);
    const cascaded = await eventsOf(t, tenant.orgId, 'conversion.cascaded');
    expect(cascaded).toHaveLength(1);
    expect(cascaded[0].payload).toEqual({
      conversion_id: res.conversion_id,
      lead_id: leadId,
      amount_kopecks: 123_457,
      cascaded_bonuses: res.cascaded_bonuses.map(({ user_id, amount_kopecks, tier }) => ({
        user_id,
        amount_kopecks,
        tier,
      })),
    });
    expect(await eventsOf(t, tenant.orgId, 'bonus.pending')).toHaveLength(3);

    const again = await registerConversion(t, tenant.key, {
      lead_id: leadId,
      amount_kopecks: 123_457,
      external_order_id: 'o-1',
    });
    expect(again).toEqual(res);
    expect(await eventsOf(t, tenant.orgId, 'bonus.pending')).toHaveLength(3);

    const reverse = await t
      .http()
      .post(`/federation/v1/conversions/${res.conversion_id}/reverse`)
      .set('X-Service-Tenant-Key', tenant.key)
      .send({ reason: 'refund' });
    expect(reverse.status).toBe(200);
    expect(reverse.body.written_off).toHaveLength(3);
    const twice = await t
      .http()
      .post(`/federation/v1/conversions/${res.conversion_id}/reverse`)
      .set('X-Service-Tenant-Key', tenant.key)
      .send({ reason: 'refund' });
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('already_reversed');
  });

  it('gives one conversion and one set of bonuses for 20 parallel identical registers', async () => {
    const [, referrer] = await createChain(t, tenant.key, 2);
    const leadId = await createLead(t, tenant.key, referrer.serviceUserId);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        t
          .http()
          .post('/federation/v1/conversions/register')
          .set('X-Service-Tenant-Key', tenant.key)
          .send({
            lead_id: leadId,
            amount_kopecks: 10_000,
            currency: 'RUB',
            external_order_id: 'same',
          }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(results.map((r) => r.body.conversion_id)).size).toBe(1);
    const [{ count }] = await t.db.query(
      `SELECT count(*)::int AS count FROM bonuses WHERE tenant_id = $1 AND source_type = 'conversion'`,
      [tenant.orgId],
    );
    expect(count).toBe(2);
    expect(await eventsOf(t, tenant.orgId, 'conversion.cascaded')).toHaveLength(1);
  });
});
