import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A signed-in browser (30 days), for one member of one tenant; the cookie holds the token. */
@Entity({ name: 'sessions' })
export class SessionEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  /** SHA-256 of the cookie's token. */
  @PrimaryColumn({ type: 'text', name: 'token_hash' }) tokenHash: string;
  @Column({ type: 'text', name: 'member_id' }) memberId: string;
  @Column({ type: 'timestamptz', name: 'expires_at' }) expiresAt: Date;
  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' }) createdAt: Date;
}

/** A consent form's single-use CSRF token, bound to the session that was shown the form. */
@Entity({ name: 'consent_tokens' })
@Index('ix_consent_tokens_expires', ['expiresAt'])
export class ConsentTokenEntity {
  /** The session's tenant. */
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @PrimaryColumn({ type: 'text', name: 'token_hash' }) tokenHash: string;
  @Column({ type: 'text', name: 'session_hash' }) sessionHash: string;
  @Column({ type: 'timestamptz', name: 'expires_at' }) expiresAt: Date;
  @Column({ type: 'timestamptz', name: 'used_at', nullable: true }) usedAt: Date | null;
}
