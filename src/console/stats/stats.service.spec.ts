import fc from 'fast-check';
import { DomainError } from '../../common/errors/domain-error';
import { FIRST_DAY, LAST_DAY, MAX_PERIOD_DAYS } from './stats.dto';
import { addDays, dayNumber, dayOf, periodDays, resolvePeriod } from './stats.service';

const refused = (query: { from?: string; to?: string }) => {
  try {
    resolvePeriod(query, Date.parse('2026-11-25T12:00:00Z'));
  } catch (error) {
    return error instanceof DomainError ? error.status : 'other';
  }
  return 'accepted';
};

describe('resolvePeriod', () => {
  it.each([
    [{ to: '9999-12-31' }, 400],
    [{ from: '9999-12-31' }, 400],
    [{ from: '0000-01-01' }, 400],
    [{ to: '0000-01-01' }, 400],
    [{ from: '1999-12-31', to: '2000-01-01' }, 400],
    [{ from: '2100-12-31', to: '2101-01-01' }, 400],
    [{ from: '2024-01-01', to: '2026-01-02' }, 400],
    [{ from: '2024-01-01', to: '2025-12-31' }, 'accepted'],
    [{ from: FIRST_DAY, to: FIRST_DAY }, 'accepted'],
    [{ from: LAST_DAY, to: LAST_DAY }, 'accepted'],
    [{}, 'accepted'],
  ])('%j: %s', (query, expected) => {
    expect(refused(query)).toBe(expected);
  });

  it('keeps a default day inside the range', () => {
    expect(resolvePeriod({ to: '2000-01-05' })).toEqual({ from: FIRST_DAY, to: '2000-01-05' });
    expect(resolvePeriod({ from: '2100-12-30' })).toEqual({ from: '2100-12-30', to: LAST_DAY });
  });

  it('every accepted period is inside the range, in order, and at most MAX_PERIOD_DAYS long', () => {
    const day = fc
      .integer({ min: dayNumber('1990-01-01'), max: dayNumber('2110-12-31') })
      .map((n) => dayOf(n));
    fc.assert(
      fc.property(
        fc.option(day, { nil: undefined }),
        fc.option(day, { nil: undefined }),
        (f, t) => {
          let period;
          try {
            period = resolvePeriod({ from: f, to: t });
          } catch (error) {
            expect(error).toBeInstanceOf(DomainError);
            return;
          }
          expect(period.from >= FIRST_DAY && period.to <= LAST_DAY).toBe(true);
          expect(period.from <= period.to).toBe(true);
          expect(periodDays(period)).toBeLessThanOrEqual(MAX_PERIOD_DAYS);
          expect(addDays(period.from, periodDays(period) - 1)).toBe(period.to);
        },
      ),
    );
  });
});
