import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { TenantEntity } from '../tenants/tenant.entity';

/**
 * The outbox: one row per domain event, written in the transaction of the change that causes it.
 * `body` is the full envelope serialised once; every delivery sends exactly these bytes.
 */
@Entity({ name: 'events' })
@Index('ix_events_tenant_occurred', ['tenantId', 'occurredAt', 'id'])
export class EventEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', name: 'event_type' }) eventType: string;
  @Column({ type: 'timestamptz', name: 'occurred_at' }) occurredAt: Date;
  @Column({ type: 'text' }) body: string;

  @ManyToOne(() => TenantEntity)
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'fk_events_tenant' })
  tenant?: TenantEntity;
}
