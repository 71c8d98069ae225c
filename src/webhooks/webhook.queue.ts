/** The webhooks queue: one job per delivery attempt. */
export const WEBHOOKS_QUEUE = 'webhooks';
export const DELIVER_JOB = 'deliver';

export interface DeliverJob {
  tenantId: string;
  eventId: string;
  /** A staff replay: one fresh attempt whatever the delivery's status (not while pending). */
  replay?: boolean;
}

/** Deterministic per attempt, so the sweeper re-enqueueing a delivery never doubles a job. */
export function deliverJobId(eventId: string, attempt: number): string {
  return `dlv:${eventId}:${attempt}`;
}
