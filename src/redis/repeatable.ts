import type { Logger } from '@nestjs/common';
import type { CronRepeatOptions, EveryRepeatOptions, Queue } from 'bull';

/**
 * The schedule of a worker's repeatable Bull job (docs/architecture.md, "Jobs and timers"). The
 * job's consumer is declared with `@Processor`/`@Process` (@nestjs/bull); this keeps its schedule.
 */
export type Repeat = Pick<EveryRepeatOptions, 'every'> | Pick<CronRepeatOptions, 'cron' | 'tz'>;

/**
 * Keeps exactly one repeatable job `name` on `queue`, with the stable job id `name`. Bull keys a
 * repeatable job by its name, job id and schedule, so every worker process adds the same key and
 * Redis holds one schedule however many workers start. A schedule of that name under another key
 * (an earlier period, or one added before the job had its id) is removed first.
 */
export async function keepRepeatable(queue: Queue, name: string, repeat: Repeat): Promise<void> {
  for (const job of await queue.getRepeatableJobs()) {
    if (job.name !== name) continue;
    const same =
      job.id === name &&
      ('every' in repeat
        ? Number(job.every) === repeat.every
        : job.cron === repeat.cron && (job.tz ?? undefined) === repeat.tz);
    if (!same) await queue.removeRepeatableByKey(job.key);
  }
  await queue.add(name, {}, { repeat, jobId: name, removeOnComplete: true, removeOnFail: 100 });
}

/**
 * Calls `schedule` now and each time Bull's client is ready again (a Redis restarted without
 * persistence has lost the schedule). Start-up never waits on Redis: a failure is logged and the
 * next reconnect tries again.
 */
export function scheduleOnConnect(
  queue: Queue,
  logger: Logger,
  unscheduled: string,
  schedule: () => Promise<void>,
): void {
  const run = () => schedule().catch((error: unknown) => logger.error({ err: error }, unscheduled));
  queue.client.on('ready', () => void run());
  void run();
}

/**
 * @nestjs/bull's explorer starts a `@Process` consumer with Bull's `queue.process()` and drops the
 * promise it answers, which rejects when Redis is unreachable as the consumer starts or as the app
 * shuts down; unheard, that rejection would end the process. Called from the processor's
 * constructor (before the explorer runs), this logs it instead.
 *
 * The same holds for the one command `queue.process()` does not wait for: Bull's `setHandler()`
 * calls `queue.setWorkerName()` and drops its promise. That waits for the queue's client to be
 * ready, then names the blocking connection (CLIENT SETNAME). An app closed while its queues are
 * still connecting makes that client ready during the close (Bull's `close()` waits for it too),
 * the name is then sent on the blocking connection the close is tearing down, and it rejects with
 * "Connection is closed." (or, its client ended before ready, with a TypeError out of Bull's own
 * catch, which reads `message` of an undefined error). Bull rethrows both: this logs them too. The
 * name only labels the connection in CLIENT LIST (`getWorkers()`); the consumer does not need it.
 */
export function logConsumerStop(queue: Queue, logger: Logger, stopped: string): void {
  const process = queue.process.bind(queue) as (...args: unknown[]) => Promise<void>;
  (queue as { process: (...args: unknown[]) => Promise<void> }).process = (...args) => {
    const started = process(...args);
    started.catch((error: unknown) => logger.warn({ err: error }, stopped));
    return started;
  };
  const setWorkerName = queue.setWorkerName.bind(queue);
  queue.setWorkerName = () => {
    const named = setWorkerName() as Promise<unknown>;
    named.catch((error: unknown) =>
      logger.warn({ err: error, queue: queue.name }, 'Could not name the consumer connection'),
    );
    return named;
  };
}
