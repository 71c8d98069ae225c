import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { EventEntity } from '../outbox/event.entity';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'dead'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One event on its way to the tenant's receiver, created in the event's own transaction. Postgres
 * decides what happened; Bull only says what to do next (a sweeper re-enqueues what Redis lost).
 */
@Entity({ name: 'webhook_deliveries' })
@Index('ix_webhook_deliveries_tenant_status', ['tenantId', 'status', 'createdAt', 'eventId'])
/** The sweeper's work list: pending deliveries by due time. */
@Index('ix_webhook_deliveries_due', { synchronize: false })
/** Attempts in flight per tenant (the per-endpoint cap), without scanning settled deliveries. */
@Index('ix_webhook_deliveries_in_flight', { synchronize: false })
/** Staff replays not made yet (the sweeper's second work list). */
@Index('ix_webhook_deliveries_replay_requested', { synchronize: false })
export class WebhookDeliveryEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  /** The delivery is named by its event: one delivery per event. */
  @PrimaryColumn({ type: 'text', name: 'event_id' }) eventId: string;
  @Column({ type: 'text', name: 'event_type' }) eventType: string;
  @Column({ type: 'text' }) status: DeliveryStatus;
  /** Attempts made so far, replays included. */
  @Column({ type: 'integer', default: 0 }) attempts: number;
  @Column({ type: 'timestamptz', name: 'next_attempt_at', nullable: true })
  nextAttemptAt: Date | null;
  /** While an attempt is in flight: no other worker may start one before this time. */
  @Column({ type: 'timestamptz', name: 'locked_until', nullable: true }) lockedUntil: Date | null;
  @Column({ type: 'integer', name: 'last_status_code', nullable: true }) lastStatusCode:
    number | null;
  @Column({ type: 'text', name: 'last_error', nullable: true }) lastError: string | null;
  @Column({ type: 'timestamptz', name: 'delivered_at', nullable: true }) deliveredAt: Date | null;
  /**
   * A staff replay not made yet (written before the 202, cleared when the replay attempt is
   * recorded): the sweeper re-enqueues it if Redis lost its job.
   */
  @Column({ type: 'timestamptz', name: 'replay_requested_at', nullable: true })
  replayRequestedAt: Date | null;
  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'updated_at', default: () => 'now()' }) updatedAt: Date;

  @ManyToOne(() => EventEntity)
  @JoinColumn([
    {
      name: 'tenant_id',
      referencedColumnName: 'tenantId',
      foreignKeyConstraintName: 'fk_webhook_deliveries_event',
    },
    {
      name: 'event_id',
      referencedColumnName: 'id',
      foreignKeyConstraintName: 'fk_webhook_deliveries_event',
    },
  ])
  event?: EventEntity;
}
