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
