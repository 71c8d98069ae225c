import { Injectable } from '@nestjs/common';
import { Retention } from '../housekeeping/retention.decorator';
import { IdempotencyRepository } from './idempotency.repository';

/** The stored keys' retention: housekeeping runs it. */
@Injectable()
export class IdempotencyKeysService {
  constructor(private readonly keys: IdempotencyRepository) {}

  /** Deletes the expired keys; how many went. */
  @Retention('idempotencyKeys')
  deleteExpired(): Promise<number> {
    return this.keys.deleteExpired();
  }
}
