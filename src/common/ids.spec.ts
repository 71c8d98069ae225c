import { decodeTime } from 'ulid';
import { newId, newUlid, reserveUlids, timelessUlid, ulidAt } from './ids';

const ULID_SHAPED = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
/** A random 48-bit time lands within an hour of a given one about once in 40 million. */
const HOUR_MS = 3600 * 1000;

/**
 * docs/security.md: a service user's id is shared by every tenant that has the person, so it
 * must not tell one tenant when another created it. Other ids keep their time-ordered ULIDs.
 */
describe('service user ids (usr_)', () => {
  afterEach(() => jest.useRealTimers());

  it('are ULID-shaped: usr_ and 26 Crockford base32 characters, the first 0–7', () => {
    for (let i = 0; i < 500; i++) {
      const id = newId('serviceUser');
      expect(id).toMatch(/^usr_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(id.slice(4)).toMatch(ULID_SHAPED);
    }
  });

  it('carry no creation time: ids minted at known times decode to unrelated ones', () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
    const start = Date.parse('2026-01-01T00:00:00.000Z');
    const made: { at: number; id: string }[] = [];
    for (let i = 0; i < 50; i++) {
      const at = start + i * 60_000;
      jest.setSystemTime(at);
      made.push({ at, id: newId('serviceUser') });
    }
    // A ULID minted at `at` decodes to `at`; these decode to random times, none near theirs.
    for (const { at, id } of made) {
      expect(Math.abs(decodeTime(id.slice(4)) - at)).toBeGreaterThan(HOUR_MS);
    }
    // Minted a minute apart, in order, they do not sort in that order.
    const sorted = [...made].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(sorted.map((m) => m.at)).not.toEqual(made.map((m) => m.at));
  });

  it('are unique and spread over the whole alphabet', () => {
    const ids = Array.from({ length: 2000 }, () => timelessUlid());
    expect(new Set(ids).size).toBe(ids.length);
    const firsts = new Set(ids.map((id) => id[0]));
    expect([...firsts].sort().join('')).toBe('01234567');
    const seconds = new Set(ids.map((id) => id[1]));
    expect(seconds.size).toBe(32);
  });

  it('leaves the other ids time-ordered ULIDs', () => {
    const before = Date.now();
    const id = newId('member');
    expect(id).toMatch(/^mbr_[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    expect(decodeTime(id.slice(4))).toBeGreaterThanOrEqual(before);
    expect(decodeTime(id.slice(4))).toBeLessThanOrEqual(Date.now());
    expect(newId('lead') < newId('lead')).toBe(true);
  });
});

/**
 * docs/architecture.md, "Ids": a payout run's ids are a block the database makes (`ulidSql`;
 * test/e2e/payouts/payouts-run-events.e2e-spec.ts checks that SQL makes the ids `ulidAt` makes). They
 * must be ULIDs like any other, in the order of k, and sort between the ids made before and after.
 */
describe('blocks of ULIDs (reserveUlids)', () => {
  it('are ULIDs in the order of k, after every id made before and before every id made after', () => {
    const before = newUlid();
    const block = reserveUlids();
    const after = newUlid();
    const ids = Array.from({ length: 1000 }, (_, k) => ulidAt(block, k));
    for (const id of ids) expect(id).toMatch(ULID_SHAPED);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(before < ids[0]).toBe(true);
    // Far beyond any run: the factory has moved past the block's millisecond.
    expect(ulidAt(block, 10_000_000) < after).toBe(true);
    expect(decodeTime(ids[0])).toBeGreaterThanOrEqual(decodeTime(before));
  });

  it("carry from the random part's low half into its high half, as an increment does", () => {
    const block = { time: '01KB000000', hi: 5, lo: 2 ** 40 - 2 };
    expect([0, 1, 2, 3].map((k) => ulidAt(block, k))).toEqual([
      '01KB00000000000005ZZZZZZZY',
      '01KB00000000000005ZZZZZZZZ',
      '01KB0000000000000600000000',
      '01KB0000000000000600000001',
    ]);
  });
});
