import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../database/transaction-host';
import { WebhookAttemptEntity } from './webhook-attempt.entity';
import { WebhookDeliveryEntity, type DeliveryStatus } from './webhook-delivery.entity';

export interface ClaimedAttempt {
  attempt: number;
  eventType: string;
  body: string;
  status: DeliveryStatus;
}

/**
 * Deliveries and their attempts. An attempt is claimed by one conditional UPDATE that sets a lock
 * lasting longer than the HTTP timeout, so no two workers ever send the same delivery at once and
 * a delivery already `delivered` is never sent again by a stale job.
 */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get deliveries() {
    return this.tx.manager.getRepository(WebhookDeliveryEntity);
  }

  private get attempts() {
    return this.tx.manager.getRepository(WebhookAttemptEntity);
  }

  async insert(rows: WebhookDeliveryEntity[]): Promise<void> {
    if (rows.length) await this.deliveries.insert(rows);
  }

  find(tenantId: string, eventId: string): Promise<WebhookDeliveryEntity | null> {
    return this.deliveries.findOneBy({ tenantId, eventId });
  }

  list(
    tenantId: string,
    status: DeliveryStatus | undefined,
    offset: number,
    limit: number,
  ): Promise<[WebhookDeliveryEntity[], number]> {
    return this.deliveries.findAndCount({
      where: { tenantId, ...(status ? { status } : {}) },
      order: { createdAt: 'DESC', eventId: 'DESC' },
      skip: offset,
      take: limit,
    });
  }

  attemptsOf(tenantId: string, eventId: string): Promise<WebhookAttemptEntity[]> {
    return this.attempts.find({ where: { tenantId, eventId }, order: { attempt: 'ASC' } });
  }

  /**
   * Serialises claims of one tenant (transaction-scoped advisory lock) and counts its attempts in
   * flight, so one endpoint never holds more than its share of the workers.
   */
  async inFlight(tenantId: string): Promise<number> {
    await this.tx.manager.query(
      `SELECT pg_advisory_xact_lock(hashtext('webhook-endpoint:' || $1))`,
      [tenantId],
    );
    const [{ count }]: { count: number }[] = await this.tx.manager.query(
      `SELECT count(*)::int AS count FROM webhook_deliveries
        WHERE tenant_id = $1 AND locked_until > now()`,
      [tenantId],
    );
    return count;
  }

  /** Claims the next attempt of a due pending delivery (or, for a replay, of a settled one). */
  async claim(
    tenantId: string,
    eventId: string,
    replay: boolean,
    lockMs: number,
  ): Promise<ClaimedAttempt | undefined> {
    const condition = replay
      ? `d.status IN ('dead', 'delivered')`
      : `d.status = 'pending' AND d.next_attempt_at <= now() + interval '1 second'`;
    const [rows]: [
      { attempts: number; event_type: string; body: string; status: DeliveryStatus }[],
      number,
    ] = await this.tx.manager.query(
      `UPDATE webhook_deliveries d
            SET attempts = d.attempts + 1, locked_until = now() + make_interval(secs => $3 / 1000.0),
                updated_at = now()
           FROM events e
          WHERE d.tenant_id = $1 AND d.event_id = $2 AND e.tenant_id = d.tenant_id AND e.id = d.event_id
            AND ${condition} AND (d.locked_until IS NULL OR d.locked_until < now())
        RETURNING d.attempts, d.event_type, d.status, e.body`,
      [tenantId, eventId, lockMs],
    );
    const row = rows[0];
    return (
      row && {
        attempt: row.attempts,
        eventType: row.event_type,
        body: row.body,
        status: row.status,
      }
    );
  }

  async recordAttempt(attempt: WebhookAttemptEntity): Promise<void> {
    await this.attempts.insert(attempt);
  }

  async settle(
    tenantId: string,
    eventId: string,
    changes: {
      status: DeliveryStatus;
      nextAttemptAt: Date | null;
      lastStatusCode: number | null;
      lastError: string | null;
      deliveredAt?: Date;
    },
  ): Promise<void> {
    await this.deliveries.update(
      { tenantId, eventId },
      { ...changes, lockedUntil: null, updatedAt: new Date() },
    );
  }

  /** Pending deliveries overdue by `graceMs` and not in flight: what Redis or a crash lost. */
  async overdue(
    graceMs: number,
    limit: number,
  ): Promise<{ tenantId: string; eventId: string; attempts: number }[]> {
    const rows: { tenant_id: string; event_id: string; attempts: number }[] =
      await this.tx.manager.query(
        `SELECT tenant_id, event_id, attempts FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at < now() - make_interval(secs => $1 / 1000.0)
          AND (locked_until IS NULL OR locked_until < now())
        ORDER BY next_attempt_at
        LIMIT $2`,
        [graceMs, limit],
      );
    return rows.map((r) => ({ tenantId: r.tenant_id, eventId: r.event_id, attempts: r.attempts }));
  }
}
