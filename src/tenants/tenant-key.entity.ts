import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { TenantEntity } from './tenant.entity';

/** A Federation API key; only its SHA-256 is kept (unique across tenants by `tenant_lookups`). */
@Entity({ name: 'tenant_keys' })
@Index('uq_tenant_keys_key_hash', ['tenantId', 'keyHash'], { unique: true })
export class TenantKeyEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', nullable: true }) name: string | null;
  @Column({ type: 'text', name: 'key_hash' })
  keyHash: string;
  /** The first characters of the key, so a person can tell keys apart in a list. */
  @Column({ type: 'text', name: 'key_hint' }) keyHint: string;
  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'revoked_at', nullable: true }) revokedAt: Date | null;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'fk_tenant_keys_tenant' })
  tenant?: TenantEntity;
}
