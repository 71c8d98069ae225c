import { Injectable } from '@nestjs/common';
import { DELETE_BATCH as BATCH, deletePerTenantInBatches } from '../../database/batched-delete';
import { PersonalData } from '../../common/privacy/personal-data.decorator';
import { redactColumns } from '../../database/redaction';
import { TransactionHost } from '../../database/transaction-host';
import { WebhookAttemptEntity } from '../webhook-attempt.entity';
import { WebhookDeliveryEntity, type DeliveryStatus } from '../webhook-delivery.entity';
import { decodeFlush, decodeSettled, flushParameters, settleParameters } from './deliveries.codec';
import { FLUSH, SETTLE } from './deliveries.sql';
import {
  type ArrayQuery,
  ENDPOINT_SLOTS,
  type FlushInput,
  type FlushOutput,
  type OverdueDelivery,
  type Queryable,
  type SettleInput,
} from './deliveries.types';

/**
 * Deliveries, their attempts and the endpoints' slots: every statement on webhook_deliveries,
 * webhook_attempts and webhook_endpoint_slots is here, the admin API's reads too. An attempt is
 * claimed by a statement that sets a delivery lock lasting longer than the HTTP timeout, so no two
 * workers ever send the same delivery at once and a delivery already `delivered` is never sent
 * again by a stale job; an endpoint's attempts in flight are bounded by the slots leased to
 * processes. The hot path is one constant statement.
 */
@Injectable()
export class DeliveriesRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get deliveries() {
    return this.tx.manager.getRepository(WebhookDeliveryEntity);
  }

  private get attempts() {
    return this.tx.manager.getRepository(WebhookAttemptEntity);
  }

  /** New pending deliveries, in the emitting transaction: one constant statement for any number. */
  async insertPending(tenantId: string, events: { id: string; eventType: string }[], at: Date) {
    if (!events.length) return;
    await this.tx.manager.query(
      `INSERT INTO webhook_deliveries
              (tenant_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
       SELECT $1, e.id, e.event_type, 'pending', 0, $4, $4, $4
         FROM unnest($2::text[], $3::text[]) AS e(id, event_type)`,
      [tenantId, events.map((e) => e.id), events.map((e) => e.eventType), at],
    );
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
   * Records, unclaims, leases and claims in one statement (FLUSH), run by `run` outside any
   * caller's transaction. Claims must belong to lanes of the same call, and no delivery may
   * appear twice across records, unclaims and claims.
   */
  async flush(input: FlushInput, run: ArrayQuery): Promise<FlushOutput> {
    return decodeFlush(input, await run(FLUSH, flushParameters(input)));
  }

  /**
   * Records the attempts and settles their deliveries in one statement (or as part of the
   * caller's transaction); per input, whether its delivery was settled. False means the delivery
   * had moved on (the claim lapsed and a later attempt took it): only the attempt row was written.
   */
  async settleMany(
    inputs: SettleInput[],
    manager: Queryable = this.tx.manager,
  ): Promise<boolean[]> {
    return decodeSettled(inputs, await manager.query(SETTLE, settleParameters(inputs)));
  }

  /** Pending deliveries: due now (or overdue), and scheduled for a later retry (all tenants). */
  async pendingCounts(): Promise<{ due: number; scheduled: number }> {
    const [row]: { due: number; scheduled: number }[] = await this.tx.manager.query(
      `SELECT count(*) FILTER (WHERE next_attempt_at <= now())::int AS due,
              count(*) FILTER (WHERE next_attempt_at > now())::int AS scheduled
         FROM webhook_deliveries WHERE status = 'pending'`,
    );
    return row;
  }

  /** Slot rows for a new endpoint (inside the transaction that creates it). */
  async createSlots(tenantId: string): Promise<void> {
    await this.tx.manager.query(
      `INSERT INTO webhook_endpoint_slots (tenant_id, slot)
       SELECT $1, generate_series(0, $2 - 1) ON CONFLICT DO NOTHING`,
      [tenantId, ENDPOINT_SLOTS],
    );
  }

  /**
   * What Redis or a crash may have lost, oldest first: pending deliveries overdue by `graceMs`, and
   * staff replays requested more than `graceMs` ago, that are not in flight. Each row says whether
   * every one of the endpoint's `endpointConcurrency` slots is leased (`busy`) and whether `holder`
   * (the asking process) holds one of them (`mine`): the sweeper must not skip a busy endpoint, or
   * a lost job would wait for a pause in its traffic that may never come (sweeper.ts).
   */
  async overdue(
    graceMs: number,
    limit: number,
    endpointConcurrency: number,
    holder: string,
  ): Promise<OverdueDelivery[]> {
    const rows: {
      tenant_id: string;
      event_id: string;
      attempts: number;
      replay: boolean;
      busy: boolean;
      mine: boolean;
    }[] = await this.tx.manager.query(
      `SELECT o.tenant_id, o.event_id, o.attempts, o.replay,
              (SELECT count(*) FROM webhook_endpoint_slots s
                WHERE s.tenant_id = o.tenant_id AND s.slot < $3 AND s.locked_until > now()) >= $3
                AS busy,
              EXISTS (SELECT 1 FROM webhook_endpoint_slots s
                       WHERE s.tenant_id = o.tenant_id AND s.slot < $3 AND s.holder = $4
                         AND s.locked_until > now()) AS mine
         FROM ((SELECT d.tenant_id, d.event_id, d.attempts, false AS replay,
                       d.next_attempt_at AS since
                  FROM webhook_deliveries d
                 WHERE d.status = 'pending'
                   AND d.next_attempt_at < now() - make_interval(secs => $1 / 1000.0)
                   AND (d.locked_until IS NULL OR d.locked_until < now())
                 ORDER BY d.next_attempt_at
                 LIMIT $2)
               UNION ALL
               (SELECT d.tenant_id, d.event_id, d.attempts, true, d.replay_requested_at
                  FROM webhook_deliveries d
                 WHERE d.replay_requested_at < now() - make_interval(secs => $1 / 1000.0)
                   AND d.status <> 'pending'
                   AND (d.locked_until IS NULL OR d.locked_until < now())
                 ORDER BY d.replay_requested_at
                 LIMIT $2)) o
        ORDER BY o.since
        LIMIT $2`,
      [graceMs, limit, Math.min(endpointConcurrency, ENDPOINT_SLOTS), holder],
    );
    return rows.map((r) => ({
      tenantId: r.tenant_id,
      eventId: r.event_id,
      attempts: r.attempts,
      replay: r.replay,
      busy: r.busy,
      mine: r.mine,
    }));
  }

  /** Asks for one fresh attempt of a settled delivery (a staff replay); false if it is pending. */
  async requestReplay(tenantId: string, eventId: string): Promise<boolean> {
    // TypeORM answers an UPDATE with [rows, affected].
    const [, affected]: [unknown[], number] = await this.tx.manager.query(
      `UPDATE webhook_deliveries SET replay_requested_at = now()
        WHERE tenant_id = $1 AND event_id = $2 AND status <> 'pending'`,
      [tenantId, eventId],
    );
    return affected > 0;
  }

  /**
   * Deletes the finished deliveries, with their attempts, of events older than `retentionDays`,
   * tenant by tenant in batches (database/batched-delete.ts); how many went (DeliveryRetention).
   */
  deleteExpired(retentionDays: number): Promise<number> {
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
      [retentionDays],
    );
  }

  /**
   * docs/privacy.md: erased values a receiver echoed back (attempts' answers and errors), replaced;
   * the event bodies themselves are the outbox's.
   */
  @PersonalData('redact', 'webhook_attempts')
  async redactPersonal(tenantId: string, values: string[]): Promise<number> {
    const attempts = await redactColumns(this.tx.manager, tenantId, values, {
      table: 'webhook_attempts',
      key: ['tenant_id', 'event_id', 'attempt'],
      columns: { response_body: 'text', error: 'text' },
    });
    const deliveries = await redactColumns(this.tx.manager, tenantId, values, {
      table: 'webhook_deliveries',
      key: ['tenant_id', 'event_id'],
      columns: { last_error: 'text' },
    });
    return attempts + deliveries;
  }
}
