import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { TenantEntity } from '../tenants/tenant.entity';
import { MemberEntity } from '../members/member.entity';

export const TARGET_TYPES = ['website', 'offer', 'shop', 'partner', 'storefront'] as const;
export type TargetType = (typeof TARGET_TYPES)[number];

/**
 * A partner's referral short link. Idempotent on (tenant, member, target_type, target_id,
 * recommendation_text, promo_code) through the unique index uq_deeplinks_params (empty strings
 * stand for absent texts), so concurrent identical requests make exactly one.
 */
@Entity({ name: 'deeplinks' })
@Index('uq_deeplinks_code', ['tenantId', 'code'], { unique: true })
@Index('uq_deeplinks_params', { synchronize: false })
export class DeeplinkEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', name: 'member_id' }) memberId: string;
  /** The referrer's service user id, carried in the signed ref. */
  @Column({ type: 'text', name: 'service_user_id' }) serviceUserId: string;
  @Column({ type: 'text', name: 'target_type' }) targetType: TargetType;
  @Column({ type: 'text', name: 'target_id' }) targetId: string;
  @Column({ type: 'text', name: 'recommendation_text', default: '' }) recommendationText: string;
  @Column({ type: 'text', name: 'promo_code', default: '' }) promoCode: string;
  /**
   * 8 characters of [A-Za-z0-9], unique service-wide (the short URL names no tenant): claimed in
   * `tenant_lookups` (src/tenants/tenant-lookups.ts), which names the link's tenant.
   */
  @Column({ type: 'text' }) code: string;
  @Column({ type: 'integer', name: 'clicks_count', default: 0 }) clicksCount: number;
  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' }) createdAt: Date;

  @ManyToOne(() => TenantEntity, { createForeignKeyConstraints: false })
  @JoinColumn({ name: 'tenant_id' })
  tenant?: TenantEntity;

  @ManyToOne(() => MemberEntity)
  @JoinColumn([
    {
      name: 'tenant_id',
      referencedColumnName: 'tenantId',
      foreignKeyConstraintName: 'fk_deeplinks_member',
    },
    {
      name: 'member_id',
      referencedColumnName: 'id',
      foreignKeyConstraintName: 'fk_deeplinks_member',
    },
  ])
  member?: MemberEntity;
}
