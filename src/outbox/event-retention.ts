import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { DELETE_BATCH as BATCH, deletePerTenantInBatches } from '../database/batched-delete';
import { TransactionHost } from '../database/transaction-host';
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
    private readonly tx: TransactionHost,
    private readonly config: AppConfig,
  ) {}

  /** Tenant by tenant through ix_events_tenant_occurred, in batches. */
  @Retention('events', { order: 1 })
  async deleteExpired(): Promise<number> {
    return deletePerTenantInBatches(
      this.tx.manager,
      `WITH doomed AS (
         SELECT e.tenant_id, e.id FROM events e
          WHERE e.tenant_id = $1
            AND e.occurred_at < now() - make_interval(days => $2)
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                             WHERE d.tenant_id = e.tenant_id AND d.event_id = e.id)
          ORDER BY e.occurred_at LIMIT ${BATCH}
       ), events AS (
         DELETE FROM events e USING doomed
          WHERE e.tenant_id = doomed.tenant_id AND e.id = doomed.id RETURNING 1
       )
       SELECT count(*)::int AS deleted FROM events`,
      [this.config.eventRetentionDays],
    );
  }
}
