import fc from 'fast-check';
import type { ProgramTier } from '../tenants/program';
import { cascade, type CascadeShare, type ChainMember, tierAmount, tierIndex } from './cascade';

/** docs/money.md §5's tier names, written out here rather than taken from the code under test. */
const nameOf = (i: number) => (i === 0 ? 'referrer' : `upline_${i}`);

const member = (i: number, isActive = true): ChainMember => ({
  id: `mbr_${i}`,
  serviceUserId: `usr_${i}`,
  isActive,
});

const percent = (i: number, percent_bp: number): ProgramTier => ({
  tier: nameOf(i),
  percent_bp,
});
const fixed = (i: number, fixed_kopecks: number): ProgramTier => ({
  tier: nameOf(i),
  fixed_kopecks,
});

/** floor(amount × bp / 10000) in exact integer arithmetic. */
const exactShare = (amount: number, bp: number) => Number((BigInt(amount) * BigInt(bp)) / 10000n);

const amountArb = fc.integer({ min: 1, max: 1_000_000_000_000 });

/** 1..21 percent tiers (referrer + up to 20 uplines) whose basis points add up to at most 10000. */
const percentTiersArb = fc
  .array(fc.integer({ min: 0, max: 10000 }), { minLength: 1, maxLength: 21 })
  .map((bps) => {
    const sum = bps.reduce((a, b) => a + b, 0);
    const scaled = sum > 10000 ? bps.map((bp) => Math.floor((bp * 10000) / sum)) : bps;
    return scaled.map((bp, i) => percent(i, bp));
  });

/** Up to 21 tiers, each a percentage or a fixed amount. */
const mixedTiersArb = fc
  .array(
    fc.oneof(
      fc.record({ percent_bp: fc.integer({ min: 0, max: 10000 }) }),
      fc.record({ fixed_kopecks: fc.integer({ min: 0, max: 10_000_000 }) }),
    ),
    { minLength: 1, maxLength: 21 },
  )
  .map((tiers) =>
    tiers.map((t, i) => ('percent_bp' in t ? percent(i, t.percent_bp) : fixed(i, t.fixed_kopecks))),
  );

const chainArb = fc
  .array(fc.boolean(), { minLength: 0, maxLength: 25 })
  .map((flags) => flags.map((active, i) => member(i, active)));

/** What docs/money.md §5 says the cascade is, written independently with BigInt. */
function expectedShares(amount: number, tiers: ProgramTier[], chain: ChainMember[]) {
  const out: CascadeShare[] = [];
  for (let i = 0; i < Math.min(tiers.length, chain.length); i++) {
    const tier = tiers[i];
    const value =
      tier.percent_bp !== undefined ? exactShare(amount, tier.percent_bp) : tier.fixed_kopecks;
    if (!chain[i].isActive || value === 0) continue;
    out.push({
      memberId: chain[i].id,
      serviceUserId: chain[i].serviceUserId,
      tier: nameOf(i),
      amountKopecks: value,
      compressedFrom: null,
    });
  }
  return out;
}

describe('tierAmount', () => {
  it.each([
    [123_457, 1000, 12_345],
    [123_457, 300, 3_703],
    [1, 9999, 0],
    [10_000, 1, 1],
    [9_999, 1, 0],
    [100, 10000, 100],
    [100, 0, 0],
    [1_000_000_000_000, 3333, 333_300_000_000],
    [999_999_999_999, 1, 99_999_999],
  ])('%d kopecks × %d bp = %d', (amount, bp, expected) => {
    expect(tierAmount(amount, { tier: 'referrer', percent_bp: bp })).toBe(expected);
  });

  it('is exact where floating point is not (near Number.MAX_SAFE_INTEGER)', () => {
    const amount = Number.MAX_SAFE_INTEGER;
    // amount × 3 overflows 2^53, so float maths would round; the exact answer is floor(…/10000).
    expect(tierAmount(amount, { tier: 'referrer', percent_bp: 3 })).toBe(
      Number((BigInt(amount) * 3n) / 10000n),
    );
    expect(tierAmount(amount, { tier: 'referrer', percent_bp: 10000 })).toBe(amount);
  });

  it('pays a fixed tier its amount whatever the conversion amount', () => {
    expect(tierAmount(1, { tier: 'upline_2', fixed_kopecks: 5000 })).toBe(5000);
    expect(tierAmount(1_000_000, { tier: 'upline_2', fixed_kopecks: 5000 })).toBe(5000);
    expect(tierAmount(77, { tier: 'upline_2', fixed_kopecks: 0 })).toBe(0);
  });

  it('equals floor(amount × bp / 10000) for any amount and bp (checked with BigInt)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 0, max: 10000 }),
        (amount, bp) => {
          const got = tierAmount(amount, { tier: 'referrer', percent_bp: bp });
          expect(Number.isSafeInteger(got)).toBe(true);
          expect(BigInt(got)).toBe((BigInt(amount) * BigInt(bp)) / 10000n);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('tierIndex', () => {
  it('maps tier names back to chain positions', () => {
    expect(tierIndex('referrer')).toBe(0);
    for (let i = 1; i <= 20; i++) expect(tierIndex(`upline_${i}`)).toBe(i);
  });

  it('sorts tier names in chain order (upline_10 after upline_9, not after upline_1)', () => {
    const names = Array.from({ length: 21 }, (_, i) => nameOf(i));
    const shuffled = [...names].reverse();
    expect(shuffled.sort((a, b) => tierIndex(a) - tierIndex(b))).toEqual(names);
  });
});

describe('cascade (hand-computed)', () => {
  const tiers = [percent(0, 1000), percent(1, 300), fixed(2, 5000)];

  it('pays the referrer 10 %, upline_1 3 % (floored) and upline_2 its fixed amount', () => {
    expect(cascade(123_457, tiers, [member(0), member(1), member(2)])).toEqual([
      {
        memberId: 'mbr_0',
        serviceUserId: 'usr_0',
        tier: 'referrer',
        amountKopecks: 12_345,
        compressedFrom: null,
      },
      {
        memberId: 'mbr_1',
        serviceUserId: 'usr_1',
        tier: 'upline_1',
        amountKopecks: 3_703,
        compressedFrom: null,
      },
      {
        memberId: 'mbr_2',
        serviceUserId: 'usr_2',
        tier: 'upline_2',
        amountKopecks: 5_000,
        compressedFrom: null,
      },
    ]);
  });

  it('skips a deactivated upline without passing its share on', () => {
    expect(cascade(100_000, tiers, [member(0), member(1, false), member(2)])).toEqual([
      {
        memberId: 'mbr_0',
        serviceUserId: 'usr_0',
        tier: 'referrer',
        amountKopecks: 10_000,
        compressedFrom: null,
      },
      {
        memberId: 'mbr_2',
        serviceUserId: 'usr_2',
        tier: 'upline_2',
        amountKopecks: 5_000,
        compressedFrom: null,
      },
    ]);
  });

  it('stops where the network ends', () => {
    expect(cascade(100_000, tiers, [member(0)])).toEqual([
      {
        memberId: 'mbr_0',
        serviceUserId: 'usr_0',
        tier: 'referrer',
        amountKopecks: 10_000,
        compressedFrom: null,
      },
    ]);
    expect(cascade(100_000, tiers, [])).toEqual([]);
  });

  it('ignores chain members beyond the last tier', () => {
    const chain = Array.from({ length: 10 }, (_, i) => member(i));
    expect(cascade(100_000, tiers, chain).map((s) => s.tier)).toEqual([
      'referrer',
      'upline_1',
      'upline_2',
    ]);
  });

  it('creates no share when a percentage rounds down to 0', () => {
    // 9 kopecks × 10 % = 0.9 → 0; 9 × 3 % = 0.27 → 0; the fixed tier still pays.
    expect(cascade(9, tiers, [member(0), member(1), member(2)])).toEqual([
      {
        memberId: 'mbr_2',
        serviceUserId: 'usr_2',
        tier: 'upline_2',
        amountKopecks: 5_000,
        compressedFrom: null,
      },
    ]);
  });

  it('names deep tiers upline_N up to upline_20', () => {
    const deep = Array.from({ length: 21 }, (_, i) => percent(i, 100));
    const chain = Array.from({ length: 21 }, (_, i) => member(i));
    const shares = cascade(1_000_000, deep, chain);
    expect(shares).toHaveLength(21);
    expect(shares[20]).toEqual({
      memberId: 'mbr_20',
      serviceUserId: 'usr_20',
      tier: 'upline_20',
      amountKopecks: 10_000,
      compressedFrom: null,
    });
  });
});

describe('cascade (properties)', () => {
  it('matches docs/money.md §5 for percent tiers, and never pays out more than the amount', () => {
    fc.assert(
      fc.property(amountArb, percentTiersArb, chainArb, (amount, tiers, chain) => {
        const shares = cascade(amount, tiers, chain);
        expect(shares).toEqual(expectedShares(amount, tiers, chain));
        const total = shares.reduce((sum, s) => sum + BigInt(s.amountKopecks), 0n);
        expect(total <= BigInt(amount)).toBe(true);
        for (const share of shares) {
          const i = tierIndex(share.tier);
          expect(share.tier).toBe(nameOf(i));
          expect(share.memberId).toBe(chain[i].id);
          expect(BigInt(share.amountKopecks)).toBe(
            (BigInt(amount) * BigInt(tiers[i].percent_bp!)) / 10000n,
          );
          expect(share.amountKopecks).toBeGreaterThan(0);
          expect(chain[i].isActive).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('gives shares in chain order, at most one per tier and never past the chain or tiers', () => {
    fc.assert(
      fc.property(amountArb, mixedTiersArb, chainArb, (amount, tiers, chain) => {
        const shares = cascade(amount, tiers, chain);
        const positions = shares.map((s) => tierIndex(s.tier));
        expect(positions).toEqual([...positions].sort((a, b) => a - b));
        expect(new Set(positions).size).toBe(positions.length);
        for (const p of positions) {
          expect(p).toBeLessThan(Math.min(tiers.length, chain.length));
        }
        expect(shares.length).toBeLessThanOrEqual(Math.min(tiers.length, chain.length));
      }),
      { numRuns: 500 },
    );
  });

  it('pays fixed tiers their fixed amount and percent tiers their floor, mixed freely', () => {
    fc.assert(
      fc.property(amountArb, mixedTiersArb, chainArb, (amount, tiers, chain) => {
        expect(cascade(amount, tiers, chain)).toEqual(expectedShares(amount, tiers, chain));
      }),
      { numRuns: 500 },
    );
  });

  it('deactivating one member removes only its share and shifts nothing to anyone else', () => {
    fc.assert(
      fc.property(
        amountArb,
        mixedTiersArb,
        fc.integer({ min: 1, max: 25 }),
        fc.nat(),
        (amount, tiers, length, pick) => {
          const chain = Array.from({ length }, (_, i) => member(i));
          const off = pick % length;
          const withAll = cascade(amount, tiers, chain);
          const without = cascade(
            amount,
            tiers,
            chain.map((m, i) => (i === off ? { ...m, isActive: false } : m)),
          );
          expect(without).toEqual(withAll.filter((s) => s.memberId !== member(off).id));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a zero tier pays nobody and leaves the other tiers unchanged', () => {
    fc.assert(
      fc.property(amountArb, percentTiersArb, chainArb, fc.nat(), (amount, tiers, chain, pick) => {
        const zeroed = pick % tiers.length;
        const withZero = tiers.map((t, i) => (i === zeroed ? percent(i, 0) : t));
        const shares = cascade(amount, withZero, chain);
        expect(shares.find((s) => s.tier === nameOf(zeroed))).toBeUndefined();
        expect(shares).toEqual(
          cascade(amount, tiers, chain).filter((s) => s.tier !== nameOf(zeroed)),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('a chain shorter than the tiers stops early: only its members are paid', () => {
    fc.assert(
      fc.property(amountArb, percentTiersArb, chainArb, (amount, tiers, chain) => {
        const short = chain.slice(0, Math.max(0, tiers.length - 1));
        const shares = cascade(amount, tiers, short);
        for (const s of shares) expect(short.map((m) => m.id)).toContain(s.memberId);
        expect(shares).toEqual(
          cascade(amount, tiers, chain).filter((s) => tierIndex(s.tier) < short.length),
        );
      }),
      { numRuns: 500 },
    );
  });
});
