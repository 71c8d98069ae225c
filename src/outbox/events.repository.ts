import { Injectable } from '@nestjs/common';
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
}
