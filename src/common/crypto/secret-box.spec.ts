import { randomBytes } from 'node:crypto';
import { open, seal } from './secret-box';

const key = Buffer.alloc(32, 7);
const otherKey = Buffer.alloc(32, 8);
const secret = 'whsec_Qm9vZ2llV29vZ2llMTIzNDU2Nzg5MGFiY2RlZmdo';

/** Flips one bit of the `index`-th dot-separated base64url part (1 iv, 2 tag, 3 ciphertext). */
function tamper(sealed: string, index: number, at = 0): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[index], 'base64url');
  bytes[at] ^= 0x01;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

describe('secret box (AES-256-GCM)', () => {
  it('opens what it sealed', () => {
    expect(open(seal(secret, key), key)).toBe(secret);
    expect(open(seal('ключ 🔑', key), key)).toBe('ключ 🔑');
    expect(open(seal('', key), key)).toBe('');
  });

  it('never contains the plaintext', () => {
    const sealed = seal(secret, key);
    expect(sealed).not.toContain(secret);
    expect(sealed).not.toContain(secret.slice('whsec_'.length));
    expect(sealed).not.toContain(Buffer.from(secret).toString('base64url'));
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  });

  it('seals one secret differently every time (fresh nonce), both opening', () => {
    const a = seal(secret, key);
    const b = seal(secret, key);
    expect(a).not.toBe(b);
    expect(a.split('.')[1]).not.toBe(b.split('.')[1]);
    expect(open(a, key)).toBe(secret);
    expect(open(b, key)).toBe(secret);
  });

  it('refuses a tampered ciphertext', () => {
    const sealed = seal(secret, key);
    expect(() => open(tamper(sealed, 3), key)).toThrow();
    expect(() => open(tamper(sealed, 3, 10), key)).toThrow();
  });

  it('refuses a tampered tag', () => {
    expect(() => open(tamper(seal(secret, key), 2), key)).toThrow();
  });

  it('refuses a tampered nonce', () => {
    expect(() => open(tamper(seal(secret, key), 1), key)).toThrow();
  });

  it('refuses a truncated ciphertext', () => {
    const parts = seal(secret, key).split('.');
    parts[3] = Buffer.from(parts[3], 'base64url').subarray(1).toString('base64url');
    expect(() => open(parts.join('.'), key)).toThrow();
  });

  it('refuses the wrong key', () => {
    const sealed = seal(secret, key);
    expect(() => open(sealed, otherKey)).toThrow();
    expect(() => open(sealed, randomBytes(32))).toThrow();
  });

  it('refuses what is not a sealed secret', () => {
    const [, iv, tag, ciphertext] = seal(secret, key).split('.');
    expect(() => open(secret, key)).toThrow();
    expect(() => open('', key)).toThrow();
    expect(() => open(`v2.${iv}.${tag}.${ciphertext}`, key)).toThrow();
    expect(() => open(`v1.${iv}.${tag}`, key)).toThrow();
  });

  it('binds a value to its additional data: opened with other or none, it fails', () => {
    const sealed = seal('DE89370400440532013000', key, 'payout-details:t1:mbr_1');
    expect(open(sealed, key, 'payout-details:t1:mbr_1')).toBe('DE89370400440532013000');
    expect(() => open(sealed, key, 'payout-details:t2:mbr_1')).toThrow();
    expect(() => open(sealed, key)).toThrow();
    expect(() => open(seal(secret, key), key, 'payout-details:t1:mbr_1')).toThrow();
  });
});
