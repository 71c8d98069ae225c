import fc from 'fast-check';
import { createLead, registerConversion } from '../../factories/money.factory';
import { createTenant, type TestTenant } from '../../factories/tenants.factory';
import { upsertUser, type UpsertedMember } from '../../factories/users.factory';
import { adminApi } from '../../utils/api-client';
import { createTestApp, type TestApp } from '../../utils/create-test-app';

/**
 * SPEC 15's promise of the backtest: over random trees, draft programs and conversion histories,
 * the draft's figure equals, to the kopeck and per tier and partner, what registering the same
 * history under the draft on a fresh tenant with the same tree pays; the actual figure is what
 * the tenant's own registrations paid; and nothing is written.
 */
jest.setTimeout(240_000);

const tierArb = (index: number) =>
  fc.record({
    share: fc.oneof(
      fc.record({ percent_bp: fc.integer({ min: 0, max: 2500 }) }),
      fc.record({ fixed_kopecks: fc.integer({ min: 0, max: 5_000 }) }),
    ),
    qualify:
      index === 0
        ? fc.constant(undefined)
        : fc.option(fc.integer({ min: 1, max: 30_000 }), { nil: undefined }),
  });

const tiersArb = fc
  .integer({ min: 1, max: 4 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => tierArb(i))))
  .map((tiers) =>
    tiers.map((t, i) => ({
      tier: i === 0 ? 'referrer' : `upline_${i}`,
      ...t.share,
      ...(t.qualify ? { qualify: { min_personal_sales_kopecks: t.qualify, window_days: 7 } } : {}),
    })),
  );

const draftArb = fc.record({
  phased: fc.boolean(),
  first: tiersArb,
  second: tiersArb,
  limit: fc.integer({ min: 1, max: 3 }),
  lastLimited: fc.boolean(),
  compression: fc.boolean(),
});

const historyArb = fc.record({
  /** parents[i] < i + 1: member i + 1's referrer; member 0 is the root. */
  parents: fc.array(fc.nat(), { minLength: 3, maxLength: 9 }),
  inactive: fc.array(fc.nat(), { maxLength: 3 }),
  /** Each sale: which lead (of up to 5), sold by which member, for how much. */
  sales: fc.array(
    fc.record({
      lead: fc.nat({ max: 4 }),
      seller: fc.nat(),
      amount: fc.integer({ min: 1, max: 200_000 }),
    }),
    { minLength: 1, maxLength: 14 },
  ),
});

type DraftShape = typeof draftArb extends fc.Arbitrary<infer T> ? T : never;
type History = typeof historyArb extends fc.Arbitrary<infer T> ? T : never;

/** The draft program a generated shape stands for. */
function draftShape(d: DraftShape) {
  const program = d.phased
    ? {
        phases: [
          { conversions: d.limit, tiers: d.first },
          { ...(d.lastLimited ? { conversions: d.limit } : {}), tiers: d.second },
        ],
      }
    : { tiers: d.first };
  return { ...program, ...(d.compression ? { compression: true } : {}) };
}

describe('backtest = registration under the draft', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  /** The tree, with its leads and sales registered, on a new tenant paid by `program`. */
  async function replayOn(history: History, program: object | undefined, today: string) {
    const tenant: TestTenant = await createTenant(t, program ? { program } : {});
    const members: UpsertedMember[] = [];
    members.push(await upsertUser(t, tenant.key, { full_name: 'Root' }));
    for (const [i, parent] of history.parents.entries()) {
      members.push(
        await upsertUser(t, tenant.key, {
          full_name: `M${i + 1}`,
          referrer_user_id: members[parent % members.length].serviceUserId,
        }),
      );
    }
    for (const index of new Set(history.inactive.map((i) => i % members.length))) {
      const res = await adminApi(t, t.adminToken).setMemberActive(
        tenant.slug,
        members[index].serviceUserId,
        false,
      );
      expect(res.status).toBe(200);
    }
    const leads = new Map<string, string>();
    const paid = new Map<string, number>();
    let total = 0;
    for (const [n, sale] of history.sales.entries()) {
      const seller = members[sale.seller % members.length];
      const key = `${sale.lead}:${seller.serviceUserId}`;
      if (!leads.has(key)) {
        leads.set(
          key,
          await createLead(t, tenant.key, seller.serviceUserId, {
            contact: { name: 'C', email: `c${sale.lead}-${n}@example.org` },
          }),
        );
      }
      const res = await registerConversion(t, tenant.key, {
        lead_id: leads.get(key)!,
        amount_kopecks: sale.amount,
        external_order_id: `o-${n}`,
      });
      for (const b of res.cascaded_bonuses) {
        const i = members.findIndex((m) => m.serviceUserId === b.user_id);
        paid.set(`${i}:${b.tier}`, (paid.get(`${i}:${b.tier}`) ?? 0) + b.amount_kopecks);
        total += b.amount_kopecks;
      }
    }
    return { tenant, members, paid, total, today };
  }

  it('answers, to the kopeck, what the draft pays when the same history is registered under it', async () => {
    const today = new Date().toISOString().slice(0, 10);
    await fc.assert(
      fc.asyncProperty(historyArb, draftArb, async (history, d) => {
        const draft = draftShape(d);
        const original = await replayOn(history, undefined, today);
        const before = await t.db.query(
          `SELECT (SELECT count(*) FROM bonuses WHERE tenant_id = $1)::int AS b,
                  (SELECT count(*) FROM events WHERE tenant_id = $1)::int AS e`,
          [original.tenant.orgId],
        );
        const res = await adminApi(t, t.adminToken).raw(
          'post',
          `/admin/v1/tenants/${original.tenant.slug}/program/backtest`,
          { target: 'default', program: draft, from: today, to: today },
        );
        expect(res.status).toBe(200);
        const fresh = await replayOn(history, draft, today);

        expect(res.body.conversions).toBe(history.sales.length);
        expect(res.body.actual.commission_kopecks).toBe(original.total);
        expect(res.body.draft.commission_kopecks).toBe(fresh.total);
        expect(res.body.delta_kopecks).toBe(fresh.total - original.total);
        const byTier = (paid: Map<string, number>) => {
          const out: Record<string, number> = {};
          for (const [key, amount] of paid) {
            const tier = key.split(':')[1];
            out[tier] = (out[tier] ?? 0) + amount;
          }
          return out;
        };
        expect(res.body.draft.by_tier).toEqual(byTier(fresh.paid));
        expect(res.body.actual.by_tier).toEqual(byTier(original.paid));
        // Each partner's change, by their place in the tree.
        const perMember = (paid: Map<string, number>) => {
          const out = new Map<number, number>();
          for (const [key, amount] of paid) {
            const i = Number(key.split(':')[0]);
            out.set(i, (out.get(i) ?? 0) + amount);
          }
          return out;
        };
        const draftPaid = perMember(fresh.paid);
        const actualPaid = perMember(original.paid);
        for (const p of res.body.partners as {
          user_id: string;
          actual_kopecks: number;
          draft_kopecks: number;
        }[]) {
          const i = original.members.findIndex((m) => m.serviceUserId === p.user_id);
          expect(p.actual_kopecks).toBe(actualPaid.get(i) ?? 0);
          expect(p.draft_kopecks).toBe(draftPaid.get(i) ?? 0);
        }
        const changed = original.members.filter(
          (_, i) => (draftPaid.get(i) ?? 0) !== (actualPaid.get(i) ?? 0),
        );
        expect(res.body.partners).toHaveLength(Math.min(changed.length, 20));

        const after = await t.db.query(
          `SELECT (SELECT count(*) FROM bonuses WHERE tenant_id = $1)::int AS b,
                  (SELECT count(*) FROM events WHERE tenant_id = $1)::int AS e`,
          [original.tenant.orgId],
        );
        expect(after).toEqual(before);
      }),
      { numRuns: 12 },
    );
  });
});
