import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { TenantEntity } from '../tenants/tenant.entity';
import { MemberEntity } from '../members/member.entity';
import { OfferEntity } from '../offers/offer.entity';
import type { RiskSignal } from '../fraud/risk-signal';

export const LEAD_STATUSES = ['new', 'processed', 'converted', 'rejected'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];
export const LEAD_SOURCES = ['federation', 'lead_form', 'referral_link', 'promo_code'] as const;
export type LeadSource = (typeof LEAD_SOURCES)[number];

@Entity({ name: 'leads' })
@Index('ix_leads_referrer', ['tenantId', 'referrerMemberId', 'createdAt', 'id'])
export class LeadEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', name: 'referrer_member_id' }) referrerMemberId: string;
  /** Denormalised from the referrer (immutable) so events need no join. */
  @Column({ type: 'text', name: 'referrer_user_id' }) referrerUserId: string;
  @Column({ type: 'text', name: 'offer_id', nullable: true }) offerId: string | null;
  @Column({ type: 'text', name: 'contact_name' }) contactName: string;
  @Column({ type: 'text', name: 'contact_email', nullable: true }) contactEmail: string | null;
  @Column({ type: 'text', name: 'contact_phone', nullable: true }) contactPhone: string | null;
  @Column({ type: 'jsonb', default: () => "'{}'" }) metadata: Record<string, unknown>;
  @Column({ type: 'text' }) status: LeadStatus;
  @Column({ type: 'text' }) source: LeadSource;
  @Column({ type: 'text', name: 'status_reason', nullable: true }) statusReason: string | null;
  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'updated_at', default: () => 'now()' }) updatedAt: Date;
  /** docs/fraud.md: the customer's `client` hints, the click its ref carried, what fired. */
  @Column({ type: 'inet', name: 'client_ip', nullable: true }) clientIp?: string | null;
  @Column({ type: 'text', name: 'client_user_agent', nullable: true })
  clientUserAgent?: string | null;
  @Column({ type: 'timestamptz', name: 'clicked_at', nullable: true }) clickedAt?: Date | null;
  @Column({ type: 'jsonb', name: 'risk_signals', nullable: true })
  riskSignals?: RiskSignal[] | null;
  /**
   * Posted by anyone holding the partner's ref (lead-form widget, landing page form), not by the
   * tenant's back end: no evidence for duplicate_customer (docs/fraud.md).
   */
  @Column({ type: 'boolean', default: false }) anonymous?: boolean;

  @ManyToOne(() => TenantEntity)
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'fk_leads_tenant' })
  tenant?: TenantEntity;

  @ManyToOne(() => MemberEntity)
  @JoinColumn([
    {
      name: 'tenant_id',
      referencedColumnName: 'tenantId',
      foreignKeyConstraintName: 'fk_leads_referrer',
    },
    {
      name: 'referrer_member_id',
      referencedColumnName: 'id',
      foreignKeyConstraintName: 'fk_leads_referrer',
    },
  ])
  referrer?: MemberEntity;

  @ManyToOne(() => OfferEntity)
  @JoinColumn([
    {
      name: 'tenant_id',
      referencedColumnName: 'tenantId',
      foreignKeyConstraintName: 'fk_leads_offer',
    },
    { name: 'offer_id', referencedColumnName: 'id', foreignKeyConstraintName: 'fk_leads_offer' },
  ])
  offer?: OfferEntity;
}
