import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A federation POST's `Idempotency-Key`, its request fingerprint and, once done, its answer. */
@Entity({ name: 'idempotency_keys' })
@Index('ix_idempotency_keys_expires', ['expiresAt'])
export class IdempotencyKeyEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @PrimaryColumn({ type: 'text' }) path: string;
  @PrimaryColumn({ type: 'text' }) key: string;
  @Column({ type: 'text', name: 'request_hash' }) requestHash: string;
  /** Set while the first request runs; a crashed request's claim lapses at this time. */
  @Column({ type: 'timestamptz', name: 'locked_until', nullable: true }) lockedUntil: Date | null;
  @Column({ type: 'integer', name: 'response_status', nullable: true }) responseStatus:
    number | null;
  @Column({ type: 'text', name: 'response_body', nullable: true }) responseBody: string | null;
  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'expires_at' }) expiresAt: Date;
}
