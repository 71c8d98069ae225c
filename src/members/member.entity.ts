import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import { TenantEntity } from '../tenants/tenant.entity';
import { ServiceUserEntity } from './service-user.entity';

export const MEMBER_ROLES = ['partner', 'ambassador', 'leader'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/**
 * A user as one tenant knows them (`mbr_…`, its tenant-scoped surrogate id), and their place in
 * that tenant's referral network: an adjacency list (`referrer_member_id`) plus `depth` and
 * `root_member_id`, so that the upline is read by primary key one tier at a time and a subtree is
 * read level by level through `ix_members_referrer` (docs/architecture.md, "The referral network").
 */
@Entity({ name: 'members' })
@Unique('uq_members_external_id', ['tenantId', 'externalId'])
@Unique('uq_members_service_user', ['tenantId', 'serviceUserId'])
@Index('ix_members_referrer', ['tenantId', 'referrerMemberId', 'createdAt', 'id'])
@Index('ix_members_root', ['tenantId', 'rootMemberId'])
/** Sign-in and self-referral checks look members up by email, case-insensitively. */
@Index('ix_members_email', { synchronize: false })
export class MemberEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', name: 'service_user_id' }) serviceUserId: string;
  @Column({ type: 'text', name: 'external_id' }) externalId: string;
  @Column({ type: 'text', nullable: true }) email: string | null;
  @Column({ type: 'boolean', name: 'email_verified', default: false }) emailVerified: boolean;
  @Column({ type: 'text', name: 'vk_id', nullable: true }) vkId: string | null;
  @Column({ type: 'text', name: 'full_name', nullable: true }) fullName: string | null;
  @Column({ type: 'text', default: 'partner' }) role: MemberRole;
  @Column({ type: 'text', name: 'referrer_member_id', nullable: true })
  referrerMemberId: string | null;
  @Column({ type: 'integer', default: 0 }) depth: number;
  @Column({ type: 'text', name: 'root_member_id' }) rootMemberId: string;
  @Column({ type: 'boolean', name: 'is_active', default: true }) isActive: boolean;
  /**
   * The member's partner group (docs/partners.md). Left unset on insert, the tenant's `default`
   * group (the Groups migration's trigger); always set on a member read back.
   */
  @Column({ type: 'text', name: 'group_id' }) groupId?: string;
  @Column({ type: 'boolean', name: 'claim_required', default: true }) claimRequired: boolean;
  /** Members below this one at any depth; kept current when the network changes (no scans). */
  @Column({ type: 'integer', name: 'downline_count', default: 0 }) downlineCount: number;
  /** The absolute depth of the deepest member in this one's subtree (its own depth if none). */
  @Column({ type: 'integer', name: 'deepest_depth', default: 0 }) deepestDepth: number;
  /** Leads referred by this member, any status; kept by a trigger on leads. */
  @Column({ type: 'integer', name: 'leads_count', default: 0 }) leadsCount: number;
  /** Clicks on this member's short links. */
  @Column({ type: 'integer', name: 'clicks_count', default: 0 }) clicksCount: number;
  /** The member's last `client.ip` (docs/fraud.md, self_referral). */
  @Column({ type: 'inet', name: 'last_seen_ip', nullable: true }) lastSeenIp?: string | null;
  /** Set while the member is banned (docs/fraud.md): links answer 410, no bonus accrues. */
  @Column({ type: 'timestamptz', name: 'banned_at', nullable: true }) bannedAt?: Date | null;
  @Column({ type: 'text', name: 'ban_reason', nullable: true }) banReason?: string | null;
  /** docs/privacy.md: set when the member's personal data was erased (a deactivated tombstone). */
  @Column({ type: 'timestamptz', name: 'erased_at', nullable: true }) erasedAt?: Date | null;
  /** When the member joined this tenant: the partner list's `joined_at`. */
  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'updated_at', default: () => 'now()' }) updatedAt: Date;

  @ManyToOne(() => TenantEntity)
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'fk_members_tenant' })
  tenant?: TenantEntity;

  @ManyToOne(() => ServiceUserEntity)
  @JoinColumn({ name: 'service_user_id', foreignKeyConstraintName: 'fk_members_service_user' })
  serviceUser?: ServiceUserEntity;

  @ManyToOne(() => MemberEntity)
  @JoinColumn([
    {
      name: 'tenant_id',
      referencedColumnName: 'tenantId',
      foreignKeyConstraintName: 'fk_members_referrer',
    },
    {
      name: 'referrer_member_id',
      referencedColumnName: 'id',
      foreignKeyConstraintName: 'fk_members_referrer',
    },
  ])
  referrer?: MemberEntity;
}
