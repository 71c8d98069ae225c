import { Injectable } from '@nestjs/common';
import { open } from '../common/crypto/secret-box';
import { AppConfig } from '../config/app-config';

/** Enough for every endpoint's current and previous secret on any realistic deployment. */
const MAX_ENTRIES = 2048;

/**
 * Opened signing secrets, keyed by their sealed form, so an attempt does not run AES-GCM again
 * for a secret it has opened before. Keyed by the ciphertext, never by tenant: the claim reads the
 * endpoint's sealed secrets from Postgres on every attempt, so a rotation (a new ciphertext) takes
 * effect on the very next attempt in every process, and nothing here can go stale.
 */
@Injectable()
export class OpenedSecrets {
  private readonly opened = new Map<string, string>();

  constructor(private readonly config: AppConfig) {}

  open(sealed: string): string {
    let secret = this.opened.get(sealed);
    if (secret === undefined) {
      secret = open(sealed, this.config.secretsEncryptionKey);
      if (this.opened.size >= MAX_ENTRIES) this.opened.clear();
      this.opened.set(sealed, secret);
    }
    return secret;
  }

  get size(): number {
    return this.opened.size;
  }
}
