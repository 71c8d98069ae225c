import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../database/columns';
import { TenantEntity } from '../tenants/tenant.entity';
import { MemberEntity } from '../members/member.entity';
import type { BonusReview } from '../fraud/risk-signal';

export const BONUS_STATUSES = ['pending', 'approved', 'paid', 'rejected', 'reversed'] as const;
export type BonusStatus = (typeof BONUS_STATUSES)[number];
export type BonusSourceType = 'lead' | 'conversion' | 'manual' | 'bounty';

/**
 * docs/money.md §2, "Versions": the rule that paid a conversion bonus, as the API shows it. `phase`
 * is 1-based; `compressed_from` is the tier of the nearest member passed over below the one paid
 * (compression), or null.
 */
export interface BonusRule {
  program_version_id: string | null;
  phase: number;
  tier: string;
  compressed_from: string | null;
}

@Entity({ name: 'bonuses' })
@Index('ix_bonuses_member', ['tenantId', 'memberId', 'createdAt', 'id'])
@Index('ix_bonuses_source', ['tenantId', 'sourceType', 'sourceId'])
@Index('ix_bonuses_status', ['tenantId', 'status', 'createdAt', 'id'])
/** The grace-period sweep's work list: only pending rows, in due order, across tenants. */
@Index('ix_bonuses_due', { synchronize: false })
/** A member's approved (unpaid) bonuses: the widgets' next payout (MemberApprovedBonuses migration). */
@Index('ix_bonuses_member_approved', { synchronize: false })
export class BonusEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', name: 'member_id' }) memberId: string;
  /** The `user_id` of bonuses (`usr_…`), denormalised from the member (immutable). */
  @Column({ type: 'text', name: 'service_user_id' }) serviceUserId: string;
  @Column({ type: 'bigint', name: 'amount_kopecks', transformer: bigintToNumber })
  amountKopecks: number;
  @Column({ type: 'char', length: 3 }) currency: string;
  @Column({ type: 'text', name: 'source_type' }) sourceType: BonusSourceType;
  @Column({ type: 'text', name: 'source_id' }) sourceId: string;
  /** `referrer`, `upline_N` for conversion bonuses; null for lead and manual bonuses. */
  @Column({ type: 'text', nullable: true }) tier: string | null;
  @Column({ type: 'text' }) status: BonusStatus;
  @Column({ type: 'text', nullable: true }) reason: string | null;
  /** When the grace period ends and the sweep approves it, if still pending. */
  @Column({ type: 'timestamptz', name: 'due_at' }) dueAt: Date;
  @Column({ type: 'timestamptz', name: 'approved_at', nullable: true }) approvedAt: Date | null;
  @Column({ type: 'timestamptz', name: 'rejected_at', nullable: true }) rejectedAt: Date | null;
  @Column({ type: 'timestamptz', name: 'reversed_at', nullable: true }) reversedAt: Date | null;
  /** When the payout holding it was marked paid (docs/payouts.md); null until then. */
  @Column({ type: 'timestamptz', name: 'paid_at', nullable: true }) paidAt?: Date | null;
  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' }) createdAt: Date;
  /** docs/fraud.md: `{status: flagged|cleared, signals}`, or null when no signal fired. */
  @Column({ type: 'jsonb', nullable: true }) review?: BonusReview | null;
  /** Conversion bonuses only (null for lead, manual and bounty bonuses, and older ones). */
  @Column({ type: 'jsonb', nullable: true }) rule?: BonusRule | null;
  /** The rule in one sentence of the tenant's locale, written with the bonus. */
  @Column({ type: 'text', nullable: true }) explanation?: string | null;

  @ManyToOne(() => TenantEntity)
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'fk_bonuses_tenant' })
  tenant?: TenantEntity;

  @ManyToOne(() => MemberEntity)
  @JoinColumn([
    {
      name: 'tenant_id',
      referencedColumnName: 'tenantId',
      foreignKeyConstraintName: 'fk_bonuses_member',
    },
    {
      name: 'member_id',
      referencedColumnName: 'id',
      foreignKeyConstraintName: 'fk_bonuses_member',
    },
  ])
  member?: MemberEntity;
}
