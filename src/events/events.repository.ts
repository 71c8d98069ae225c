import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../database/transaction-host';
import { EventEntity } from './event.entity';

@Injectable()
export class EventsRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get repo() {
    return this.tx.manager.getRepository(EventEntity);
  }

  async insert(events: EventEntity[]): Promise<void> {
    if (events.length) await this.repo.insert(events);
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
