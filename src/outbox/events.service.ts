import { Injectable } from '@nestjs/common';
import { ID_PREFIX, newId, reserveUlids, ulidAt, ulidSql } from '../common/ids';
import { TransactionHost } from '../database/transaction-host';
import type { EventEntity } from './event.entity';
import type { EventEnvelope, EventPayloads, EventType } from './event-types';
import { EventsRepository } from './events.repository';

/** An event just written to the outbox, as listeners see it. */
export type OutboxRow = Pick<EventEntity, 'id' | 'eventType'>;

/** Called inside the emitting transaction with the rows just written (webhook deliveries). */
export type OutboxListener = (tenantId: string, events: OutboxRow[]) => Promise<void>;

/**
 * Rows the database selects, for a set-wise write: `$1` in `sql` is the tenant id, and `params`
 * are `$2`, `$3`, …
 */
export interface SqlRows {
  sql: string;
  params: unknown[];
}

/** The events a transaction has emitted and not yet written, by tenant. */
type PendingEvents = Map<string, EventEntity[]>;
const PENDING = Symbol('outbox.pending');

/**
 * Writes domain events to the outbox. Must be called inside the transaction of the change that
 * causes the event, so no committed change loses its event and no rolled-back one emits one.
 * `emit`/`emitMany` make the envelopes at once (ids, times, payloads) and write them at the end of
 * the transaction, all in one statement, so a change that emits several times (a conversion: its
 * bonuses, then the cascade) writes its events and their deliveries once (docs/architecture.md,
 * "Outbox").
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
    const pending = this.pending();
    pending.set(tenantId, [...(pending.get(tenantId) ?? []), ...rows]);
    return envelopes;
  }

  /** This transaction's pending events; the first use has them written before it commits. */
  private pending(): PendingEvents {
    return this.tx.local(PENDING, () => {
      const emitted: PendingEvents = new Map();
      this.tx.beforeCommit(() => this.flush(emitted));
      return emitted;
    });
  }

  /** Writes the transaction's pending events and lets the listeners see them. */
  private async flush(pending: PendingEvents): Promise<void> {
    for (const [tenantId, rows] of pending) {
      pending.delete(tenantId);
      await this.events.insert(rows);
      for (const listener of this.listeners) await listener(tenantId, rows);
    }
  }

  /**
   * `count` events of one type whose payloads the database builds (a run's 100,000 payouts): one
   * `INSERT … SELECT`, no payload through Node. `payloads` answers exactly `count` rows, `ord`
   * (1 … count: the events' order) and `payload` (the payload's JSON text, keys in the order of
   * its `EventPayloads` type, as `JSON.stringify` writes them). The stored envelopes are the
   * bytes `emitMany` would store: ids of the same format (ULIDs in `ord` order, made in SQL: see
   * `reserveUlids`), one `occurred_at`, and the listeners see every row, in the same transaction.
   */
  async emitSelected(
    tenantId: string,
    type: EventType,
    count: number,
    payloads: SqlRows,
  ): Promise<void> {
    if (!this.tx.inTransaction) throw new Error('Events must be emitted inside a transaction');
    if (!count) return;
    // What was emitted before is written before, so the outbox keeps the order of emission.
    await this.flush(this.pending());
    const occurredAt = new Date();
    // The ids are a block of ULIDs made in SQL, the ord-th being the block's (ord - 1)-th; the
    // listeners get the same ids made here, so none crosses the wire.
    const ids = reserveUlids();
    const prefix = `${ID_PREFIX.event}_`;
    const k = payloads.params.length + 1;
    const head = `{"event_type":${JSON.stringify(type)},"event_id":"`;
    const middle = `","occurred_at":"${occurredAt.toISOString()}","payload":`;
    const id = ulidSql(`$${k + 2}::text`, `$${k + 3}::bigint`, `$${k + 4}::bigint`, 's.ord - 1');
    const written = await this.events.insertSelected(
      `SELECT $${k + 1}::text || ${id} AS id, s.payload FROM (${payloads.sql}) s
        WHERE s.ord BETWEEN 1 AND $${k + 5} ORDER BY s.ord`,
      [tenantId, ...payloads.params, prefix, ids.time, ids.hi, ids.lo, count],
      { eventType: type, occurredAt, head, middle },
    );
    if (written !== count)
      throw new Error(`emitSelected: ${written} of ${count} ${type} events had a payload`);
    const rows = Array.from({ length: count }, (_, i) => ({
      id: prefix + ulidAt(ids, i),
      eventType: type,
    }));
    for (const listener of this.listeners) await listener(tenantId, rows);
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
