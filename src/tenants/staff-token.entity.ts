import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { TenantEntity } from './tenant.entity';
import type { StaffRole } from '../common/access/actor';

/**
 * A tenant staff member's admin API token (`stf_…`); only its SHA-256 is kept (unique across
 * tenants by `tenant_lookups`).
 */
@Entity({ name: 'staff_tokens' })
@Index('uq_staff_tokens_token_hash', ['tenantId', 'tokenHash'], { unique: true })
export class StaffTokenEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text' }) role: StaffRole;
  @Column({ type: 'text', name: 'token_hash' })
  tokenHash: string;
  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'revoked_at', nullable: true }) revokedAt: Date | null;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'fk_staff_tokens_tenant' })
  tenant?: TenantEntity;
}
