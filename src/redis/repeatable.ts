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
 */
export function logConsumerStop(queue: Queue, logger: Logger, stopped: string): void {
  const process = queue.process.bind(queue) as (...args: unknown[]) => Promise<void>;
  (queue as { process: (...args: unknown[]) => Promise<void> }).process = (...args) => {
    const started = process(...args);
    started.catch((error: unknown) => logger.warn({ err: error }, stopped));
    return started;
  };
}
