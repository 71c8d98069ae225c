import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import fc from 'fast-check';
import { IsInstant, IsNotBefore, parseInstant } from './instant';

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

/** `at` written with an offset of `minutes` east of UTC: the same instant, other wall clock. */
function withOffset(at: Date, minutes: number): string {
  const wall = new Date(at.getTime() + minutes * 60_000).toISOString().slice(0, 23);
  const sign = minutes < 0 ? '-' : '+';
  return `${wall}${sign}${pad(Math.trunc(minutes / 60))}:${pad(minutes % 60)}`;
}

describe('parseInstant', () => {
  const instant = fc
    .integer({ min: Date.UTC(1000, 0, 2), max: Date.UTC(9999, 11, 30) })
    .map((ms) => new Date(ms));

  it('reads every toISOString() as the instant it names', () => {
    fc.assert(
      fc.property(instant, (at) => {
        expect(parseInstant(at.toISOString())?.getTime()).toBe(at.getTime());
      }),
      { numRuns: 2000 },
    );
  });

  it('reads an offset as the instant it names, whatever the offset', () => {
    fc.assert(
      fc.property(instant, fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }), (at, minutes) => {
        expect(parseInstant(withOffset(at, minutes))?.getTime()).toBe(at.getTime());
      }),
      { numRuns: 2000 },
    );
  });

  it('takes a day as its 00:00 UTC and a time without zone as UTC, fractions as milliseconds', () => {
    expect(parseInstant('2026-11-01')?.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(parseInstant('2026-11-01T10:20')?.toISOString()).toBe('2026-11-01T10:20:00.000Z');
    expect(parseInstant('2026-11-01T10:20:30')?.toISOString()).toBe('2026-11-01T10:20:30.000Z');
    expect(parseInstant('2026-11-01T10:20:30.5')?.toISOString()).toBe('2026-11-01T10:20:30.500Z');
    expect(parseInstant('2026-11-01T10:20:30.05Z')?.toISOString()).toBe('2026-11-01T10:20:30.050Z');
    expect(parseInstant('2026-11-01T00:30+01:00')?.toISOString()).toBe('2026-10-31T23:30:00.000Z');
    expect(parseInstant('2024-02-29')?.toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect(parseInstant('1000-01-01')?.toISOString()).toBe('1000-01-01T00:00:00.000Z');
  });

  it('refuses what it cannot read as one instant', () => {
    for (const bad of [
      '2026-02-29',
      '2026-02-30',
      '2026-04-31',
      '2026-00-10',
      '2026-13-01',
      '2026-11-00',
      '2026-11-01T24:00',
      '2026-11-01T10:60',
      '2026-11-01T10:00:60',
      '2026-11-01T10',
      '2026-11-01T10:00:00.1234',
      '2026-11-01T10:00:00.',
      '2026-11-01T10:00+3',
      '2026-11-01T10:00+0300',
      '2026-11-01T10:00+24:00',
      '2026-11-01T10:00+01:60',
      '2026-11-01Z',
      '2026-11-01t10:00z',
      '2026-11-01 10:00',
      '2026-W45',
      '2026-W45-1',
      '2026-305',
      '20261101',
      '2026-11',
      '0999-12-31',
      '+002026-11-01',
      ' 2026-11-01',
      '2026-11-01\n',
      '',
    ]) {
      expect({ bad, at: parseInstant(bad) }).toEqual({ bad, at: undefined });
    }
    for (const notString of [undefined, null, 1_700_000_000_000, new Date(), ['2026-11-01']]) {
      expect(parseInstant(notString)).toBeUndefined();
    }
  });
});

class Window {
  @IsInstant() from: string;
  @IsInstant() @IsNotBefore('from') to: string;
}
const errors = (plain: Record<string, unknown>) =>
  validateSync(plainToInstance(Window, plain)).map((e) => [
    e.property,
    Object.values(e.constraints ?? {}),
  ]);

describe('IsInstant and IsNotBefore', () => {
  it('let an empty or a forward window through and name the field of a backward one', () => {
    expect(errors({ from: '2026-11-01', to: '2026-12-01' })).toEqual([]);
    expect(errors({ from: '2026-11-01', to: '2026-11-01T00:00:00.000Z' })).toEqual([]);
    expect(errors({ from: '2026-11-01T00:00:00.001Z', to: '2026-11-01' })).toEqual([
      ['to', ['must not be before from']],
    ]);
    expect(errors({ from: 'nonsense', to: '2026-11-01' })).toEqual([
      ['from', [expect.stringMatching(/^must be an instant: YYYY-MM-DD/)]],
    ]);
  });
});
