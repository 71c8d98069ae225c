/**
 * The webhooks queue: a job names the deliveries a worker should attempt next (one, or several
 * committed together); Postgres decides whether there is anything to send. Job ids are built in
 * engine/job-ids.ts, jobs added in engine/delivery-jobs.ts.
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
