import type { DeliveryStatus } from '../webhook-delivery.entity';

/**
 * What follows an answered attempt (docs/webhooks.md): delivered, a retry after the configured
 * delay, or dead. A pure function, so that the schedule can be read and tested as a table
 * (attempt-policy.spec.ts); attempt-records.ts turns the decision into the record to write.
 */

/** The `outcome` label of `webhook_deliveries_total`. */
export type AttemptOutcome = 'delivered' | 'retry' | 'dead' | 'replay_ok' | 'replay_failed';

export interface AnsweredAttempt {
  /** The attempt's number: 1 for the first, counting every attempt made (replays too). */
  attempt: number;
  /** The receiver answered 2xx in time. */
  ok: boolean;
  /** A staff replay: one fresh attempt of a settled delivery. */
  replay: boolean;
  /** The delivery's status when the attempt was claimed (a replay's: `dead` or `delivered`). */
  statusBefore: DeliveryStatus;
  /** The `webhook.test` event: one attempt, made at once by the API. */
  test: boolean;
}

export interface AttemptDecision {
  status: DeliveryStatus;
  outcome: AttemptOutcome;
  /** A retry: after how long, and when (epoch milliseconds). */
  retryInMs?: number;
  retryAt: number | null;
  /** Recorded with an audit entry `webhook.dead_lettered` (dead-letters.ts). */
  deadLetter: boolean;
}

/**
 * `retryDelaysMs[n - 1]` is the delay after failed attempt n (WEBHOOK_RETRY_DELAYS_MS), so there
 * are `retryDelaysMs.length + 1` attempts in all; `now` is when the answer came.
 */
export function decideAttempt(
  answered: AnsweredAttempt,
  retryDelaysMs: readonly number[],
  now: number,
): AttemptDecision {
  const { attempt, ok, replay, statusBefore, test } = answered;
  if (ok) {
    return {
      status: 'delivered',
      outcome: replay ? 'replay_ok' : 'delivered',
      retryAt: null,
      deadLetter: false,
    };
  }
  if (replay) {
    // A failed replay leaves the delivery as it was (dead stays dead).
    return {
      status: statusBefore === 'delivered' ? 'delivered' : 'dead',
      outcome: 'replay_failed',
      retryAt: null,
      deadLetter: false,
    };
  }
  // The test event is never retried, nor dead-lettered into the tenant's audit log.
  if (attempt <= retryDelaysMs.length && !test) {
    const retryInMs = retryDelaysMs[attempt - 1];
    return {
      status: 'pending',
      outcome: 'retry',
      retryInMs,
      retryAt: now + retryInMs,
      deadLetter: false,
    };
  }
  return { status: 'dead', outcome: 'dead', retryAt: null, deadLetter: !test };
}
