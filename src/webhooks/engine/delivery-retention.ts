import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { DeliveriesRepository } from './deliveries.repository';
import { Retention } from '../../housekeeping/retention.decorator';

/**
 * Webhooks' retention: the deliveries, with their attempts, of events past EVENT_RETENTION_DAYS
 * (docs/webhooks.md), unless still pending (one delivery per event). It runs before the outbox's
 * (outbox/event-retention.ts), which then deletes those events, as no delivery refers to them.
 */
@Injectable()
export class DeliveryRetention {
  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly config: AppConfig,
  ) {}

  /** Tenant by tenant, oldest events first through ix_events_tenant_occurred, in batches. */
  @Retention('webhookDeliveries')
  async deleteExpired(): Promise<number> {
    return this.deliveries.deleteExpired(this.config.eventRetentionDays);
  }
}
