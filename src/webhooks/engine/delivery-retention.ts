import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { DELETE_BATCH as BATCH, deletePerTenantInBatches } from '../../database/batched-delete';
import { TransactionHost } from '../../database/transaction-host';
import { Retention } from '../../housekeeping/retention.decorator';

/**
 * Webhooks' retention: the deliveries, with their attempts, of events past EVENT_RETENTION_DAYS
 * (docs/webhooks.md), unless still pending (one delivery per event). It runs before the outbox's
 * (outbox/event-retention.ts), which then deletes those events, as no delivery refers to them.
 */
@Injectable()
export class DeliveryRetention {
  constructor(
    private readonly tx: TransactionHost,
    private readonly config: AppConfig,
  ) {}

  /** Tenant by tenant, oldest events first through ix_events_tenant_occurred, in batches. */
  @Retention('webhookDeliveries')
  async deleteExpired(): Promise<number> {
    return deletePerTenantInBatches(
      this.tx.manager,
      `WITH doomed AS (
         SELECT d.tenant_id, d.event_id FROM events e
           JOIN webhook_deliveries d ON d.tenant_id = e.tenant_id AND d.event_id = e.id
          WHERE e.tenant_id = $1
            AND e.occurred_at < now() - make_interval(days => $2)
            AND d.status <> 'pending'
          ORDER BY e.occurred_at LIMIT ${BATCH}
       ), attempts AS (
         DELETE FROM webhook_attempts a USING doomed
          WHERE a.tenant_id = doomed.tenant_id AND a.event_id = doomed.event_id
       ), deliveries AS (
         DELETE FROM webhook_deliveries d USING doomed
          WHERE d.tenant_id = doomed.tenant_id AND d.event_id = doomed.event_id RETURNING 1
       )
       SELECT count(*)::int AS deleted FROM deliveries`,
      [this.config.eventRetentionDays],
    );
  }
}
