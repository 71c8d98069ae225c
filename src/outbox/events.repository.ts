import { Injectable } from '@nestjs/common';
import { DELETE_BATCH as BATCH, deletePerTenantInBatches } from '../database/batched-delete';
import { PersonalData } from '../common/privacy/personal-data.decorator';
import { redactColumns } from '../database/redaction';
import { TransactionHost } from '../database/transaction-host';
import { EventEntity } from './event.entity';

@Injectable()
export class EventsRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get repo() {
    return this.tx.manager.getRepository(EventEntity);
  }

  /** One constant statement for any number of rows (the outbox is on every write path). */
  async insert(events: EventEntity[]): Promise<void> {
    if (!events.length) return;
    await this.tx.manager.query(
      `INSERT INTO events (tenant_id, id, event_type, occurred_at, body)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::text[])`,
      [
        events.map((e) => e.tenantId),
        events.map((e) => e.id),
        events.map((e) => e.eventType),
        events.map((e) => e.occurredAt),
        events.map((e) => e.body),
      ],
    );
  }

  /**
   * Events from rows `(id, payload)` selected by `source` (its `$1` being the tenant id): the body
   * is `head` + id + `middle` + payload + `}`. Answers how many were written.
   */
  async insertSelected(
    source: string,
    params: unknown[],
    envelope: { eventType: string; occurredAt: Date; head: string; middle: string },
  ): Promise<number> {
    const k = params.length;
    const [{ n }]: { n: number }[] = await this.tx.manager.query(
      `WITH w AS (
         INSERT INTO events (tenant_id, id, event_type, occurred_at, body)
         SELECT $1, r.id, $${k + 1}, $${k + 2},
                $${k + 3} || r.id || $${k + 4} || r.payload || '}'
           FROM (${source}) r
         RETURNING 1)
       SELECT count(*)::int AS n FROM w`,
      [...params, envelope.eventType, envelope.occurredAt, envelope.head, envelope.middle],
    );
    return n;
  }

  find(tenantId: string, eventId: string): Promise<EventEntity | null> {
    return this.repo.findOneBy({ tenantId, id: eventId });
  }

  list(tenantId: string, filter: { eventType?: string }): Promise<EventEntity[]> {
    return this.repo.find({
      where: { tenantId, ...(filter.eventType ? { eventType: filter.eventType } : {}) },
      order: { occurredAt: 'ASC', id: 'ASC' },
    });
  }

  /**
   * Deletes the events older than `retentionDays` that no webhook delivery refers to, tenant by
   * tenant in batches (database/batched-delete.ts); how many went (EventRetention).
   */
  deleteExpired(retentionDays: number): Promise<number> {
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
      [retentionDays],
    );
  }

  /** docs/privacy.md: erased values copied into this table's texts, replaced. */
  @PersonalData('redact', 'events')
  redactPersonal(tenantId: string, values: string[]): Promise<number> {
    return redactColumns(this.tx.manager, tenantId, values, {
      table: 'events',
      key: ['tenant_id', 'id'],
      columns: { body: 'json-text' },
    });
  }
}
