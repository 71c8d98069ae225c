/**
 * The SQL of the engine's hot path: the one statement that records, unclaims, leases and claims
 * (FLUSH), and the settling of records alone (SETTLE, for dead letters in a transaction with their
 * audit entry). Parameters are built and rows read in deliveries.codec.ts, in this order.
 */

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
export const FLUSH = `
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
export const SETTLE = `WITH ${RECORD_CTES} SELECT n::int FROM settled`;
