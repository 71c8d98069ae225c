import fc from 'fast-check';
import { createLead, registerConversion } from '../../factories/money.factory';
import { admin, invariantViolations } from '../../factories/payouts.factory';
import { createTenant } from '../../factories/tenants.factory';
import { createChain } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

type Command =
  | { kind: 'sale'; member: number; amount: number; currency: 'RUB' | 'USD' }
  | { kind: 'approve' | 'reject' | 'reverse' | 'paid' | 'failed' | 'cancel'; pick: number }
  | { kind: 'run' };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    kind: fc.constant('sale' as const),
    member: fc.integer({ min: 1, max: 3 }),
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

/**
 * docs/payouts.md's invariant over random histories, through the real HTTP API on the real database:
 * sales in two currencies on a three-level chain, approvals, rejections, refunds before and after
 * payment, runs, and payouts paid, failed and canceled in any order. After every step, for every
 * member and currency, available + in_payout + paid = approved + paid bonuses, the balances match
 * the payouts and the ledger, every payout is the sum of its items, and no item is in two live
 * payouts. Transitions the contract refuses must be refused with 409, never a 5xx.
 */
describe('Payouts: the ledger invariant over random histories (e2e, property)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('holds after every step of any history', async () => {
    let histories = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 5, maxLength: 22 }), async (commands) => {
        histories++;
        const tenant = await createTenant(t, {
          program: {
            tiers: [
              { tier: 'referrer', percent_bp: 1000 },
              { tier: 'upline_1', percent_bp: 500 },
            ],
          },
          payouts: { minimum_kopecks: 1 },
        });
        const chain = await createChain(t, tenant.key, 4);
        const base = `/admin/v1/tenants/${tenant.slug}`;
        const conversions: string[] = [];
        let order = 0;
        const pickFrom = async (sql: string, pick: number): Promise<string | undefined> => {
          const rows: { id: string }[] = await t.db.query(sql, [tenant.orgId]);
          return rows.length ? rows[pick % rows.length].id : undefined;
        };
        for (const c of commands) {
          let status = 200;
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
            status = (await t.http().post(`${base}/payouts/runs`).set(admin(t))).status;
            expect(status).toBe(201);
          } else if (c.kind === 'approve' || c.kind === 'reject') {
            const id = await pickFrom(
              `SELECT id FROM bonuses WHERE tenant_id = $1 ORDER BY id`,
              c.pick,
            );
            if (!id) continue;
            const res = await t
              .http()
              .post(`${base}/bonuses/${id}/${c.kind}`)
              .set(admin(t))
              .send(c.kind === 'reject' ? { reason: 'no' } : {});
            expect([200, 409]).toContain(res.status);
          } else if (c.kind === 'reverse') {
            if (!conversions.length) continue;
            const res = await t
              .http()
              .post(
                `/federation/v1/conversions/${conversions[c.pick % conversions.length]}/reverse`,
              )
              .set('X-Service-Tenant-Key', tenant.key)
              .send({ reason: 'refund' });
            expect([200, 409]).toContain(res.status);
          } else {
            const id = await pickFrom(
              `SELECT id FROM payouts WHERE tenant_id = $1 ORDER BY id`,
              c.pick,
            );
            if (!id) continue;
            const body =
              c.kind === 'paid'
                ? { reference: 'R' }
                : c.kind === 'failed'
                  ? { reason: 'bounced' }
                  : {};
            const res = await t
              .http()
              .post(`${base}/payouts/${id}/${c.kind}`)
              .set(admin(t))
              .send(body);
            expect([200, 409]).toContain(res.status);
            if (res.status === 409) expect(res.body.code).toBe('invalid_transition');
          }
          const violations = await invariantViolations(t, tenant.orgId);
          if (violations.length)
            throw new Error(`after ${JSON.stringify(c)}: ${JSON.stringify(violations)}`);
        }
      }),
      { numRuns: 12, endOnFailure: true },
    );
    expect(histories).toBeGreaterThanOrEqual(12);
  }, 600_000);
});
