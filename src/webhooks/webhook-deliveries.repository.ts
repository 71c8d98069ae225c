import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../database/transaction-host';
import { WebhookAttemptEntity } from './webhook-attempt.entity';
import { WebhookDeliveryEntity, type DeliveryStatus } from './webhook-delivery.entity';

/** What runs a statement in the caller's transaction: its manager. */
export interface Queryable {
  query(sql: string, parameters: unknown[]): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * Runs the engine's statement on a pool connection of its own: named, so it is parsed and planned
 * once per connection, and answering rows as arrays (no object per row).
 */
export type ArrayQuery = (text: string, values: unknown[], name: string) => Promise<unknown[][]>;

/** The highest WEBHOOK_ENDPOINT_CONCURRENCY: slot rows made per endpoint (migration …Slots). */
export const ENDPOINT_SLOTS = 64;

/** The endpoint as the statement found it (read afresh by every statement that claims for it). */
export interface EndpointSnapshot {
  url: string;
  enabled: boolean;
  secretSealed: string;
  previousSecretSealed: string | null;
  /** Epoch milliseconds. */
  previousSecretExpiresAt: number | null;
}

/** A claimed attempt: the delivery's lock is held and `attempts` counts this one. */
export interface ClaimedAttempt {
  attempt: number;
  eventType: string;
  body: string;
  /** The delivery's status when claimed (`pending`, or for a replay `dead`/`delivered`). */
  status: DeliveryStatus;
}

/**
 * What a claim found: an attempt to make; the endpoint's slots all leased by other processes
 * (`busy`); more than this process may hold claimed for the endpoint (`limited`, ask again
 * later); or nothing to do (delivered, in flight elsewhere, not due).
 */
export type ClaimOutcome =
  | { kind: 'claimed'; claim: ClaimedAttempt }
  | { kind: 'busy'; attempts: number }
  | { kind: 'limited' }
  | { kind: 'none' };

export interface SettleInput {
  tenantId: string;
  eventId: string;
  attempt: number;
  /** Epoch milliseconds of the attempt. */
  at: number;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
  replay: boolean;
  status: DeliveryStatus;
  /** Epoch milliseconds, or null. */
  nextAttemptAt: number | null;
  /** Set when the attempt delivered; otherwise `delivered_at` stays as it was. */
  deliveredAt: number | null;
}

/**
 * This process's slots of one endpoint: keep (and lease up to) `target` of them, release the
 * rest. `outstanding` attempts are already claimed (waiting or in flight); claims of this
 * statement bring the total to at most `prefetch` × the slots held. `renew` extends the leases
 * of the slots kept.
 */
export interface LaneLease {
  tenantId: string;
  target: number;
  outstanding: number;
  prefetch: number;
  renew: boolean;
}

/** A claim request: one delivery of a lane that is in the same statement. */
export interface ClaimRequest {
  tenantId: string;
  eventId: string;
  replay: boolean;
  /**
   * If the endpoint has no slot for this process, the delivery's next attempt is put off by this
   * long (`next_attempt_at`), in the same statement, so that a sweeper does not take the deferred
   * delivery for a lost one; the caller re-queues it with the same delay. 0 writes nothing.
   */
  deferMs: number;
}

/** A delivery the sweeper found overdue (see WebhookDeliveriesRepository.overdue). */
export interface OverdueDelivery {
  tenantId: string;
  eventId: string;
  attempts: number;
  /** A staff replay not made yet (the delivery is settled). */
  replay: boolean;
  /** Every one of the endpoint's slots is leased. */
  busy: boolean;
  /** The asking process holds one of them. */
  mine: boolean;
}

/** A claim given back unsent (it waited too long, or the process is stopping). */
export interface Unclaim {
  tenantId: string;
  eventId: string;
  attempt: number;
}

export interface FlushInput {
  holder: string;
  lockMs: number;
  endpointConcurrency: number;
  records: SettleInput[];
  lanes: LaneLease[];
  claims: ClaimRequest[];
  unclaims: Unclaim[];
}

export interface FlushOutput {
  /** Per record: whether its delivery was settled (false: a later attempt owns it). */
  settled: boolean[];
  /** Per lane: the slots this process holds now, and the endpoint (null when it is gone). */
  lanes: { held: number; endpoint: EndpointSnapshot | null }[];
  /** Per claim request, in order. */
  claims: ClaimOutcome[];
}

/**
 * Claimable: unlocked, and due (pending), or for a replay settled with a replay requested and not
 * made yet (`replay_requested_at`, written before the 202: a duplicate or stale replay job finds
 * nothing to do).
 */
const CLAIMABLE = `(d.locked_until IS NULL OR d.locked_until < now())
       AND CASE WHEN q.replay THEN d.status IN ('dead', 'delivered')
                                   AND d.replay_requested_at IS NOT NULL
                ELSE d.status = 'pending' AND d.next_attempt_at <= now() + interval '1 second' END`;
const LOCK = `now() + make_interval(secs => $14 / 1000.0)`;

/**
 * Attempt rows, and the settling of their deliveries ($1–$12, one array element per attempt;
 * times as epoch milliseconds). The attempt's row, written `in_flight` by its claim, is completed
 * with the outcome (or inserted, should it be missing). A delivery is settled only if `attempts`
 * still equals the attempt's number, so an attempt whose claim lapsed can never overwrite a later
 * one. Writing the same attempt twice (a retried statement that had committed) changes nothing the
 * second time. A recorded replay clears the replay request it answered: one made before its claim
 * (`updated_at` is the claim's time), not one made while it was in flight.
 */
const RECORD_CTES = `r AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::float8[], $5::int[], $6::int[],
                         $7::text[], $8::text[], $9::boolean[], $10::text[], $11::float8[],
                         $12::float8[]) WITH ORDINALITY
                  AS r(tenant_id, event_id, attempt, at_ms, status_code, duration_ms, error,
                       response_body, replay, status, next_attempt_ms, delivered_ms, n)
  ), attempt AS (
    INSERT INTO webhook_attempts AS a
           (tenant_id, event_id, attempt, at, status_code, duration_ms, error, response_body, replay,
            state)
    SELECT tenant_id, event_id, attempt, to_timestamp(at_ms / 1000), status_code, duration_ms,
           error, response_body, replay, 'completed'
      FROM r
    ON CONFLICT (tenant_id, event_id, attempt) DO UPDATE
       SET at = excluded.at, status_code = excluded.status_code,
           duration_ms = excluded.duration_ms, error = excluded.error,
           response_body = excluded.response_body, state = 'completed'
     WHERE a.state = 'in_flight'
  ), settled AS (
    UPDATE webhook_deliveries d
       SET status = r.status, next_attempt_at = to_timestamp(r.next_attempt_ms / 1000),
           delivered_at = COALESCE(to_timestamp(r.delivered_ms / 1000), d.delivered_at),
           last_status_code = r.status_code, last_error = r.error, locked_until = NULL,
           replay_requested_at = CASE WHEN r.replay AND d.replay_requested_at <= d.updated_at
                                      THEN NULL ELSE d.replay_requested_at END,
           updated_at = now()
      FROM r
     WHERE d.tenant_id = r.tenant_id AND d.event_id = r.event_id AND d.attempts = r.attempt
    RETURNING r.n
  )`;

/**
 * The engine's one statement (one round trip, one commit), in four parts that touch distinct rows
 * (the caller sees to that):
 *
 * 1. Records: as RECORD_CTES.
 * 2. Unclaims ($25–$27): claims given back unsent; `attempts` steps back, the lock goes, and the
 *    attempt's `in_flight` row is deleted. The claim is still this process's while `attempts`
 *    equals its number and a lock is set, lapsed or not: once its lock lapses nobody else can
 *    claim the delivery without moving `attempts` on, and a later claim given back clears the
 *    lock. So a claim given back after its lock lapsed (a stalled process, a statement written
 *    late) still steps back, and no attempt number is used up without a request.
 * 3. Leases ($16–$20, one element per lane): this process (`holder` $13) keeps at most `target`
 *    of its live slot leases, renewing them when asked, releases the others, and leases free or
 *    lapsed slots (`slot < cap` $15, FOR UPDATE SKIP LOCKED, so concurrent statements never take
 *    the same one) up to `target`. An endpoint never has more than `cap` slots leased in all.
 * 4. Claims ($21–$24): a due (or, for a replay, settled) unlocked delivery is claimed (`attempts
 *    + 1`, locked for `lockMs` $14) if its lane holds a slot and the lane's claimed attempts stay
 *    within the lane's `prefetch` × its slots; over that it is `limited`; with no slot it is `busy`,
 *    and its `next_attempt_at` moves by `defer_ms`. Each claim writes its attempt's row
 *    `in_flight` in the same statement, before any request is sent, so a process killed
 *    mid-attempt leaves the attempt in the log.
 *
 * Rows: one per settled record, per lane (slots held, and the endpoint as it is now) and per
 * claim answered (the stored body for a claimed one); a claim not answered has nothing to do.
 */
const FLUSH = `
  WITH ${RECORD_CTES}, u AS (
    SELECT * FROM unnest($25::text[], $26::text[], $27::int[]) AS u(tenant_id, event_id, attempt)
  ), unclaimed AS (
    UPDATE webhook_deliveries d
       SET attempts = d.attempts - 1, locked_until = NULL, updated_at = now()
      FROM u
     WHERE d.tenant_id = u.tenant_id AND d.event_id = u.event_id AND d.attempts = u.attempt
       AND d.locked_until IS NOT NULL
  ), unsent AS (
    DELETE FROM webhook_attempts a USING u
     WHERE a.tenant_id = u.tenant_id AND a.event_id = u.event_id AND a.attempt = u.attempt
       AND a.state = 'in_flight'
  ), l AS (
    SELECT * FROM unnest($16::text[], $17::int[], $18::int[], $19::int[], $20::boolean[])
                  WITH ORDINALITY AS l(tenant_id, target, outstanding, prefetch, renew, n)
  ), mine AS (
    SELECT m.tenant_id, m.slot, row_number() OVER (PARTITION BY m.tenant_id ORDER BY m.slot) AS k
      FROM (SELECT s.tenant_id, s.slot FROM webhook_endpoint_slots s JOIN l ON l.tenant_id = s.tenant_id
             WHERE s.holder = $13 AND s.locked_until > now() AND s.slot < $15
               FOR UPDATE OF s SKIP LOCKED) m
  ), free AS (
    SELECT l.tenant_id, f.slot
      FROM l CROSS JOIN LATERAL (
        SELECT s.slot FROM webhook_endpoint_slots s
         WHERE s.tenant_id = l.tenant_id AND s.slot < $15
           AND (s.locked_until IS NULL OR s.locked_until <= now())
         ORDER BY s.slot
         LIMIT greatest(l.target - (SELECT count(*) FROM mine WHERE mine.tenant_id = l.tenant_id), 0)
           FOR UPDATE SKIP LOCKED) f
  ), change AS (
    SELECT m.tenant_id, m.slot, m.k <= l.target AS keep
      FROM mine m JOIN l ON l.tenant_id = m.tenant_id
     WHERE l.renew OR m.k > l.target
    UNION ALL
    SELECT tenant_id, slot, true FROM free
  ), leased AS (
    UPDATE webhook_endpoint_slots s
       SET holder = CASE WHEN c.keep THEN $13 END,
           locked_until = CASE WHEN c.keep THEN ${LOCK} END
      FROM change c
     WHERE s.tenant_id = c.tenant_id AND s.slot = c.slot
  ), held AS (
    SELECT l.n, l.tenant_id, l.outstanding, l.prefetch,
           (SELECT count(*) FROM mine m WHERE m.tenant_id = l.tenant_id AND m.k <= l.target)
         + (SELECT count(*) FROM free f WHERE f.tenant_id = l.tenant_id) AS slots
      FROM l
  ), q AS (
    SELECT * FROM unnest($21::text[], $22::text[], $23::boolean[], $24::int[]) WITH ORDINALITY
                  AS q(tenant_id, event_id, replay, defer_ms, n)
  ), due AS (
    SELECT q.n, q.tenant_id, q.event_id, q.replay, q.defer_ms, d.attempts, h.slots,
           row_number() OVER (PARTITION BY q.tenant_id ORDER BY q.n) + h.outstanding
             <= h.prefetch * h.slots AS within
      FROM q JOIN webhook_deliveries d ON d.tenant_id = q.tenant_id AND d.event_id = q.event_id
      JOIN held h ON h.tenant_id = q.tenant_id
     WHERE ${CLAIMABLE}
  ), claimed AS (
    UPDATE webhook_deliveries d
       SET attempts = d.attempts + 1, locked_until = ${LOCK}, updated_at = now()
      FROM due q
     WHERE d.tenant_id = q.tenant_id AND d.event_id = q.event_id AND q.slots > 0 AND q.within
       AND ${CLAIMABLE}
    RETURNING q.n, d.tenant_id, d.event_id, d.attempts, d.event_type, d.status, q.replay
  ), started AS (
    INSERT INTO webhook_attempts (tenant_id, event_id, attempt, at, duration_ms, replay, state)
    SELECT tenant_id, event_id, attempts, now(), 0, replay, 'in_flight' FROM claimed
    ON CONFLICT DO NOTHING
  ), deferred AS (
    UPDATE webhook_deliveries d
       SET next_attempt_at = now() + make_interval(secs => q.defer_ms / 1000.0), updated_at = now()
      FROM due q
     WHERE d.tenant_id = q.tenant_id AND d.event_id = q.event_id AND q.slots = 0
       AND q.defer_ms > 0 AND NOT q.replay AND ${CLAIMABLE}
  )
  SELECT 'c' AS kind, c.n::int, c.attempts, c.event_type, c.status, e.body,
         NULL::text AS url, NULL::boolean AS enabled, NULL::text AS secret_sealed,
         NULL::text AS previous_secret_sealed, NULL::float8 AS previous_secret_expires_ms
    FROM claimed c JOIN events e ON e.tenant_id = c.tenant_id AND e.id = c.event_id
  UNION ALL
  SELECT CASE WHEN due.slots = 0 THEN 'b' ELSE 'l' END, due.n::int, due.attempts, NULL, NULL,
         NULL, NULL, NULL, NULL, NULL, NULL
    FROM due WHERE due.slots = 0 OR NOT due.within
  UNION ALL
  SELECT 'h', h.n::int, h.slots::int, NULL, NULL, NULL, w.url, w.enabled, w.secret_sealed,
         w.previous_secret_sealed, extract(epoch FROM w.previous_secret_expires_at)::float8 * 1000
    FROM held h LEFT JOIN webhook_endpoints w ON w.tenant_id = h.tenant_id
  UNION ALL
  SELECT 's', n::int, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM settled`;

/** Records attempts and settles their deliveries (as part of the caller's transaction). */
const SETTLE = `WITH ${RECORD_CTES} SELECT n::int FROM settled`;

type FlushRow = [
  kind: 'c' | 'b' | 'l' | 'h' | 's',
  n: number,
  count: number | null,
  eventType: string | null,
  status: DeliveryStatus | null,
  body: string | null,
  url: string | null,
  enabled: boolean | null,
  secretSealed: string | null,
  previousSecretSealed: string | null,
  previousSecretExpiresMs: number | null,
];

/**
 * Deliveries and their attempts. An attempt is claimed by a statement that sets a delivery lock
 * lasting longer than the HTTP timeout, so no two workers ever send the same delivery at once and
 * a delivery already `delivered` is never sent again by a stale job; an endpoint's attempts in
 * flight are bounded by the slots leased to processes. The hot path is one constant statement.
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
   * Records, unclaims, leases and claims in one statement (FLUSH), run by `run` outside any
   * caller's transaction. Claims must belong to lanes of the same call, and no delivery may
   * appear twice across records, unclaims and claims.
   */
  async flush(input: FlushInput, run: ArrayQuery): Promise<FlushOutput> {
    const { records, lanes, claims, unclaims } = input;
    const rows = (await run(
      FLUSH,
      [
        ...settleParameters(records),
        input.holder,
        input.lockMs,
        Math.min(input.endpointConcurrency, ENDPOINT_SLOTS),
        lanes.map((l) => l.tenantId),
        lanes.map((l) => l.target),
        lanes.map((l) => l.outstanding),
        lanes.map((l) => l.prefetch),
        lanes.map((l) => l.renew),
        claims.map((c) => c.tenantId),
        claims.map((c) => c.eventId),
        claims.map((c) => c.replay),
        claims.map((c) => c.deferMs),
        unclaims.map((u) => u.tenantId),
        unclaims.map((u) => u.eventId),
        unclaims.map((u) => u.attempt),
      ],
      'webhook_flush_v6',
    )) as FlushRow[];
    const output: FlushOutput = {
      settled: records.map(() => false),
      lanes: lanes.map(() => ({ held: 0, endpoint: null })),
      claims: claims.map(() => ({ kind: 'none' })),
    };
    for (const row of rows) {
      const i = row[1] - 1;
      switch (row[0]) {
        case 's':
          output.settled[i] = true;
          break;
        case 'h':
          output.lanes[i] = {
            held: row[2]!,
            endpoint:
              row[6] === null
                ? null
                : {
                    url: row[6],
                    enabled: row[7]!,
                    secretSealed: row[8]!,
                    previousSecretSealed: row[9],
                    previousSecretExpiresAt: row[10],
                  },
          };
          break;
        case 'c':
          output.claims[i] = {
            kind: 'claimed',
            claim: { attempt: row[2]!, eventType: row[3]!, status: row[4]!, body: row[5]! },
          };
          break;
        case 'b':
          output.claims[i] = { kind: 'busy', attempts: row[2]! };
          break;
        case 'l':
          output.claims[i] = { kind: 'limited' };
          break;
      }
    }
    return output;
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
    const rows: { n: number }[] = await manager.query(SETTLE, settleParameters(inputs));
    const settled = inputs.map(() => false);
    for (const row of rows) settled[row.n - 1] = true;
    return settled;
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
   * a lost job would wait for a pause in its traffic that may never come (webhook-delivery.service
   * sweep()).
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
}

function settleParameters(inputs: SettleInput[]): unknown[] {
  return [
    inputs.map((i) => i.tenantId),
    inputs.map((i) => i.eventId),
    inputs.map((i) => i.attempt),
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
