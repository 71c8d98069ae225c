import { Injectable } from '@nestjs/common';
import { deleteInBatches } from '../database/batched-delete';
import { PersonalData } from '../common/privacy/personal-data.decorator';
import { redactColumns } from '../database/redaction';
import { TransactionHost } from '../database/transaction-host';

/** The advisory lock's name of one key (hashed to the lock's 64-bit id by PostgreSQL). */
export function idempotencyLockName(tenantId: string, scope: string, key: string): string {
  return JSON.stringify(['idempotency', tenantId, scope, key]);
}

/** A stored answer under a key: the request fingerprint it belongs to and the response. */
export interface StoredAnswer {
  requestHash: string;
  status: number;
  body: string;
}

/**
 * Idempotency records are written in the request's own transaction (docs/money.md §11): the
 * answer commits together with the change, or neither does. A transaction-scoped advisory lock
 * on the key tells a concurrent duplicate that the first request is still running; it is let go
 * at commit or rollback, and by PostgreSQL itself when the process holding it dies.
 */
@Injectable()
export class IdempotencyRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** Takes the key's lock for the current transaction; false if another request holds it. */
  async tryLock(tenantId: string, scope: string, key: string): Promise<boolean> {
    const [row] = await this.tx.manager.query<{ locked: boolean }[]>(
      `SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked`,
      [idempotencyLockName(tenantId, scope, key)],
    );
    return row.locked;
  }

  /** The answer stored under the key within its 24 h, if any. Call with the lock held. */
  async find(tenantId: string, scope: string, key: string): Promise<StoredAnswer | undefined> {
    const [row] = await this.tx.manager.query<StoredAnswer[]>(
      `SELECT request_hash AS "requestHash", response_status AS status, response_body AS body
         FROM idempotency_keys
        WHERE tenant_id = $1 AND path = $2 AND key = $3 AND expires_at > now()`,
      [tenantId, scope, key],
    );
    return row;
  }

  /**
   * Stores the answer in the current transaction, replacing a record whose 24 h have passed.
   * Returns false, writing nothing, when a live answer is already stored under the key: a second
   * execution got past the key's lock (which the lock is there to prevent), and its answer must
   * not overwrite the first one; the caller then fails the request so that its transaction, with
   * the second execution's effects, rolls back.
   */
  async store(
    tenantId: string,
    scope: string,
    key: string,
    answer: StoredAnswer,
    ttlMs: number,
  ): Promise<boolean> {
    const rows = await this.tx.manager.query<unknown[]>(
      `INSERT INTO idempotency_keys AS k
              (tenant_id, path, key, request_hash, response_status, response_body, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7 / 1000.0))
       ON CONFLICT (tenant_id, path, key) DO UPDATE
          SET request_hash = EXCLUDED.request_hash, response_status = EXCLUDED.response_status,
              response_body = EXCLUDED.response_body, created_at = now(),
              expires_at = EXCLUDED.expires_at
        WHERE k.expires_at <= now()
       RETURNING 1 AS stored`,
      [tenantId, scope, key, answer.requestHash, answer.status, answer.body, ttlMs],
    );
    return rows.length === 1;
  }

  /** Deletes the expired keys (housekeeping); how many went. */
  deleteExpired(): Promise<number> {
    return deleteInBatches(
      this.tx.manager,
      `idempotency_keys`,
      `expires_at < now()`,
      `tenant_id, path, key`,
    );
  }

  /** docs/privacy.md: erased values copied into this table's texts, replaced. */
  @PersonalData('redact', 'idempotency_keys')
  redactPersonal(tenantId: string, values: string[]): Promise<number> {
    return redactColumns(this.tx.manager, tenantId, values, {
      table: 'idempotency_keys',
      key: ['tenant_id', 'path', 'key'],
      columns: { response_body: 'json-text' },
    });
  }
}
