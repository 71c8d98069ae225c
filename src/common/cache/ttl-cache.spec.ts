import { TtlCache } from './ttl-cache';

describe('TtlCache', () => {
  afterEach(() => jest.useRealTimers());

  it('returns what was set until the TTL passes, then forgets it', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const cache = new TtlCache<string, number>(1000, 10);
    cache.set('a', 1);
    jest.setSystemTime(1_000_999);
    expect(cache.get('a')).toBe(1);
    jest.setSystemTime(1_001_000);
    expect(cache.get('a')).toBeUndefined();
  });

  it('evicts the entry set longest ago when full; setting again renews an entry', () => {
    const cache = new TtlCache<string, number>(60_000, 2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 3); // a is now the newest
    cache.set('c', 4);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(3);
    expect(cache.get('c')).toBe(4);
  });

  it('keeps nothing with a TTL of 0', () => {
    const cache = new TtlCache<string, number>(0, 10);
    cache.set('a', 1);
    expect(cache.get('a')).toBeUndefined();
  });

  it('deletes by key and by a predicate on the value', () => {
    const cache = new TtlCache<string, { tenant: string }>(60_000, 10);
    cache.set('x', { tenant: 't1' });
    cache.set('y', { tenant: 't2' });
    cache.set('z', { tenant: 't1' });
    cache.deleteWhere((v) => v.tenant === 't1');
    expect([cache.get('x'), cache.get('y'), cache.get('z')]).toEqual([
      undefined,
      { tenant: 't2' },
      undefined,
    ]);
    cache.delete('y');
    expect(cache.get('y')).toBeUndefined();
  });
});
