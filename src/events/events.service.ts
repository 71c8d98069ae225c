import { Injectable } from '@nestjs/common';
import { newId } from '../common/ids';
import { TransactionHost } from '../database/transaction-host';
import type { EventEntity } from './event.entity';
import type { EventEnvelope, EventPayloads, EventType } from './event-types';
import { EventsRepository } from './events.repository';

/** Called inside the emitting transaction with the rows just written (webhook deliveries). */
export type OutboxListener = (tenantId: string, events: EventEntity[]) => Promise<void>;

/**
 * Writes domain events to the outbox. Must be called inside the transaction of the change that
 * causes the event, so no committed change loses its event and no rolled-back one emits one.
 */
@Injectable()
export class EventsService {
  private readonly listeners: OutboxListener[] = [];

  constructor(
    private readonly tx: TransactionHost,
    private readonly events: EventsRepository,
  ) {}

  async emit<T extends EventType>(
    tenantId: string,
    type: T,
    payload: EventPayloads[T],
  ): Promise<EventEnvelope<T>> {
    const [envelope] = await this.emitMany(tenantId, [{ type, payload }]);
    return envelope as EventEnvelope<T>;
  }

  async emitMany(
    tenantId: string,
    events: {
      type: EventType | 'webhook.test';
      payload: EventPayloads[EventType] | { message: string };
    }[],
  ): Promise<EventEnvelope[]> {
    if (!this.tx.inTransaction) throw new Error('Events must be emitted inside a transaction');
    const occurredAt = new Date();
    const envelopes = events.map(
      ({ type, payload }) =>
        ({
          event_type: type,
          event_id: newId('event'),
          occurred_at: occurredAt.toISOString(),
          payload,
        }) as EventEnvelope,
    );
    const rows: EventEntity[] = envelopes.map((envelope) => ({
      tenantId,
      id: envelope.event_id,
      eventType: envelope.event_type,
      occurredAt,
      body: JSON.stringify(envelope),
    }));
    await this.events.insert(rows);
    for (const listener of this.listeners) await listener(tenantId, rows);
    return envelopes;
  }

  /** Lets a feature act on every event in the emitting transaction (keeps events dependency-free). */
  onEmit(listener: OutboxListener): void {
    this.listeners.push(listener);
  }

  /** One stored envelope, parsed from the bytes that are delivered. */
  async get(tenantId: string, eventId: string): Promise<EventEnvelope | null> {
    const row = await this.events.find(tenantId, eventId);
    return row ? (JSON.parse(row.body) as EventEnvelope) : null;
  }

  /** The stored envelopes of a tenant, oldest first (operations and tests). */
  async list(tenantId: string, eventType?: EventType): Promise<EventEnvelope[]> {
    const rows = await this.events.list(tenantId, { eventType });
    return rows.map((row) => JSON.parse(row.body) as EventEnvelope);
  }
}
