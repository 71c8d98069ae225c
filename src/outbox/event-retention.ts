import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { EventsRepository } from './events.repository';
import { Retention } from '../housekeeping/retention.decorator';

/**
 * The outbox's retention (docs/webhooks.md: events are kept EVENT_RETENTION_DAYS, 30 by default):
 * events past it that no webhook delivery refers to any more. A delivery refers to its event (a
 * foreign key), and webhooks' own retention (webhooks/engine/delivery-retention.ts) deletes the
 * finished ones of old events first, so this job runs after it, and an event whose delivery is
 * still pending stays.
 */
@Injectable()
export class EventRetention {
  constructor(
    private readonly events: EventsRepository,
    private readonly config: AppConfig,
  ) {}

  /** Tenant by tenant through ix_events_tenant_occurred, in batches. */
  @Retention('events', { order: 1 })
  async deleteExpired(): Promise<number> {
    return this.events.deleteExpired(this.config.eventRetentionDays);
  }
}
