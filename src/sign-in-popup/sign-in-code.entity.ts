import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A 6-digit sign-in code (only its hash): valid 10 minutes, 5 tries, single use. */
@Entity({ name: 'sign_in_codes' })
@Index('ix_sign_in_codes_email', ['tenantId', 'email', 'createdAt'])
export class SignInCodeEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @PrimaryColumn({ type: 'text' }) id: string;
  /** Lower-cased. */
  @Column({ type: 'text' }) email: string;
  @Column({ type: 'text', name: 'member_id' }) memberId: string;
  @Column({ type: 'text', name: 'code_hash' }) codeHash: string;
  @Column({ type: 'integer', default: 0 }) attempts: number;
  @Column({ type: 'timestamptz', name: 'expires_at' }) expiresAt: Date;
  @Column({ type: 'timestamptz', name: 'used_at', nullable: true }) usedAt: Date | null;
  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' }) createdAt: Date;
}
