import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { TenantEntity } from './tenant.entity';
import type { Program } from './program';

/** Whose program a version is: the tenant's default, a group's or an offer's. */
export type ProgramTargetType = 'default' | 'group' | 'offer';

/**
 * One program as it was from `effective_at` until the next version of the same target (docs/money.md
 * §2, "Versions"): written once, never changed. `program` null: the group or offer stopped having
 * its own and the tenant's default pays.
 */
@Entity({ name: 'program_versions' })
@Index('ix_program_versions_list', { synchronize: false })
export class ProgramVersionEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  /** `prv_…` */
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', name: 'target_type' }) targetType: ProgramTargetType;
  /** The group's or offer's id; null for the default. */
  @Column({ type: 'text', name: 'target_id', nullable: true }) targetId: string | null;
  @Column({ type: 'jsonb', nullable: true }) program: Program | null;
  @Column({ type: 'timestamptz', name: 'effective_at' }) effectiveAt: Date;
  @Column({ type: 'text', name: 'actor_type', nullable: true }) actorType: string | null;
  @Column({ type: 'text', name: 'actor_name', nullable: true }) actorName: string | null;

  @ManyToOne(() => TenantEntity)
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'fk_program_versions_tenant' })
  tenant?: TenantEntity;
}
