/**
 * The webhooks queue: a job names the deliveries a worker should attempt next (one, or several
 * committed together); Postgres decides whether there is anything to send.
 */
export const WEBHOOKS_QUEUE = 'webhooks';
export const DELIVER_JOB = 'deliver';

export interface DeliverJob {
  tenantId: string;
  /** The delivery (for a group job: its first one). */
  eventId: string;
  /** A staff replay: one fresh attempt whatever the delivery's status (not while pending). */
  replay?: boolean;
  /**
   * A group job: several deliveries, in order (`eventId` is the first): the first attempts of
   * deliveries committed by one transaction, or a job's deliveries put off together. Each is
   * claimed, sent and recorded on its own, exactly as if it had its own job; only the hand-off
   * through Redis is shared.
   */
  eventIds?: string[];
  /** How many times the job was put off because its endpoint's lane was full (backs off). */
  deferrals?: number;
}

/** First attempts committed together share one job, up to this many deliveries. */
export const GROUP_SIZE = 256;

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
export function deferredJobId(eventIds: string[], deferrals: number): string {
  return `dlv:${eventIds[0]}:deferred${deferrals}:${eventIds.length}:${Date.now()}`;
}
