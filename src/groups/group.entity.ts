import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import type { Program } from '../tenants/program';
import { TenantEntity } from '../tenants/tenant.entity';

export const SIGNUP_FIELD_TYPES = ['text', 'url', 'textarea', 'select'] as const;
export type SignupFieldType = (typeof SIGNUP_FIELD_TYPES)[number];

/** A question of the group's application form (SPEC 14, applications), stored as the API shows it. */
export interface SignupField {
  name: string;
  label: string;
  type: SignupFieldType;
  required: boolean;
  options?: string[];
}

export interface GroupSignup {
  enabled: boolean;
  auto_approve: boolean;
  fields: SignupField[];
}

/** Where a partner of this group moves once they reach the thresholds (docs/partners.md). */
export interface PromoteTo {
  group_id: string;
  min_conversions?: number;
  min_revenue_kopecks?: number;
  window_days: number;
}

/**
 * A group of a tenant's partners (`grp_…`, docs/partners.md): every member is in exactly one, the
 * tenant's `default` group unless moved; a group may pay by its own program.
 */
@Entity({ name: 'groups' })
@Unique('uq_groups_slug', ['tenantId', 'slug'])
export class GroupEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text' }) slug: string;
  @Column({ type: 'text' }) name: string;
  /** null: the tenant's default program pays the group's partners. */
  @Column({ type: 'jsonb', nullable: true }) program: Program | null;
  /** The `prv_…` of the group's latest program change (docs/money.md §2, "Versions"). */
  @Column({ type: 'text', name: 'program_version_id', nullable: true })
  programVersionId?: string | null;
  @Column({ type: 'jsonb' }) signup: GroupSignup;
  @Column({ type: 'jsonb', name: 'promote_to', nullable: true }) promoteTo: PromoteTo | null;
  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'updated_at', default: () => 'now()' }) updatedAt: Date;

  @ManyToOne(() => TenantEntity)
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'fk_groups_tenant' })
  tenant?: TenantEntity;
}
