import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../database/transaction-host';
import { WebhookAttemptEntity } from './webhook-attempt.entity';
import { WebhookDeliveryEntity, type DeliveryStatus } from './webhook-delivery.entity';

/**
 * What runs a statement: the current manager, or the pool directly (the batched hot path, which
 * may use `name` for a prepared statement: parsed and planned once per connection).
 */
export interface Queryable {
  query(sql: string, parameters: unknown[], name?: string): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

interface FlushRow {
  kind: 'claimed' | 'busy' | 'settled';
  n: number | null;
  tenant_id: string | null;
  event_id: string | null;
  attempts: number | null;
  event_type: string | null;
  status: DeliveryStatus | null;
  slot: number | null;
  body: string | null;
  url: string | null;
  enabled: boolean | null;
  secret_sealed: string | null;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
}

/** The highest WEBHOOK_ENDPOINT_CONCURRENCY: slot rows made per endpoint (migration …Slots). */
export const ENDPOINT_SLOTS = 64;

/** A claimed attempt, with what sending it needs (the endpoint as it is at the claim). */
export interface ClaimedAttempt {
  attempt: number;
  eventType: string;
  body: string;
  status: DeliveryStatus;
  /** The endpoint slot this attempt holds; released when the attempt is settled. */
  slot: number;
  endpoint: {
    url: string;
    enabled: boolean;
    secretSealed: string;
    previousSecretSealed: string | null;
    previousSecretExpiresAt: Date | null;
  } | null;
}

/** What a claim found: an attempt to make, an endpoint at its cap, or nothing to do. */
export type ClaimOutcome =
  | { kind: 'claimed'; claim: ClaimedAttempt }
  | { kind: 'busy'; attempts: number }
  | { kind: 'none' };

export interface SettleInput {
  tenantId: string;
  eventId: string;
  attempt: number;
  slot: number;
  at: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
  replay: boolean;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  /** Set when the attempt delivered; otherwise `delivered_at` stays as it was. */
  deliveredAt: Date | null;
}

/** A claim request: one job's delivery. */
export interface ClaimRequest {
  tenantId: string;
  eventId: string;
  replay: boolean;
  /**
   * If the delivery is claimable but its endpoint has no free slot, its next attempt is put off
   * by this long (`next_attempt_at`), in the same statement: the caller defers its job by as
   * much, and the sweeper does not mistake the deferred delivery for a lost one. 0 when the
   * caller will claim again at once instead (nothing is written then).
   */
  deferMs: number;
}

const CLAIMABLE = `(d.locked_until IS NULL OR d.locked_until < now())
       AND CASE WHEN q.replay THEN d.status IN ('dead', 'delivered')
                ELSE d.status = 'pending' AND d.next_attempt_at <= now() + interval '1 second' END`;
const LEASE = `now() + make_interval(secs => $17 / 1000.0)`;

/**
 * The attempt rows and the settling of their deliveries, the first CTEs of FLUSH and SETTLE
 * (parameters $1–$13, one array element per attempt). A delivery is settled only if `attempts`
 * still equals the attempt's number.
 */
const RECORD_CTES = `r AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::timestamptz[],
                         $6::int[], $7::int[], $8::text[], $9::text[], $10::boolean[], $11::text[],
                         $12::timestamptz[], $13::timestamptz[])
                  AS r(tenant_id, event_id, attempt, slot, at, status_code, duration_ms, error,
                       response_body, replay, status, next_attempt_at, delivered_at)
  ), attempt AS (
    INSERT INTO webhook_attempts
           (tenant_id, event_id, attempt, at, status_code, duration_ms, error, response_body, replay)
    SELECT tenant_id, event_id, attempt, at, status_code, duration_ms, error, response_body, replay
      FROM r
  ), settled AS (
    UPDATE webhook_deliveries d
       SET status = r.status, next_attempt_at = r.next_attempt_at,
           delivered_at = COALESCE(r.delivered_at, d.delivered_at),
           last_status_code = r.status_code, last_error = r.error, locked_until = NULL,
           updated_at = now()
      FROM r
     WHERE d.tenant_id = r.tenant_id AND d.event_id = r.event_id AND d.attempts = r.attempt
    RETURNING d.tenant_id, d.event_id
  )`;

/**
 * The engine's hot path in one statement (one round trip, one commit): record the attempts that
 * finished and settle their deliveries (as SETTLE below), then claim the requested deliveries.
 *
 * A claim takes a due (or, for a replay, settled) unlocked delivery together with a slot of its
 * endpoint, at most `cap` (= WEBHOOK_ENDPOINT_CONCURRENCY) slots per endpoint being leased at
 * any time: first the slots the records of this statement give back (still leased by their
 * attempt, locked FOR UPDATE), then free ones (`slot < cap`, no lease or a lapsed one; FOR UPDATE
 * SKIP LOCKED, so concurrent statements never share a slot and never take more slots than they
 * have deliveries to claim). Each slot row is written once: leased to its new attempt, or
 * released. The claim returns the stored body and the endpoint as it is now. A claimable delivery
 * left without a slot is reported "busy" with its attempt count, and (unless the request's
 * `defer_ms` is 0, or it is a replay) its `next_attempt_at` is put off by `defer_ms`, the delay
 * of the job that will claim it again, so the sweeper does not take it for a lost delivery while
 * it waits; anything else is not returned at all (nothing to do). The caller never names in one
 * statement a delivery it also settles.
 */
const FLUSH = `
  WITH ${RECORD_CTES}, freed AS (
    SELECT s.tenant_id, s.slot FROM webhook_endpoint_slots s
      JOIN r ON s.tenant_id = r.tenant_id AND s.slot = r.slot AND s.event_id = r.event_id
            AND s.attempt = r.attempt
       FOR UPDATE OF s
  ), q AS (
    SELECT * FROM unnest($14::text[], $15::text[], $16::boolean[], $19::int[]) WITH ORDINALITY
                  AS q(tenant_id, event_id, replay, defer_ms, n)
  ), due AS (
    SELECT q.n, q.tenant_id, q.event_id, d.attempts,
           row_number() OVER (PARTITION BY q.tenant_id ORDER BY q.n) AS k
      FROM q JOIN webhook_deliveries d ON d.tenant_id = q.tenant_id AND d.event_id = q.event_id
     WHERE ${CLAIMABLE}
  ), wanted AS (
    SELECT due.tenant_id,
           count(*) - (SELECT count(*) FROM freed f WHERE f.tenant_id = due.tenant_id AND f.slot < $18)
             AS n
      FROM due GROUP BY due.tenant_id
  ), free AS (
    SELECT w.tenant_id, s.slot
      FROM wanted w CROSS JOIN LATERAL (
        SELECT s.slot FROM webhook_endpoint_slots s
         WHERE s.tenant_id = w.tenant_id AND s.slot < $18
           AND (s.locked_until IS NULL OR s.locked_until < now())
           AND NOT EXISTS (SELECT 1 FROM r WHERE r.tenant_id = s.tenant_id AND r.slot = s.slot)
         ORDER BY s.slot LIMIT greatest(w.n, 0)
           FOR UPDATE SKIP LOCKED) s
  ), slots AS (
    SELECT tenant_id, slot, row_number() OVER (PARTITION BY tenant_id ORDER BY slot) AS k
      FROM (SELECT tenant_id, slot FROM freed WHERE slot < $18
            UNION ALL SELECT tenant_id, slot FROM free) x
  ), pick AS (
    SELECT due.n, due.tenant_id, due.event_id, slots.slot
      FROM due JOIN slots ON slots.tenant_id = due.tenant_id AND slots.k = due.k
  ), claimed AS (
    UPDATE webhook_deliveries d
       SET attempts = d.attempts + 1, locked_until = ${LEASE}, updated_at = now()
      FROM pick p JOIN q ON q.n = p.n
     WHERE d.tenant_id = p.tenant_id AND d.event_id = p.event_id AND ${CLAIMABLE}
    RETURNING p.n, p.slot, d.tenant_id, d.event_id, d.attempts, d.event_type, d.status
  ), leases AS (
    UPDATE webhook_endpoint_slots s
       SET event_id = c.event_id, attempt = c.attempts,
           locked_until = CASE WHEN c.event_id IS NULL THEN NULL ELSE ${LEASE} END
      FROM (SELECT tenant_id, slot FROM freed UNION SELECT tenant_id, slot FROM claimed) u
      LEFT JOIN claimed c ON c.tenant_id = u.tenant_id AND c.slot = u.slot
     WHERE s.tenant_id = u.tenant_id AND s.slot = u.slot
  ), deferred AS (
    UPDATE webhook_deliveries d
       SET next_attempt_at = now() + make_interval(secs => q.defer_ms / 1000.0), updated_at = now()
      FROM due JOIN q ON q.n = due.n
     WHERE d.tenant_id = due.tenant_id AND d.event_id = due.event_id
       AND q.defer_ms > 0 AND NOT q.replay AND NOT EXISTS (SELECT 1 FROM pick WHERE pick.n = due.n)
       AND ${CLAIMABLE}
  )
  SELECT 'claimed' AS kind, c.n::int, c.attempts, c.event_type, c.status, c.slot, e.body,
         w.url, w.enabled, w.secret_sealed, w.previous_secret_sealed, w.previous_secret_expires_at,
         NULL AS tenant_id, NULL AS event_id
    FROM claimed c
    JOIN events e ON e.tenant_id = c.tenant_id AND e.id = c.event_id
    LEFT JOIN webhook_endpoints w ON w.tenant_id = c.tenant_id
  UNION ALL
  SELECT 'busy', due.n::int, due.attempts, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
         NULL, NULL
    FROM due WHERE NOT EXISTS (SELECT 1 FROM pick WHERE pick.n = due.n)
  UNION ALL
  SELECT 'settled', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
         tenant_id, event_id
    FROM settled`;

/**
 * Records attempts and settles their deliveries, any number in one statement. A delivery is only
 * settled if it still belongs to the attempt (`attempts` unchanged since the claim), so an attempt
 * whose lock lapsed can never overwrite a later one; the slot lease is released if it is still
 * the attempt's. Returns the deliveries settled.
 */
const SETTLE = `
  WITH ${RECORD_CTES}, released AS (
    UPDATE webhook_endpoint_slots s
       SET event_id = NULL, attempt = NULL, locked_until = NULL
      FROM r
     WHERE s.tenant_id = r.tenant_id AND s.slot = r.slot AND s.event_id = r.event_id
       AND s.attempt = r.attempt
  )
  SELECT tenant_id, event_id FROM settled`;

/**
 * Deliveries and their attempts. An attempt is claimed by one statement that leases an endpoint
 * slot and sets a delivery lock lasting longer than the HTTP timeout, so no two workers ever send
 * the same delivery at once, an endpoint never has more than its cap in flight, and a delivery
 * already `delivered` is never sent again by a stale job. The hot path is constant raw SQL.
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
   * Records finished attempts and claims new ones, in one statement (FLUSH): per settle input
   * whether its delivery was settled, per claim request its outcome, in order. The requests must
   * name distinct deliveries, none of which is settled by the same call.
   */
  async flush(
    settles: SettleInput[],
    claims: ClaimRequest[],
    lockMs: number,
    endpointConcurrency: number,
    on: Queryable,
  ): Promise<{ settled: boolean[]; outcomes: ClaimOutcome[] }> {
    const rows: FlushRow[] = await on.query(
      FLUSH,
      [
        ...settleParameters(settles),
        claims.map((r) => r.tenantId),
        claims.map((r) => r.eventId),
        claims.map((r) => r.replay),
        lockMs,
        Math.min(endpointConcurrency, ENDPOINT_SLOTS),
        claims.map((r) => r.deferMs),
      ],
      'webhook_flush_v2',
    );
    const outcomes: ClaimOutcome[] = claims.map(() => ({ kind: 'none' }));
    const settledKeys = new Set<string>();
    for (const row of rows) {
      if (row.kind === 'settled') settledKeys.add(`${row.tenant_id}\n${row.event_id}`);
      else outcomes[row.n! - 1] = toOutcome(row);
    }
    return {
      settled: settles.map((i) => settledKeys.has(`${i.tenantId}\n${i.eventId}`)),
      outcomes,
    };
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
    const rows: { tenant_id: string; event_id: string }[] = await manager.query(
      SETTLE,
      settleParameters(inputs),
    );
    const settled = new Set(rows.map((r) => `${r.tenant_id}\n${r.event_id}`));
    return inputs.map((i) => settled.has(`${i.tenantId}\n${i.eventId}`));
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
   * Pending deliveries overdue by `graceMs` and not in flight: what Redis or a crash lost. An
   * endpoint with all `endpointConcurrency` slots leased is still working through its backlog
   * (the deliveries of a group job wait for its slots unclaimed): its deliveries are left for a
   * later sweep, when a slot is free (leases lapse, so one always will be).
   */
  async overdue(
    graceMs: number,
    limit: number,
    endpointConcurrency: number,
  ): Promise<{ tenantId: string; eventId: string; attempts: number }[]> {
    const rows: { tenant_id: string; event_id: string; attempts: number }[] =
      await this.tx.manager.query(
        `SELECT d.tenant_id, d.event_id, d.attempts FROM webhook_deliveries d
        WHERE d.status = 'pending'
          AND d.next_attempt_at < now() - make_interval(secs => $1 / 1000.0)
          AND (d.locked_until IS NULL OR d.locked_until < now())
          AND (SELECT count(*) FROM webhook_endpoint_slots s
                WHERE s.tenant_id = d.tenant_id AND s.locked_until > now()) < $3
        ORDER BY d.next_attempt_at
        LIMIT $2`,
        [graceMs, limit, Math.min(endpointConcurrency, ENDPOINT_SLOTS)],
      );
    return rows.map((r) => ({ tenantId: r.tenant_id, eventId: r.event_id, attempts: r.attempts }));
  }
}

function settleParameters(inputs: SettleInput[]): unknown[] {
  return [
    inputs.map((i) => i.tenantId),
    inputs.map((i) => i.eventId),
    inputs.map((i) => i.attempt),
    inputs.map((i) => i.slot),
    inputs.map((i) => i.at),
    inputs.map((i) => i.statusCode),
    inputs.map((i) => i.durationMs),
    inputs.map((i) => i.error),
    inputs.map((i) => i.responseBody),
    inputs.map((i) => i.replay),
    inputs.map((i) => i.status),
    inputs.map((i) => i.nextAttemptAt),
    inputs.map((i) => i.deliveredAt),
  ];
}

function toOutcome(row: FlushRow): ClaimOutcome {
  if (row.kind === 'busy') return { kind: 'busy', attempts: row.attempts! };
  return {
    kind: 'claimed',
    claim: {
      attempt: row.attempts!,
      eventType: row.event_type!,
      body: row.body!,
      status: row.status!,
      slot: row.slot!,
      endpoint:
        row.url === null
          ? null
          : {
              url: row.url,
              enabled: row.enabled!,
              secretSealed: row.secret_sealed!,
              previousSecretSealed: row.previous_secret_sealed,
              previousSecretExpiresAt: row.previous_secret_expires_at,
            },
    },
  };
}
