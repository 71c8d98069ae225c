import { createLead, eventsOf, registerConversion } from '../../factories/money.factory';
import { admin, approveBonus, invariantViolations } from '../../factories/payouts.factory';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

/** Concurrency against real PostgreSQL with real parallel HTTP requests: one effect, one event. */
describe('Payouts: races (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  async function tenantWithApproved(members: number, salesEach: number) {
    const tenant = await createTenant(t, {
      program: { tiers: [{ tier: 'referrer', percent_bp: 1000 }] },
      payouts: { minimum_kopecks: 1 },
    });
    const sales: { conversionId: string; bonusId: string; userId: string }[] = [];
    for (let m = 0; m < members; m++) {
      const partner = await upsertUser(t, tenant.key);
      for (let s = 0; s < salesEach; s++) {
        const lead = await createLead(t, tenant.key, partner.serviceUserId, {
          contact: { name: 'Buyer', email: `b${m}-${s}@example.org` },
        });
        const conv = await registerConversion(t, tenant.key, {
          lead_id: lead,
          amount_kopecks: 10000 * (s + 1),
          external_order_id: `o-${m}-${s}`,
        });
        const bonusId = conv.cascaded_bonuses[0].bonus_id;
        await approveBonus(t, tenant.slug, bonusId);
        sales.push({ conversionId: conv.conversion_id, bonusId, userId: partner.serviceUserId });
      }
    }
    return { tenant, sales };
  }

  const runs = (tenant: TestTenant, n: number) =>
    Promise.all(
      Array.from({ length: n }, () =>
        t.http().post(`/admin/v1/tenants/${tenant.slug}/payouts/runs`).set(admin(t)),
      ),
    );

  it('five runs at once pay each member once and put no bonus in two payouts', async () => {
    const { tenant, sales } = await tenantWithApproved(6, 2);
    const answers = await runs(tenant, 5);
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
    expect(answers.reduce((n, a) => n + a.body.payouts_count, 0)).toBe(6);
    const items: { item_id: string; n: number }[] = await t.db.query(
      `SELECT item_id, count(*)::int AS n FROM payouts, unnest(item_ids) AS item_id
        WHERE tenant_id = $1 GROUP BY item_id`,
      [tenant.orgId],
    );
    expect(items.map((i) => i.n)).toEqual(sales.map(() => 1));
    expect(await eventsOf(t, tenant.orgId, 'payout.created')).toHaveLength(6);
    expect(await invariantViolations(t, tenant.orgId)).toEqual([]);
  });

  it('20 parallel `paid` of one payout: one 200, 19 × 409, one event, paid once', async () => {
    const { tenant } = await tenantWithApproved(1, 3);
    const [run] = await runs(tenant, 1);
    expect(run.body.payouts_count).toBe(1);
    const [payout]: { id: string; amount_kopecks: string }[] = await t.db.query(
      `SELECT id, amount_kopecks FROM payouts WHERE tenant_id = $1`,
      [tenant.orgId],
    );
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2
          ? t
              .http()
              .post(`/admin/v1/tenants/${tenant.slug}/payouts/${payout.id}/paid`)
              .set(admin(t))
              .send({ reference: `R-${i}` })
          : t
              .http()
              .post(`/federation/v1/payouts/${payout.id}/paid`)
              .set('X-Service-Tenant-Key', tenant.key)
              .send({ reference: `R-${i}` }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, ...Array(19).fill(409)]);
    for (const a of answers.filter((x) => x.status === 409))
      expect(a.body.code).toBe('invalid_transition');
    expect(await eventsOf(t, tenant.orgId, 'payout.paid')).toHaveLength(1);
    const [balance]: { paid_kopecks: string }[] = await t.db.query(
      `SELECT paid_kopecks FROM ledger_balances WHERE tenant_id = $1`,
      [tenant.orgId],
    );
    expect(balance.paid_kopecks).toBe(payout.amount_kopecks);
    const entries: { n: number }[] = await t.db.query(
      `SELECT count(*)::int AS n FROM ledger_entries WHERE tenant_id = $1 AND kind = 'payout_paid'`,
      [tenant.orgId],
    );
    expect(entries[0].n).toBe(1);
    expect(await invariantViolations(t, tenant.orgId)).toEqual([]);
  });

  it('a refund racing a run: the bonus is either left out or clawed back, never both or neither', async () => {
    const { tenant, sales } = await tenantWithApproved(8, 1);
    const [run, ...reversals] = await Promise.all([
      t.http().post(`/admin/v1/tenants/${tenant.slug}/payouts/runs`).set(admin(t)),
      ...sales.map((s) =>
        t
          .http()
          .post(`/federation/v1/conversions/${s.conversionId}/reverse`)
          .set('X-Service-Tenant-Key', tenant.key)
          .send({ reason: 'refund' }),
      ),
    ]);
    expect(run.status).toBe(201);
    expect(reversals.map((r) => r.status)).toEqual(sales.map(() => 200));
    const bonusItems: { item_id: string }[] = await t.db.query(
      `SELECT item_id FROM payouts, unnest(item_ids) AS item_id
        WHERE tenant_id = $1 AND item_id NOT LIKE 'clw\\_%'`,
      [tenant.orgId],
    );
    const inPayout = new Set(bonusItems.map((r) => r.item_id));
    const clawbackEvents = await eventsOf(t, tenant.orgId, 'clawback.created');
    const clawedBack = new Set(clawbackEvents.map((e) => e.payload.bonus_id as string));
    expect(clawedBack.size).toBe(clawbackEvents.length);
    for (const [i, s] of sales.entries()) {
      const written = reversals[i].body.written_off as { bonus_id: string; clawback?: boolean }[];
      expect(written).toHaveLength(1);
      expect(Boolean(written[0].clawback)).toBe(inPayout.has(s.bonusId));
      expect(clawedBack.has(s.bonusId)).toBe(inPayout.has(s.bonusId));
    }
    expect(await eventsOf(t, tenant.orgId, 'conversion.reversed')).toHaveLength(sales.length);
    expect(await invariantViolations(t, tenant.orgId)).toEqual([]);
  });

  it('honours Idempotency-Key on the federation `paid`: the same answer, replayed', async () => {
    const { tenant } = await tenantWithApproved(1, 1);
    await runs(tenant, 1);
    const [payout]: { id: string }[] = await t.db.query(
      `SELECT id FROM payouts WHERE tenant_id = $1`,
      [tenant.orgId],
    );
    const send = () =>
      t
        .http()
        .post(`/federation/v1/payouts/${payout.id}/paid`)
        .set('X-Service-Tenant-Key', tenant.key)
        .set('Idempotency-Key', 'settle-1')
        .send({ reference: 'BANK-7' });
    const first = await send();
    const again = await send();
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await eventsOf(t, tenant.orgId, 'payout.paid')).toHaveLength(1);
  });
});
