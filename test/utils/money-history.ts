/**
 * Random money histories for the property specs (test/e2e/payouts/payouts-property, the portal's
 * figures): sales in two currencies on a referral chain, bonuses approved and rejected, refunds
 * before and after payment, payout runs, and payouts paid, failed and canceled, in any order,
 * each played through the real HTTP APIs. A step the contract refuses must be refused with 409.
 */
import fc from 'fast-check';
import { createLead, registerConversion } from '../factories/money.factory';
import { admin } from '../factories/payouts.factory';
import type { TestTenant } from '../factories/tenants.factory';
import type { UpsertedMember } from '../factories/users.factory';
import type { TestApp } from './create-test-app';

export type HistoryStep =
  | { kind: 'sale'; member: number; amount: number; currency: 'RUB' | 'USD' }
  | { kind: 'approve' | 'reject' | 'reverse' | 'paid' | 'failed' | 'cancel'; pick: number }
  | { kind: 'run' };

/** One step; a sale is made by `chain[1…maxMember]`'s own lead. */
export const historyStep = (maxMember: number): fc.Arbitrary<HistoryStep> =>
  fc.oneof(
    fc.record({
      kind: fc.constant('sale' as const),
      member: fc.integer({ min: 1, max: maxMember }),
      amount: fc.integer({ min: 1, max: 500000 }),
      currency: fc.constantFrom('RUB' as const, 'USD' as const),
    }),
    fc.record({
      kind: fc.constantFrom(
        'approve' as const,
        'approve' as const,
        'reject' as const,
        'reverse' as const,
        'paid' as const,
        'failed' as const,
        'cancel' as const,
      ),
      pick: fc.nat(),
    }),
    fc.record({ kind: fc.constant('run' as const) }),
  );

/** Plays steps on `tenant` and its `chain`, through the Federation and Admin APIs. */
export function historyPlayer(t: TestApp, tenant: TestTenant, chain: UpsertedMember[]) {
  const base = `/admin/v1/tenants/${tenant.slug}`;
  const conversions: string[] = [];
  let order = 0;
  const pickFrom = async (sql: string, pick: number): Promise<string | undefined> => {
    const rows: { id: string }[] = await t.db.query(sql, [tenant.orgId]);
    return rows.length ? rows[pick % rows.length].id : undefined;
  };
  return async (c: HistoryStep): Promise<void> => {
    if (c.kind === 'sale') {
      const lead = await createLead(t, tenant.key, chain[c.member].serviceUserId, {
        contact: { name: 'Buyer', email: `b${order}@example.org` },
      });
      const conv = await registerConversion(t, tenant.key, {
        lead_id: lead,
        amount_kopecks: c.amount,
        currency: c.currency,
        external_order_id: `o-${order++}`,
      });
      conversions.push(conv.conversion_id);
    } else if (c.kind === 'run') {
      expect((await t.http().post(`${base}/payouts/runs`).set(admin(t))).status).toBe(201);
    } else if (c.kind === 'approve' || c.kind === 'reject') {
      const id = await pickFrom(`SELECT id FROM bonuses WHERE tenant_id = $1 ORDER BY id`, c.pick);
      if (!id) return;
      const res = await t
        .http()
        .post(`${base}/bonuses/${id}/${c.kind}`)
        .set(admin(t))
        .send(c.kind === 'reject' ? { reason: 'no' } : {});
      expect([200, 409]).toContain(res.status);
    } else if (c.kind === 'reverse') {
      if (!conversions.length) return;
      const res = await t
        .http()
        .post(`/federation/v1/conversions/${conversions[c.pick % conversions.length]}/reverse`)
        .set('X-Service-Tenant-Key', tenant.key)
        .send({ reason: 'refund' });
      expect([200, 409]).toContain(res.status);
    } else {
      const id = await pickFrom(`SELECT id FROM payouts WHERE tenant_id = $1 ORDER BY id`, c.pick);
      if (!id) return;
      const body =
        c.kind === 'paid' ? { reference: 'R' } : c.kind === 'failed' ? { reason: 'bounced' } : {};
      const res = await t.http().post(`${base}/payouts/${id}/${c.kind}`).set(admin(t)).send(body);
      expect([200, 409]).toContain(res.status);
      if (res.status === 409) expect(res.body.code).toBe('invalid_transition');
    }
  };
}
