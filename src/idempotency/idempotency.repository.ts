import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { IdempotencyKeyEntity } from './idempotency-key.entity';

export type Claim = { kind: 'claimed' } | { kind: 'existing'; row: IdempotencyKeyEntity };

/**
 * Idempotency records live outside the request's business transaction on purpose: the claim must
 * be visible to a concurrent duplicate at once, and the stored answer must survive whatever the
 * handler's own transaction does.
 */
@Injectable()
export class IdempotencyRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Claims the key for this request, or returns what holds it. A record whose 24 h have passed,
   * or whose running claim lapsed without an answer (the process died), is taken over.
   */
  async claim(
    tenantId: string,
    path: string,
    key: string,
    requestHash: string,
    lockMs: number,
    ttlMs: number,
  ): Promise<Claim> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO idempotency_keys AS k (tenant_id, path, key, request_hash, locked_until, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5 / 1000.0), now() + make_interval(secs => $6 / 1000.0))
       ON CONFLICT (tenant_id, path, key) DO UPDATE
          SET request_hash = EXCLUDED.request_hash, locked_until = EXCLUDED.locked_until,
              response_status = NULL, response_body = NULL, created_at = now(),
              expires_at = EXCLUDED.expires_at
        WHERE k.expires_at < now() OR (k.response_status IS NULL AND k.locked_until < now())
       RETURNING 1`,
      [tenantId, path, key, requestHash, lockMs, ttlMs],
    );
    if (rows.length) return { kind: 'claimed' };
    const row = await this.dataSource
      .getRepository(IdempotencyKeyEntity)
      .findOneBy({ tenantId, path, key });
    // Deleted between the two statements (the holder failed): claim again.
    if (!row) return this.claim(tenantId, path, key, requestHash, lockMs, ttlMs);
    return { kind: 'existing', row };
  }

  async complete(
    tenantId: string,
    path: string,
    key: string,
    status: number,
    body: string,
  ): Promise<void> {
    await this.dataSource
      .getRepository(IdempotencyKeyEntity)
      .update(
        { tenantId, path, key },
        { responseStatus: status, responseBody: body, lockedUntil: null },
      );
  }

  async release(tenantId: string, path: string, key: string): Promise<void> {
    await this.dataSource.getRepository(IdempotencyKeyEntity).delete({ tenantId, path, key });
  }
}
