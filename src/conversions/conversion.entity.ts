import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import { bigintToNumber } from '../database/columns';
import { TenantEntity } from '../tenants/tenant.entity';
import { LeadEntity } from '../leads/lead.entity';

export type ConversionStatus = 'registered' | 'reversed';

@Entity({ name: 'conversions' })
@Unique('uq_conversions_external_order_id', ['tenantId', 'externalOrderId'])
export class ConversionEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', name: 'lead_id' }) leadId: string;
  @Column({ type: 'bigint', name: 'amount_kopecks', transformer: bigintToNumber })
  amountKopecks: number;
  @Column({ type: 'char', length: 3 }) currency: string;
  @Column({ type: 'text', name: 'external_order_id' }) externalOrderId: string;
  @Column({ type: 'text' }) status: ConversionStatus;
  @Column({ type: 'timestamptz', name: 'reversed_at', nullable: true }) reversedAt: Date | null;
  @Column({ type: 'text', name: 'reverse_reason', nullable: true }) reverseReason: string | null;
  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' }) createdAt: Date;
  /** docs/fraud.md: the customer's `client` hints at checkout. */
  @Column({ type: 'inet', name: 'client_ip', nullable: true }) clientIp?: string | null;
  @Column({ type: 'text', name: 'client_user_agent', nullable: true })
  clientUserAgent?: string | null;
  /** docs/money.md §2: why the conversion paid nothing (past the program's last phase). */
  @Column({ type: 'text', name: 'reward_note', nullable: true }) rewardNote?: string | null;

  @ManyToOne(() => TenantEntity)
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'fk_conversions_tenant' })
  tenant?: TenantEntity;

  @ManyToOne(() => LeadEntity)
  @JoinColumn([
    {
      name: 'tenant_id',
      referencedColumnName: 'tenantId',
      foreignKeyConstraintName: 'fk_conversions_lead',
    },
    {
      name: 'lead_id',
      referencedColumnName: 'id',
      foreignKeyConstraintName: 'fk_conversions_lead',
    },
  ])
  lead?: LeadEntity;
}
