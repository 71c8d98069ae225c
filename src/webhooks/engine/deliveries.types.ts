import type { DeliveryStatus } from '../webhook-delivery.entity';

/**
 * What goes into the deliveries repository's statements and what comes out of them (deliveries.repository.ts),
 * as the engine sees it: epoch milliseconds for times, plain objects, no entities.
 */

/** What runs a statement in the caller's transaction: its manager. */
export interface Queryable {
  query(sql: string, parameters: unknown[]): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * Runs the engine's statement on a pool connection of its own, answering rows as arrays (no
 * object per row). Unnamed: a named prepared statement breaks through a transaction pooler.
 */
export type ArrayQuery = (text: string, values: unknown[], name?: string) => Promise<unknown[][]>;

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

/** A delivery the sweeper found overdue (see DeliveriesRepository.overdue). */
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
