import { splitPeriod } from './bounty-period';

const at = (iso: string) => new Date(iso);

describe('splitPeriod', () => {
  it.each([
    [
      'whole days only',
      '2026-12-01T00:00:00.000Z',
      '2026-12-08T00:00:00.000Z',
      { from: '2026-12-01', to: '2026-12-08' },
      [],
    ],
    [
      'a part of a day at each end',
      '2026-12-01T10:00:00.000Z',
      '2026-12-08T06:30:00.000Z',
      { from: '2026-12-02', to: '2026-12-08' },
      [
        ['2026-12-01T10:00:00.000Z', '2026-12-02T00:00:00.000Z'],
        ['2026-12-08T00:00:00.000Z', '2026-12-08T06:30:00.000Z'],
      ],
    ],
    [
      'open-ended, from the middle of a day',
      '2026-12-01T10:00:00.000Z',
      null,
      { from: '2026-12-02', to: null },
      [['2026-12-01T10:00:00.000Z', '2026-12-02T00:00:00.000Z']],
    ],
    [
      'within one day',
      '2026-12-01T10:00:00.000Z',
      '2026-12-01T11:00:00.000Z',
      null,
      [['2026-12-01T10:00:00.000Z', '2026-12-01T11:00:00.000Z']],
    ],
    [
      'across one midnight, no whole day',
      '2026-12-01T22:00:00.000Z',
      '2026-12-02T03:00:00.000Z',
      null,
      [['2026-12-01T22:00:00.000Z', '2026-12-02T03:00:00.000Z']],
    ],
  ])('%s', (_name, start, end, days, edges) => {
    const split = splitPeriod(at(start), end === null ? null : at(end));
    expect(split.days).toEqual(days);
    expect(split.edges.map((e) => [e.from.toISOString(), e.to?.toISOString() ?? null])).toEqual(
      edges,
    );
  });
});
