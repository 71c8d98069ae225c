import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import { clickRefSigner, type RefClaims, signRef, verifyRef } from './signed-ref';

/**
 * `signed_ref` (docs/embedding.md §4): `<base64url payload>.<base64url HMAC-SHA256>` naming the
 * tenant, the referrer and the deeplink. A changed byte or another tenant's ref is refused.
 */

const SECRET = 'test-ref-secret-test-ref-secret-0123456789';
const TENANT = 'org_01JD0Z6V2Y8K3M4N5P6Q7R8S9T';
const CLAIMS: RefClaims = {
  t: TENANT,
  r: 'usr_01JD0Z5T1X7J2K3L4M5N6P7Q8R',
  d: 'dl_01JD0Z7W3Z9M4N5P6Q7R8S9T0V',
};
const REF = signRef(CLAIMS, SECRET);

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** A ref with a correct MAC over an arbitrary payload string, as an attacker with the key could. */
function macced(payload: string, secret = SECRET): string {
  const sig = createHmac('sha256', Buffer.from(secret, 'utf8')).update(payload).digest('base64url');
  return `${payload}.${sig}`;
}
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('signRef / verifyRef', () => {
  it('has the documented shape: base64url JSON payload naming t, r, d, then a base64url HMAC-SHA256', () => {
    expect(REF).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    const [payload, signature] = REF.split('.');
    expect(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))).toEqual(CLAIMS);
    const expected = createHmac('sha256', Buffer.from(SECRET, 'utf8'))
      .update(payload)
      .digest('base64url');
    expect(signature).toBe(expected);
  });

  it('round-trips, and is deterministic (a reused link carries the same ref)', () => {
    expect(verifyRef(REF, SECRET, TENANT)).toEqual(CLAIMS);
    expect(signRef({ ...CLAIMS }, SECRET)).toBe(REF);
  });

  it('round-trips any claims (property)', () => {
    const text = fc.string({ unit: 'binary', minLength: 0, maxLength: 80 });
    fc.assert(
      fc.property(text, text, text, (t, r, d) => {
        const ref = signRef({ t, r, d }, SECRET);
        expect(verifyRef(ref, SECRET, t)).toEqual({ t, r, d });
      }),
      { numRuns: 300 },
    );
  });

  it('signs click-stamped refs as the JSON of all four claims, URL-safe as they are (property)', () => {
    const text = fc.string({ unit: 'binary', minLength: 0, maxLength: 80 });
    const clickedAt = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });
    fc.assert(
      fc.property(text, text, text, clickedAt, (t, r, d, c) => {
        const ref = clickRefSigner({ t, r, d }, SECRET)(c);
        expect(ref).toBe(macced(b64({ t, r, d, c })));
        expect(ref).toBe(signRef({ t, r, d, c }, SECRET));
        expect(encodeURIComponent(ref)).toBe(ref);
        expect(verifyRef(ref, SECRET, t)).toEqual({ t, r, d, c });
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a change of any single character, at every position', () => {
    for (let i = 0; i < REF.length; i++) {
      for (const replacement of ['A', 'z', '0', '-', '_', '.', '=', ' ', '\u00e9']) {
        if (replacement === REF[i]) continue;
        const changed = REF.slice(0, i) + replacement + REF.slice(i + 1);
        if (verifyRef(changed, SECRET, TENANT) !== undefined) {
          throw new Error(`accepted with position ${i} changed to ${JSON.stringify(replacement)}`);
        }
      }
    }
  });

  it('refuses any single-byte change (property over positions and replacement bytes)', () => {
    const bytes = Buffer.from(REF, 'utf8');
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: bytes.length - 1 }),
        fc.integer({ min: 0, max: 255 }),
        (position, value) => {
          fc.pre(bytes[position] !== value);
          const changed = Buffer.from(bytes);
          changed[position] = value;
          expect(verifyRef(changed.toString('latin1'), SECRET, TENANT)).toBeUndefined();
          expect(verifyRef(changed.toString('utf8'), SECRET, TENANT)).toBeUndefined();
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses a base64url character swapped for another base64url character (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: REF.length - 1 }),
        fc.constantFrom(...B64URL),
        (position, char) => {
          fc.pre(REF[position] !== '.' && REF[position] !== char);
          const changed = REF.slice(0, position) + char + REF.slice(position + 1);
          expect(verifyRef(changed, SECRET, TENANT)).toBeUndefined();
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('refuses truncation and appended bytes', () => {
    for (let length = 0; length < REF.length; length++) {
      expect(verifyRef(REF.slice(0, length), SECRET, TENANT)).toBeUndefined();
    }
    for (const suffix of ['A', '=', '.', '.x', ' ', '\n', '%00'])
      expect(verifyRef(REF + suffix, SECRET, TENANT)).toBeUndefined();
    expect(verifyRef(`A${REF}`, SECRET, TENANT)).toBeUndefined();
  });

  it('refuses another secret', () => {
    expect(verifyRef(REF, `${SECRET}x`, TENANT)).toBeUndefined();
    expect(
      verifyRef(signRef(CLAIMS, 'another-secret-another-secret-0123456789'), SECRET, TENANT),
    ).toBeUndefined();
  });

  it("refuses another tenant's ref, and a ref whose payload was re-pointed at this tenant", () => {
    const other = signRef({ ...CLAIMS, t: 'org_01JD0Z6V2Y8K3M4N5P6Q7R8S9X' }, SECRET);
    expect(verifyRef(other, SECRET, TENANT)).toBeUndefined();
    expect(verifyRef(other, SECRET, 'org_01JD0Z6V2Y8K3M4N5P6Q7R8S9X')).toBeDefined();
    // The payload swapped for one naming this tenant, keeping the other tenant's signature.
    const forged = `${b64({ ...CLAIMS, r: 'usr_ATTACKER' })}.${other.split('.')[1]}`;
    expect(verifyRef(forged, SECRET, TENANT)).toBeUndefined();
  });

  it('refuses a payload re-encoded differently (same JSON, other bytes)', () => {
    const [payload, signature] = REF.split('.');
    const spaced = Buffer.from(
      JSON.stringify(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')), null, 1),
    ).toString('base64url');
    expect(verifyRef(`${spaced}.${signature}`, SECRET, TENANT)).toBeUndefined();
    const padded = Buffer.from(payload, 'base64url').toString('base64'); // with + / =
    if (padded !== payload)
      expect(verifyRef(`${padded}.${signature}`, SECRET, TENANT)).toBeUndefined();
  });

  it.each([
    ['empty', ''],
    ['a dot', '.'],
    ['no signature', `${REF.split('.')[0]}.`],
    ['no payload', `.${REF.split('.')[1]}`],
    ['no dot', REF.replace('.', '')],
    ['three parts', `${REF}.${REF.split('.')[1]}`],
    ['garbage', 'not-a-ref'],
    ['a JWT-looking thing', 'eyJhbGciOiJub25lIn0.eyJ0IjoieCJ9.'],
  ])('refuses malformed input: %s', (_label, input) => {
    expect(verifyRef(input, SECRET, TENANT)).toBeUndefined();
  });

  it.each([
    ['not base64url JSON', 'bm90IGpzb24'],
    ['JSON null', b64(null)],
    ['a JSON array', b64([TENANT, 'usr_x', 'dl_x'])],
    ['a JSON string', b64('hello')],
    ['claims missing d', b64({ t: TENANT, r: 'usr_x' })],
    ['claims missing r', b64({ t: TENANT, d: 'dl_x' })],
    ['claims with a numeric r', b64({ t: TENANT, r: 42, d: 'dl_x' })],
    ['claims with an object t', b64({ t: { id: TENANT }, r: 'usr_x', d: 'dl_x' })],
  ])('refuses a correctly signed but malformed payload: %s', (_label, payload) => {
    expect(verifyRef(macced(payload), SECRET, TENANT)).toBeUndefined();
  });

  it('accepts exactly the signed claims of a well-formed payload signed with the secret', () => {
    // The positive control for the table above: the same construction with valid claims passes.
    expect(verifyRef(macced(b64(CLAIMS)), SECRET, TENANT)).toEqual(CLAIMS);
  });
});
