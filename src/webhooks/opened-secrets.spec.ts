import { randomBytes } from 'node:crypto';
import { seal } from '../common/crypto/secret-box';
import type { AppConfig } from '../config/app-config';
import { OpenedSecrets } from './opened-secrets';

describe('OpenedSecrets', () => {
  const key = randomBytes(32);
  const secrets = new OpenedSecrets({ secretsEncryptionKey: key } as unknown as AppConfig);

  it('opens a sealed secret once and answers from memory after that', () => {
    const sealed = seal('whsec_one', key);
    expect(secrets.open(sealed)).toBe('whsec_one');
    const size = secrets.size;
    expect(secrets.open(sealed)).toBe('whsec_one');
    expect(secrets.size).toBe(size);
  });

  it('is keyed by the sealed form: a rotated secret is a new entry, never the old value', () => {
    const before = seal('whsec_before', key);
    const after = seal('whsec_after', key);
    expect(secrets.open(before)).toBe('whsec_before');
    expect(secrets.open(after)).toBe('whsec_after');
    // Sealing the same secret again gives another ciphertext, opened on its own.
    expect(secrets.open(seal('whsec_before', key))).toBe('whsec_before');
  });

  it('refuses what is not a secret sealed under its key', () => {
    expect(() => secrets.open(seal('whsec_x', randomBytes(32)))).toThrow();
  });
});
