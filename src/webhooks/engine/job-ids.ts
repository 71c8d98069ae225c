/**
 * Every Bull job id of the webhooks queue is built here, and only here. An id decides whether two
 * adds collapse into one job, so each kind says whether it is deterministic (the same attempt
 * from any process, the after-commit add, a retry and the sweeper, gets one job) or unique (a job
 * that must never be swallowed by one already queued). Postgres still decides what is sent: a
 * duplicate job only costs a look. Ids also stay the same across versions, so that old and new
 * workers of a rolling deploy collapse the same attempts (job-ids.spec.ts pins them).
 */

/** Deterministic per attempt, so the sweeper re-enqueueing a delivery never doubles a job. */
export function deliverJobId(eventId: string, attempt: number): string {
  return `dlv:${eventId}:${attempt}`;
}

/**
 * A staff replay of a settled delivery whose `attempts` is `attempt - 1`: the same id from the
 * admin API and the sweeper, so a replay request never gets two jobs.
 */
export function replayJobId(eventId: string, attempt: number): string {
  return `${deliverJobId(eventId, attempt)}:replay`;
}

/** Deterministic too: the same committed group always gets the same id. */
export function groupJobId(eventIds: string[]): string {
  return `dlv:${eventIds[0]}:1:group${eventIds.length}`;
}

/** A job put off because its lane was full: unique, so it never collapses into another one. */
export function deferredJobId(eventIds: string[], deferrals: number, now = Date.now()): string {
  return `dlv:${eventIds[0]}:deferred${deferrals}:${eventIds.length}:${now}`;
}

/**
 * An attempt put off because its endpoint had no slot for this process: unique, so it never
 * collapses into the job that brought the delivery, should that one still be in Redis.
 */
export function busyJobId(eventId: string, attempt: number, now = Date.now()): string {
  return `${deliverJobId(eventId, attempt)}:busy${now}`;
}

/**
 * A replay that leaves this process unsent (its endpoint was busy, the process is stopping), to be
 * made elsewhere at once: unique, so it never collapses into a job still in Redis.
 */
export function replayAgainJobId(eventId: string, now = Date.now()): string {
  return `dlv:${eventId}:replay${now}`;
}
