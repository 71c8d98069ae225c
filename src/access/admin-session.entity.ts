import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A signed-in staff browser on the admin pages (docs/architecture.md). The cookie holds a random
 * token (only its hash is here); the staff token behind it is checked again on every request, so
 * revoking it ends the session at once. `csrf` is the synchronizer token every form must carry.
 */
@Entity({ name: 'admin_sessions' })
export class AdminSessionEntity {
  @PrimaryColumn({ type: 'text', name: 'token_hash' }) tokenHash: string;
  /** `platform` or `staff`. */
  @Column({ type: 'text', name: 'actor_type' }) actorType: string;
  /** The staff token's hash (null for the platform admin). */
  @Column({ type: 'text', name: 'staff_token_hash', nullable: true }) staffTokenHash: string | null;
  @Column({ type: 'text' }) csrf: string;
  @Column({ type: 'timestamptz', name: 'expires_at' }) expiresAt: Date;
  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' }) createdAt: Date;
}
