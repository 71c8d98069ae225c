import { Utf8Lines } from './csv-body';

/** Feeds `bytes` to a checker in `size`-byte chunks; answers the bad line or undefined. */
function check(bytes: Buffer, size: number): number | undefined {
  const utf8 = new Utf8Lines();
  for (let at = 0; at < bytes.length; at += size) {
    const bad = utf8.check(bytes.subarray(at, at + size));
    if (bad !== undefined) return bad;
  }
  return utf8.end();
}

describe('Utf8Lines', () => {
  const good = Buffer.from('payout_id,reference\r\np1,€ ✓ 😀 Jörg\n\np2,ok\n');
  it.each([1, 2, 3, 5, 64])('takes UTF-8 cut into %i-byte chunks', (size) => {
    expect(check(good, size)).toBeUndefined();
  });

  it.each([
    ['a lone continuation byte', [0x80]],
    ['a byte no character starts with', [0xff]],
    ['an overlong form', [0xc0, 0xaf]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
    ['a code point over U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['a character cut short', [0xe2, 0x82, 0x41]],
  ])('names the line of %s', (_, bad) => {
    const bytes = Buffer.concat([Buffer.from('h\n\nx,'), Buffer.from(bad), Buffer.from('\ny\n')]);
    for (const size of [1, 2, 4, 100]) expect(check(bytes, size)).toBe(3);
  });

  it('refuses a character the body ends in the middle of', () => {
    expect(check(Buffer.from([0x61, 0x0a, 0xe2, 0x82]), 1)).toBe(2);
  });
});
