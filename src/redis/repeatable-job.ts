import type { Logger } from '@nestjs/common';
import type { Queue } from 'bull';

/** A worker's repeatable job: its name, its handler, how it is scheduled, and its log lines. */
export interface RepeatableJob {
  /** The queue's name in the warning for its Redis clients' errors, e.g. `Bonuses`. */
  queueLabel: string;
  job: string;
  handle: () => Promise<unknown>;
  /** Adds (or corrects) the repeatable job; Bull de-duplicates it across workers. */
  schedule: () => Promise<unknown>;
  /** Logged when the consumer stops (e.g. Redis down at shutdown). */
  stopped: string;
  /** Logged when scheduling fails; it is tried again on the next reconnect. */
  unscheduled: string;
}

/**
 * Starts a worker's repeatable job: consumes `job` and schedules it now and on each reconnect (a
 * Redis restarted without persistence gets the schedule again). Start-up never waits on Redis.
 * Bull re-emits its Redis clients' errors on the queue, and its `process()` rejects with Redis
 * down at shutdown: both are logged here, as unheard they would end the process.
 */
export function startRepeatableJob(queue: Queue, logger: Logger, job: RepeatableJob): void {
  queue.on('error', (error: Error) => logger.warn(`${job.queueLabel} queue: ${error.message}`));
  queue
    .process(job.job, job.handle)
    .catch((error: unknown) => logger.warn({ err: error }, job.stopped));
  const schedule = () =>
    job.schedule().catch((error: unknown) => logger.error({ err: error }, job.unscheduled));
  queue.client.on('ready', () => void schedule());
  void schedule();
}
