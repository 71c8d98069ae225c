import { Injectable } from '@nestjs/common';
import { IdempotencyRepository } from './idempotency.repository';

/** What other features may do with the stored keys: housekeeping deletes the expired ones. */
@Injectable()
export class IdempotencyKeysService {
  constructor(private readonly keys: IdempotencyRepository) {}

  /** Deletes the expired keys; how many went. */
  deleteExpired(): Promise<number> {
    return this.keys.deleteExpired();
  }
}
