import fc from 'fast-check';
import { invariantViolations } from '../../factories/payouts.factory';
import { createTenant } from '../../factories/tenants.factory';
import { createChain } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { historyPlayer, historyStep } from '../../utils/money-history';

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
      fc.asyncProperty(
        fc.array(historyStep(3), { minLength: 5, maxLength: 22 }),
        async (commands) => {
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
          const play = historyPlayer(t, tenant, chain);
          for (const c of commands) {
            await play(c);
            const violations = await invariantViolations(t, tenant.orgId);
            if (violations.length)
              throw new Error(`after ${JSON.stringify(c)}: ${JSON.stringify(violations)}`);
          }
        },
      ),
      { numRuns: 12, endOnFailure: true },
    );
    expect(histories).toBeGreaterThanOrEqual(12);
  }, 600_000);
});
