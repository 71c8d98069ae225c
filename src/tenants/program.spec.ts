import fc from 'fast-check';
import {
  DEFAULT_PROGRAM,
  MAX_UPLINE_TIERS,
  type ProgramTier,
  tierErrors,
  phaseErrors,
  programPhases,
  maxTierCount,
  tierName,
  withProgramDefaults,
} from './program';

/** referrer, upline_1 … upline_{n-1}, each paying `percent_bp`. */
function percentTiers(...percents: number[]): ProgramTier[] {
  return percents.map((percent_bp, i) => ({ tier: tierName(i), percent_bp }));
}

describe('tierName', () => {
  it.each([
    [0, 'referrer'],
    [1, 'upline_1'],
    [2, 'upline_2'],
    [20, 'upline_20'],
  ])('names chain position %i %s', (index, name) => {
    expect(tierName(index)).toBe(name);
  });
});

describe('tierErrors', () => {
  it('accepts the default program', () => {
    expect(tierErrors(DEFAULT_PROGRAM.tiers!)).toEqual([]);
  });

  it('accepts referrer alone, fixed amounts, and percentages adding up to exactly 10000', () => {
    expect(tierErrors(percentTiers(10000))).toEqual([]);
    expect(tierErrors(percentTiers(5000, 3000, 2000))).toEqual([]);
    expect(
      tierErrors([
        { tier: 'referrer', fixed_kopecks: 0 },
        { tier: 'upline_1', fixed_kopecks: 5000 },
      ]),
    ).toEqual([]);
  });

  it('accepts 21 tiers (referrer and 20 uplines) and refuses 22', () => {
    const max = percentTiers(...Array<number>(MAX_UPLINE_TIERS + 1).fill(100));
    expect(max).toHaveLength(21);
    expect(tierErrors(max)).toEqual([]);
    const tooMany = percentTiers(...Array<number>(MAX_UPLINE_TIERS + 2).fill(100));
    expect(tierErrors(tooMany)).toContainEqual({
      field: 'program.tiers',
      message: expect.stringMatching(/at most 21/),
    });
  });

  it('refuses an empty list', () => {
    expect(tierErrors([])).toEqual([{ field: 'program.tiers', message: expect.any(String) }]);
  });

  it('refuses a list that does not start with referrer', () => {
    const errors = tierErrors([{ tier: 'upline_1', percent_bp: 100 }]);
    expect(errors).toEqual([
      { field: 'program.tiers.0.tier', message: expect.stringContaining('"referrer"') },
    ]);
  });

  it('refuses uplines out of order or skipped', () => {
    const swapped = tierErrors([
      { tier: 'referrer', percent_bp: 100 },
      { tier: 'upline_2', percent_bp: 100 },
      { tier: 'upline_1', percent_bp: 100 },
    ]);
    expect(swapped.map((e) => e.field)).toEqual(['program.tiers.1.tier', 'program.tiers.2.tier']);
    const skipped = tierErrors([
      { tier: 'referrer', percent_bp: 100 },
      { tier: 'upline_2', percent_bp: 100 },
    ]);
    expect(skipped.map((e) => e.field)).toEqual(['program.tiers.1.tier']);
    const repeated = tierErrors([
      { tier: 'referrer', percent_bp: 100 },
      { tier: 'referrer', percent_bp: 100 },
    ]);
    expect(repeated.map((e) => e.field)).toEqual(['program.tiers.1.tier']);
  });

  it('refuses a tier with both percent_bp and fixed_kopecks', () => {
    const both = {
      tier: 'referrer',
      percent_bp: 100,
      fixed_kopecks: 100,
    } as unknown as ProgramTier;
    expect(tierErrors([both])).toEqual([
      { field: 'program.tiers.0', message: expect.stringMatching(/exactly one/) },
    ]);
  });

  it('refuses a tier with neither percent_bp nor fixed_kopecks', () => {
    expect(tierErrors([{ tier: 'referrer' }])).toEqual([
      { field: 'program.tiers.0', message: expect.stringMatching(/exactly one/) },
    ]);
  });

  it('treats a null amount as absent: {percent_bp: null} alone is a tier with neither', () => {
    // JSON has no undefined: a client that sends `"percent_bp": null` has given no amount.
    const nullPercent = { tier: 'referrer', percent_bp: null } as unknown as ProgramTier;
    expect(tierErrors([nullPercent])).toContainEqual({
      field: 'program.tiers.0',
      message: expect.stringMatching(/exactly one/),
    });
  });

  it('refuses percentages adding up to more than 10000, counting only percent tiers', () => {
    expect(tierErrors(percentTiers(6000, 4001))).toEqual([
      { field: 'program.tiers', message: expect.stringMatching(/10000/) },
    ]);
    expect(
      tierErrors([
        { tier: 'referrer', percent_bp: 10000 },
        { tier: 'upline_1', fixed_kopecks: 1_000_000 },
      ]),
    ).toEqual([]);
  });

  it('names fields under the prefix it is given', () => {
    expect(tierErrors([{ tier: 'upline_1', percent_bp: 1 }], 'tiers')).toEqual([
      { field: 'tiers.0.tier', message: expect.any(String) },
    ]);
  });

  it('property: referrer, upline_1 … upline_k (k ≤ 20) with percents summing ≤ 10000 is valid', () => {
    const tierSpec = fc.record({
      fixed: fc.boolean(),
      weight: fc.nat({ max: 10000 }),
      kopecks: fc.nat({ max: 1_000_000_000 }),
    });
    fc.assert(
      fc.property(
        fc.array(tierSpec, { minLength: 1, maxLength: MAX_UPLINE_TIERS + 1 }),
        fc.nat({ max: 10000 }),
        (specs, budget) => {
          const weights = specs.filter((s) => !s.fixed).reduce((sum, s) => sum + s.weight, 0);
          const tiers: ProgramTier[] = specs.map((s, i) =>
            s.fixed
              ? { tier: tierName(i), fixed_kopecks: s.kopecks }
              : {
                  tier: tierName(i),
                  // Scaled down with floor, so that the percentages add up to at most `budget`.
                  percent_bp: weights === 0 ? 0 : Math.floor((s.weight * budget) / weights),
                },
          );
          const sum = tiers.reduce((acc, t) => acc + (t.percent_bp ?? 0), 0);
          expect(sum).toBeLessThanOrEqual(10000);
          expect(tierErrors(tiers)).toEqual([]);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('property: percentages summing over 10000 always give an error on the list', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 10000 }), {
          minLength: 2,
          maxLength: MAX_UPLINE_TIERS + 1,
        }),
        (percents) => {
          fc.pre(percents.reduce((a, b) => a + b, 0) > 10000);
          expect(tierErrors(percentTiers(...percents))).toContainEqual({
            field: 'program.tiers',
            message: expect.stringMatching(/10000/),
          });
        },
      ),
    );
  });
});

describe('withProgramDefaults', () => {
  it('gives docs/money.md §2 defaults when nothing is sent', () => {
    const expected = {
      lead_bonus_kopecks: 0,
      tiers: [
        { tier: 'referrer', percent_bp: 1000 },
        { tier: 'upline_1', percent_bp: 300 },
      ],
      grace_period_hours: 336,
    };
    expect(withProgramDefaults()).toEqual(expected);
    expect(withProgramDefaults({})).toEqual(expected);
  });

  it('fills only the omitted fields', () => {
    expect(withProgramDefaults({ grace_period_hours: 0 })).toEqual({
      lead_bonus_kopecks: 0,
      tiers: DEFAULT_PROGRAM.tiers,
      grace_period_hours: 0,
    });
    expect(withProgramDefaults({ lead_bonus_kopecks: 5000 })).toMatchObject({
      lead_bonus_kopecks: 5000,
      grace_period_hours: 336,
    });
    expect(withProgramDefaults({ tiers: [{ tier: 'referrer', fixed_kopecks: 7000 }] })).toEqual({
      lead_bonus_kopecks: 0,
      tiers: [{ tier: 'referrer', fixed_kopecks: 7000 }],
      grace_period_hours: 336,
    });
  });

  it('keeps zero values instead of replacing them with defaults', () => {
    expect(
      withProgramDefaults({
        lead_bonus_kopecks: 0,
        grace_period_hours: 0,
        tiers: [{ tier: 'referrer', percent_bp: 0 }],
      }),
    ).toEqual({
      lead_bonus_kopecks: 0,
      tiers: [{ tier: 'referrer', percent_bp: 0 }],
      grace_period_hours: 0,
    });
  });

  it('keeps exactly one amount per tier and no stray keys', () => {
    const program = withProgramDefaults({
      tiers: [
        { tier: 'referrer', percent_bp: 1000 },
        { tier: 'upline_1', fixed_kopecks: 5000 },
      ],
    });
    expect(program.tiers!.map((t) => Object.keys(t).sort())).toEqual([
      ['percent_bp', 'tier'],
      ['fixed_kopecks', 'tier'],
    ]);
  });

  it('returns a fresh program: changing it never changes the defaults', () => {
    const program = withProgramDefaults();
    program.tiers!.push({ tier: 'upline_2', percent_bp: 1 });
    (program.tiers![0] as { percent_bp: number }).percent_bp = 1;
    expect(DEFAULT_PROGRAM.tiers).toEqual([
      { tier: 'referrer', percent_bp: 1000 },
      { tier: 'upline_1', percent_bp: 300 },
    ]);
    expect(withProgramDefaults().tiers).toHaveLength(2);
  });
});

describe('phases', () => {
  const phase = (extra: object, percent = 1000) => ({
    ...extra,
    tiers: [{ tier: 'referrer', percent_bp: percent }],
  });

  it('accepts "25 % for 12 months, then 10 %" and keeps it as given, without tiers', () => {
    const phases = [phase({ months: 12 }, 2500), phase({})];
    expect(phaseErrors(phases)).toEqual([]);
    const program = withProgramDefaults({ phases });
    expect(program).toEqual({ lead_bonus_kopecks: 0, phases, grace_period_hours: 336 });
    expect('tiers' in program).toBe(false);
    expect(programPhases(program)).toBe(program.phases);
    expect(programPhases(withProgramDefaults())).toEqual([{ tiers: DEFAULT_PROGRAM.tiers }]);
  });

  it('needs a limit on every phase but the last, at most one limit per phase, and valid tiers', () => {
    expect(phaseErrors([])).toEqual([{ field: 'program.phases', message: expect.any(String) }]);
    expect(phaseErrors([phase({}), phase({})])).toEqual([
      { field: 'program.phases.0', message: expect.stringContaining('months or conversions') },
    ]);
    expect(phaseErrors([phase({ months: 1, conversions: 2 })])).toEqual([
      { field: 'program.phases.0', message: expect.stringContaining('at most one') },
    ]);
    expect(phaseErrors([phase({ months: 0 })], 'phases')).toEqual([
      { field: 'phases.0.months', message: expect.any(String) },
    ]);
    expect(phaseErrors([phase({ conversions: 3 }, 10001)], 'phases')).toContainEqual({
      field: 'phases.0.tiers',
      message: expect.stringContaining('10000'),
    });
  });

  it('looks as far up the chain as the phase with the most tiers', () => {
    const program = withProgramDefaults({
      phases: [
        { months: 1, tiers: [{ tier: 'referrer', percent_bp: 1000 }] },
        {
          tiers: [
            { tier: 'referrer', percent_bp: 500 },
            { tier: 'upline_1', percent_bp: 200 },
            { tier: 'upline_2', percent_bp: 100 },
          ],
        },
      ],
    });
    expect(maxTierCount(program)).toBe(3);
    expect(maxTierCount(withProgramDefaults())).toBe(2);
  });
});
