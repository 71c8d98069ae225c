import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';

/**
 * One entry of a tenant's audit log. Every feature writes the log, tenants/ included, so the audit
 * feature imports none of them (docs/architecture.md, "Module boundaries"): the relation to the
 * tenant names its entity by name, which keeps the foreign key in TypeORM's metadata.
 */
@Entity({ name: 'audit_log' })
@Index('ix_audit_log_tenant_at', ['tenantId', 'at'])
export class AuditEntryEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'timestamptz', default: () => 'now()' }) at: Date;
  @Column({ type: 'text', name: 'actor_type' }) actorType: string;
  @Column({ type: 'text', name: 'actor_name' }) actorName: string;
  @Column({ type: 'text' }) action: string;
  @Column({ type: 'text', name: 'target_type' }) targetType: string;
  @Column({ type: 'text', name: 'target_id' }) targetId: string;
  @Column({ type: 'jsonb', default: () => "'{}'" }) details: Record<string, unknown>;

  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'fk_audit_log_tenant' })
  tenant?: object;
}
