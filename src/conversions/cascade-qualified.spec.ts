import fc from 'fast-check';
import type { ProgramTier } from '../tenants/program';
import { cascade, cascadeWalk, type ChainMember, tierAmount, tierIndex } from './cascade';

/** docs/money.md §2's qualification and compression, over the cascade of cascade.spec.ts. */
const nameOf = (i: number) => (i === 0 ? 'referrer' : `upline_${i}`);
const member = (i: number, isActive = true): ChainMember => ({
  id: `mbr_${i}`,
  serviceUserId: `usr_${i}`,
  isActive,
});
const percent = (i: number, percent_bp: number): ProgramTier => ({ tier: nameOf(i), percent_bp });
const amountArb = fc.integer({ min: 1, max: 1_000_000_000_000 });
/** 1..21 percent tiers whose basis points add up to at most 10000. */
const percentTiersArb = fc
  .array(fc.integer({ min: 0, max: 10000 }), { minLength: 1, maxLength: 21 })
  .map((bps) => {
    const sum = bps.reduce((a, b) => a + b, 0);
    const scaled = sum > 10000 ? bps.map((bp) => Math.floor((bp * 10000) / sum)) : bps;
    return scaled.map((bp, i) => percent(i, bp));
  });

describe('qualification and compression (docs/money.md §2)', () => {
  const q = (tier: ProgramTier, min: number, window_days = 30): ProgramTier => ({
    ...tier,
    qualify: { min_personal_sales_kopecks: min, window_days },
  });

  it("pays SPEC 15's example: U1 without sales is skipped, U2 takes upline_1, U3 upline_2", () => {
    const chain = [member(0), member(1), member(2), member(3)];
    const tiers = [percent(0, 1000), q(percent(1, 500), 50_000), percent(2, 300)];
    const sales = new Map([['mbr_2', 60_000]]);
    const personalSales = (id: string) => sales.get(id) ?? 0;
    expect(
      cascade(100_000, tiers, chain, { compression: true, personalSales }).map((s) => [
        s.memberId,
        s.tier,
        s.amountKopecks,
      ]),
    ).toEqual([
      ['mbr_0', 'referrer', 10_000],
      ['mbr_2', 'upline_1', 5_000],
      ['mbr_3', 'upline_2', 3_000],
    ]);
    // U2's tier came to them past U1 (chain position upline_1); nobody was passed over below U3.
    expect(
      cascade(100_000, tiers, chain, { compression: true, personalSales }).map(
        (s) => s.compressedFrom,
      ),
    ).toEqual([null, 'upline_1', null]);
    // Without compression U1's tier pays nobody and upline_2 stays with its own position (U2).
    expect(
      cascade(100_000, tiers, chain, { personalSales }).map((s) => [s.memberId, s.tier]),
    ).toEqual([
      ['mbr_0', 'referrer'],
      ['mbr_2', 'upline_2'],
    ]);
  });

  it('asks each tier its own window; a compressing walk says when the chain ran out', () => {
    const asked: [string, number][] = [];
    const personalSales = (id: string, days: number) => {
      asked.push([id, days]);
      return id === 'mbr_3' && days === 7 ? 10 : 0;
    };
    const tiers = [percent(0, 1000), q(percent(1, 500), 10, 7)];
    const walk = cascadeWalk(1000, tiers, [member(0), member(1), member(2)], {
      compression: true,
      personalSales,
    });
    expect(walk).toEqual({
      shares: [expect.objectContaining({ memberId: 'mbr_0' })],
      ranOut: true,
    });
    expect(asked).toEqual([
      ['mbr_1', 7],
      ['mbr_2', 7],
    ]);
    const longer = cascadeWalk(1000, tiers, [member(0), member(1), member(2), member(3)], {
      compression: true,
      personalSales,
    });
    expect(longer.ranOut).toBe(false);
    expect(longer.shares.map((s) => [s.memberId, s.tier])).toEqual([
      ['mbr_0', 'referrer'],
      ['mbr_3', 'upline_1'],
    ]);
  });

  /** Random chains with active flags and personal sales, and programs with random qualification. */
  const scenarioArb = fc.record({
    amount: amountArb,
    tiers: percentTiersArb.chain((tiers) =>
      fc
        .array(fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }), {
          minLength: tiers.length,
          maxLength: tiers.length,
        })
        .map((mins) => tiers.map((t, i) => (i > 0 && mins[i] ? q(t, mins[i]) : t))),
    ),
    chain: fc.array(fc.record({ active: fc.boolean(), sales: fc.integer({ min: 0, max: 120 }) }), {
      maxLength: 40,
    }),
    compression: fc.boolean(),
  });

  it('never pays more than the percentages allow, nobody twice, and keeps tier order up the chain', () => {
    fc.assert(
      fc.property(scenarioArb, ({ amount, tiers, chain, compression }) => {
        const members = chain.map((m, i) => member(i, m.active));
        const personalSales = (id: string) => chain[Number(id.slice(4))].sales;
        const shares = cascade(amount, tiers, members, { compression, personalSales });
        const total = shares.reduce((sum, s) => sum + BigInt(s.amountKopecks), 0n);
        const allowed = tiers.reduce(
          (sum, t) => sum + (BigInt(amount) * BigInt(t.percent_bp ?? 0)) / 10000n,
          0n,
        );
        expect(total <= allowed).toBe(true);
        const ids = shares.map((s) => s.memberId);
        expect(new Set(ids).size).toBe(ids.length);
        // Tier order follows chain order, each share pays its tier's amount to a member who is
        // active and qualifies for it.
        const positions = shares.map((s) => Number(s.memberId.slice(4)));
        const tierIndexes = shares.map((s) => tierIndex(s.tier));
        for (let k = 1; k < shares.length; k++) {
          expect(positions[k]).toBeGreaterThan(positions[k - 1]);
          expect(tierIndexes[k]).toBeGreaterThan(tierIndexes[k - 1]);
        }
        shares.forEach((s, k) => {
          const tier = tiers[tierIndexes[k]];
          expect(chain[positions[k]].active).toBe(true);
          expect(chain[positions[k]].sales).toBeGreaterThanOrEqual(
            tier.qualify?.min_personal_sales_kopecks ?? 0,
          );
          expect(s.amountKopecks).toBe(tierAmount(amount, tier));
          // Without compression a tier pays only its own position.
          if (!compression) expect(positions[k]).toBe(tierIndexes[k]);
        });
      }),
    );
  });
});
