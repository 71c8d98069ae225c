import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A federation POST's `Idempotency-Key` with its request fingerprint and the answer, written in
 * the same transaction as the change the request made. `path` is the request's scope: the
 * method and the route that handled it, with its parameters filled in.
 */
@Entity({ name: 'idempotency_keys' })
@Index('ix_idempotency_keys_expires', ['expiresAt'])
export class IdempotencyKeyEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @PrimaryColumn({ type: 'text' }) path: string;
  @PrimaryColumn({ type: 'text' }) key: string;
  @Column({ type: 'text', name: 'request_hash' }) requestHash: string;
  @Column({ type: 'integer', name: 'response_status' }) responseStatus: number;
  @Column({ type: 'text', name: 'response_body' }) responseBody: string;
  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'expires_at' }) expiresAt: Date;
}
