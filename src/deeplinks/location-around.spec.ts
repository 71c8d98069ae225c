import fc from 'fast-check';
import { encodeLocation } from '../common/pages/send';
import { locationAround, withRef } from './deeplinks.service';

/**
 * A followed short link's `Location` is put together per click from two parts encoded once
 * (locationAround) and the click's ref. It must be the very bytes that encoding the whole target
 * with its ref gives, for any target: query parameters with spaces, non-ASCII, percent signs,
 * braces and fragments included.
 */
describe('locationAround', () => {
  const piece = fc.string({
    unit: fc.constantFrom(...'aZ09-_.~ %{}|^`"<>\\é€ !$\'()*+,;:@/?=&#'.split('')),
    maxLength: 12,
  });
  const target = fc
    .tuple(fc.webUrl({ withQueryParameters: true, withFragments: true }), piece, piece)
    .map(([url, name, value]) => {
      const at = url.indexOf('#');
      const [base, fragment] = at < 0 ? [url, ''] : [url.slice(0, at), url.slice(at)];
      return `${base}${base.includes('?') ? '&' : '?'}${name}=${value}${fragment}`;
    })
    .filter((url) => URL.canParse(url));
  const ref = fc.string({
    unit: fc.constantFrom(...'ABCxyz019-_.'.split('')),
    minLength: 1,
    maxLength: 60,
  });

  it('gives, around any ref, the Location of the whole target with that ref', () => {
    fc.assert(
      fc.property(target, ref, (url, r) => {
        const [before, after] = locationAround(url);
        expect(before + r + after).toBe(encodeLocation(withRef(url, r)));
      }),
      { numRuns: 2_000 },
    );
  });

  it('replaces an existing ref and keeps the other parameters byte for byte', () => {
    const [before, after] = locationAround('https://shop.example/a b?x=%20y&ref=old&é=1#top');
    expect(`${before}R.S${after}`).toBe('https://shop.example/a%20b?x=%20y&%C3%A9=1&ref=R.S#top');
  });
});
