import fc from 'fast-check';
import type { ProgramPhase, ProgramTier } from '../tenants/program';
import { addMonths, phaseOf } from './phases';

const tiers = (percent: number): ProgramTier[] => [{ tier: 'referrer', percent_bp: percent }];
const at = (iso: string) => new Date(iso);

describe('addMonths', () => {
  it('keeps the day and time of day, and clamps the day to the end of a shorter month', () => {
    expect(addMonths(at('2026-01-15T10:30:00Z'), 1)).toEqual(at('2026-02-15T10:30:00Z'));
    expect(addMonths(at('2026-01-31T23:00:00Z'), 1)).toEqual(at('2026-02-28T23:00:00Z'));
    expect(addMonths(at('2028-01-31T00:00:00Z'), 1)).toEqual(at('2028-02-29T00:00:00Z'));
    expect(addMonths(at('2026-03-31T00:00:00Z'), 12)).toEqual(at('2027-03-31T00:00:00Z'));
    expect(addMonths(at('2026-11-30T00:00:00Z'), 3)).toEqual(at('2027-02-28T00:00:00Z'));
  });
});

describe('phaseOf', () => {
  const monthsThenForever: ProgramPhase[] = [
    { months: 12, tiers: tiers(2500) },
    { tiers: tiers(1000) },
  ];

  it('pays phase 1 for twelve calendar months from the first conversion, then phase 2 for ever', () => {
    const first = at('2026-01-31T12:00:00Z');
    expect(phaseOf(monthsThenForever, [], first)?.number).toBe(1);
    expect(phaseOf(monthsThenForever, [first], at('2027-01-31T11:59:59Z'))?.number).toBe(1);
    expect(phaseOf(monthsThenForever, [first], at('2027-01-31T12:00:00Z'))?.number).toBe(2);
    expect(phaseOf(monthsThenForever, [first], at('2040-01-01T00:00:00Z'))?.number).toBe(2);
  });

  it('says which calendar month or which conversion of a limited phase a conversion is', () => {
    const first = at('2026-01-31T12:00:00Z');
    expect(phaseOf(monthsThenForever, [], first)?.position).toBe(1);
    expect(phaseOf(monthsThenForever, [first], at('2026-02-28T11:59:59Z'))?.position).toBe(1);
    expect(phaseOf(monthsThenForever, [first], at('2026-02-28T12:00:00Z'))?.position).toBe(2);
    expect(phaseOf(monthsThenForever, [first], at('2027-01-30T00:00:00Z'))?.position).toBe(12);
    expect(
      phaseOf(monthsThenForever, [first], at('2027-02-01T00:00:00Z'))?.position,
    ).toBeUndefined();
    const counted: ProgramPhase[] = [{ conversions: 3, tiers: tiers(3000) }, { tiers: tiers(1) }];
    const t = [at('2026-01-01Z'), at('2026-02-01Z'), at('2026-03-01Z')];
    expect(phaseOf(counted, t.slice(0, 2), t[2])).toMatchObject({ number: 1, position: 3 });
  });

  it('counts conversions in registration order, reversed ones included, and ends after a limited last phase', () => {
    const phases: ProgramPhase[] = [
      { conversions: 2, tiers: tiers(3000) },
      { conversions: 1, tiers: tiers(1000) },
    ];
    const t = [at('2026-01-01Z'), at('2026-02-01Z'), at('2026-03-01Z')];
    expect(phaseOf(phases, [], t[0])?.number).toBe(1);
    expect(phaseOf(phases, t.slice(0, 1), t[1])?.number).toBe(1);
    expect(phaseOf(phases, t.slice(0, 2), t[2])?.number).toBe(2);
    expect(phaseOf(phases, t, at('2026-04-01Z'))).toBeNull();
  });

  it('starts a months phase after a conversions phase at the first conversion it pays', () => {
    const phases: ProgramPhase[] = [
      { conversions: 1, tiers: tiers(5000) },
      { months: 1, tiers: tiers(2000) },
      { tiers: tiers(500) },
    ];
    const first = at('2026-01-01Z');
    const second = at('2026-06-10Z');
    expect(phaseOf(phases, [first], second)?.number).toBe(2);
    expect(phaseOf(phases, [first, second], at('2026-07-09Z'))?.number).toBe(2);
    expect(phaseOf(phases, [first, second], at('2026-07-10Z'))?.number).toBe(3);
  });

  it('starts a conversions phase after a months phase with the first conversion past its end', () => {
    const phases: ProgramPhase[] = [
      { months: 1, tiers: tiers(5000) },
      { conversions: 2, tiers: tiers(2000) },
    ];
    const early = [at('2026-01-01Z'), at('2026-01-20Z')];
    expect(phaseOf(phases, early, at('2026-02-05Z'))?.number).toBe(2);
    expect(phaseOf(phases, [...early, at('2026-02-05Z')], at('2026-03-01Z'))?.number).toBe(2);
    expect(
      phaseOf(phases, [...early, at('2026-02-05Z'), at('2026-03-01Z')], at('2026-03-02Z')),
    ).toBeNull();
  });

  it('for a conversions-only program, conversion k (0-based) is paid by the phase its running count falls in', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 30 }),
        (counts, forever, k) => {
          const phases: ProgramPhase[] = counts.map((conversions) => ({
            conversions,
            tiers: tiers(100),
          }));
          if (forever) phases.push({ tiers: tiers(100) });
          const earlier = Array.from({ length: k }, (_, i) => new Date(Date.UTC(2026, 0, 1 + i)));
          const choice = phaseOf(phases, earlier, new Date(Date.UTC(2026, 0, 1 + k)));
          let covered = 0;
          let expected: number | null = forever ? phases.length : null;
          for (const [i, c] of counts.entries()) {
            if (k < covered + c) {
              expected = i + 1;
              break;
            }
            covered += c;
          }
          expect(choice?.number ?? null).toBe(expected);
        },
      ),
    );
  });
});
