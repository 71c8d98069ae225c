import { canConvert, canRequestTransition, statusesAllowingTransitionTo } from './lead-transitions';
import { LEAD_STATUSES, type LeadStatus } from './lead.entity';

/**
 * docs/money.md: a status request may move `new → processed`, `new → rejected`, `processed →
 * rejected`;
 * `converted` is reached only by a conversion; `converted` and `rejected` are final.
 */
const ALLOWED: readonly (readonly [LeadStatus, LeadStatus])[] = [
  ['new', 'processed'],
  ['new', 'rejected'],
  ['processed', 'rejected'],
];

const allowed = (from: LeadStatus, to: LeadStatus) =>
  ALLOWED.some(([f, t]) => f === from && t === to);

const pairs = LEAD_STATUSES.flatMap((from) => LEAD_STATUSES.map((to) => [from, to] as const));

describe('lead status transitions (docs/money.md)', () => {
  it('knows exactly the four statuses', () => {
    expect([...LEAD_STATUSES].sort()).toEqual(['converted', 'new', 'processed', 'rejected']);
  });

  it('covers all 16 (from, to) pairs', () => {
    expect(pairs).toHaveLength(16);
  });

  it.each(pairs)('%s → %s by request: as the table says', (from, to) => {
    expect(canRequestTransition(from, to)).toBe(allowed(from, to));
  });

  it.each(LEAD_STATUSES)('a request never moves a lead to converted (from %s)', (from) => {
    expect(canRequestTransition(from, 'converted')).toBe(false);
  });

  it.each(['converted', 'rejected'] as const)('%s is final for requests', (from) => {
    for (const to of LEAD_STATUSES) expect(canRequestTransition(from, to)).toBe(false);
  });

  it.each(LEAD_STATUSES)('no status "moves" to itself (%s)', (status) => {
    expect(canRequestTransition(status, status)).toBe(false);
  });

  it.each(LEAD_STATUSES)(
    'statusesAllowingTransitionTo(%s) lists exactly the allowed sources',
    (to) => {
      const expected = LEAD_STATUSES.filter((from) => allowed(from, to));
      expect([...statusesAllowingTransitionTo(to)].sort()).toEqual([...expected].sort());
    },
  );

  it('statusesAllowingTransitionTo agrees with canRequestTransition for every pair', () => {
    for (const [from, to] of pairs) {
      expect(statusesAllowingTransitionTo(to).includes(from)).toBe(canRequestTransition(from, to));
    }
  });

  it.each([
    ['new', true],
    ['processed', true],
    ['converted', true],
    ['rejected', false],
  ] as const)('a conversion may be registered for a %s lead: %s', (status, expected) => {
    // Repeat orders convert an already converted lead again; a rejected lead converts no more.
    expect(canConvert(status)).toBe(expected);
  });
});
