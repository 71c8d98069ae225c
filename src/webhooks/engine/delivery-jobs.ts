import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { JobOptions, Queue } from 'bull';
import { DELIVER_JOB, type DeliverJob, GROUP_SIZE, WEBHOOKS_QUEUE } from '../webhook.queue';
import type { OverdueDelivery } from './deliveries.types';
import type { LaneItem } from './endpoint-lane';
import { BUSY_RETRY_MS } from './engine-settings';
import {
  busyJobId,
  deferredJobId,
  deliverJobId,
  groupJobId,
  replayAgainJobId,
  replayJobId,
} from './job-ids';

/** Jobs per MULTI when a transaction committed many deliveries at once. */
const ENQUEUE_BATCH = 500;

type BulkJob = { name: string; data: DeliverJob; opts: JobOptions };

/**
 * Finished jobs leave Redis at once: a deterministic id still held by a finished job would make
 * the next add of that attempt a no-op. Postgres keeps the history.
 */
const ONCE = { removeOnComplete: true, removeOnFail: true };

/**
 * Everything the engine hands to Bull, with its job id (job-ids.ts). Bull is only the transport:
 * Postgres decides what is sent, so an add that fails is logged and left to the sweeper, which
 * finds every pending delivery and every replay request in Postgres.
 */
@Injectable()
export class DeliveryJobs implements OnModuleInit {
  private readonly logger = new Logger(DeliveryJobs.name);

  constructor(@InjectQueue(WEBHOOKS_QUEUE) private readonly queue: Queue<DeliverJob>) {}

  onModuleInit(): void {
    // Bull re-emits its Redis clients' errors on the queue; unheard, they would crash the process.
    this.queue.on('error', () => undefined);
  }

  /**
   * First attempts of deliveries one transaction committed: one job for one delivery, group jobs
   * of up to GROUP_SIZE for more (added in one MULTI per ENQUEUE_BATCH jobs).
   */
  async firstAttempts(tenantId: string, eventIds: string[]): Promise<void> {
    if (eventIds.length === 1) {
      return this.add({ tenantId, eventId: eventIds[0] }, deliverJobId(eventIds[0], 1));
    }
    const jobs: BulkJob[] = [];
    for (let i = 0; i < eventIds.length; i += GROUP_SIZE) {
      const group = eventIds.slice(i, i + GROUP_SIZE);
      jobs.push({
        name: DELIVER_JOB,
        data:
          group.length === 1
            ? { tenantId, eventId: group[0] }
            : { tenantId, eventId: group[0], eventIds: group },
        opts: {
          jobId: group.length === 1 ? deliverJobId(group[0], 1) : groupJobId(group),
          ...ONCE,
        },
      });
    }
    for (let i = 0; i < jobs.length; i += ENQUEUE_BATCH) {
      await this.queue.addBulk(jobs.slice(i, i + ENQUEUE_BATCH));
    }
  }

  /** Attempt `attempt` of a delivery, on the retry schedule (its failure is recorded). */
  retry(tenantId: string, eventId: string, attempt: number, delayMs: number): void {
    this.add({ tenantId, eventId }, deliverJobId(eventId, attempt), delayMs).catch(
      (error: unknown) => this.logger.warn({ err: error }, 'retry not enqueued; the sweeper will'),
    );
  }

  /** A staff replay, once its request has committed (replays.ts). */
  replay(tenantId: string, eventId: string, attempt: number): Promise<void> {
    return this.add({ tenantId, eventId, replay: true }, replayJobId(eventId, attempt));
  }

  /**
   * Deliveries whose endpoint had no slot for this process, back after `delayMs` (their
   * statement put `next_attempt_at` off by as much, so no sweeper takes them for lost ones).
   */
  busy(entries: { tenantId: string; item: LaneItem; attempts: number }[], delayMs: number): void {
    if (!entries.length) return;
    const jobs = entries.map(({ tenantId, item, attempts }) =>
      item.replay
        ? this.replayAgain(tenantId, item, delayMs)
        : this.job(
            { tenantId, eventId: item.eventId },
            busyJobId(item.eventId, attempts + 1),
            delayMs,
          ),
    );
    this.queue
      .addBulk(jobs)
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, 'busy deliveries not re-queued; the sweeper will'),
      );
  }

  /**
   * A job's deliveries put off because their lane was full (admission.ts), as one job; its
   * `deferrals` count makes the next delay longer while the lane's rate is unknown.
   */
  async defer(job: DeliverJob, eventIds: string[], deferrals: number, delayMs: number) {
    const data = {
      ...job,
      eventId: eventIds[0],
      eventIds: eventIds.length > 1 ? eventIds : undefined,
      deferrals,
    };
    await this.add(data, deferredJobId(eventIds, deferrals), Math.round(delayMs)).catch(
      (error: unknown) =>
        this.logger.warn({ err: error }, 'deferred job not queued; the sweeper will'),
    );
  }

  /**
   * Deliveries leaving this process unsent (it is stopping, or their statement was given up).
   * Postgres still has them (a pending delivery, a replay request), where the sweeper finds them;
   * a replay also goes back to the queue at once, as a staff member waits for it.
   */
  letGo(tenantId: string, items: LaneItem[]): void {
    const replays = items
      .filter((item) => item.replay)
      .map((item) => this.replayAgain(tenantId, item, BUSY_RETRY_MS));
    if (replays.length) {
      this.queue
        .addBulk(replays)
        .catch((error: unknown) =>
          this.logger.error({ err: error }, 'replays not re-queued; replay them again'),
        );
    }
    for (const item of items) item.settle?.(undefined);
  }

  /**
   * A delivery the sweeper found overdue and not in flight, as the job its next attempt (or its
   * replay) would have had, unless that job already stands to run. Whether it was added.
   */
  async sweptUp(d: OverdueDelivery): Promise<boolean> {
    const attempt = d.attempts + 1;
    const jobId = d.replay ? replayJobId(d.eventId, attempt) : deliverJobId(d.eventId, attempt);
    if (await this.willRun(jobId)) return false;
    const job: DeliverJob = d.replay
      ? { tenantId: d.tenantId, eventId: d.eventId, replay: true }
      : { tenantId: d.tenantId, eventId: d.eventId };
    await this.queue.add(DELIVER_JOB, job, { jobId, ...ONCE });
    return true;
  }

  /** For the metrics. */
  counts(): Promise<{ waiting: number; active: number; delayed: number }> {
    return this.queue.getJobCounts();
  }

  private add(data: DeliverJob, jobId: string, delayMs = 0): Promise<void> {
    const { name, opts } = this.job(data, jobId, delayMs);
    return this.queue.add(name, data, opts).then(() => undefined);
  }

  private job(data: DeliverJob, jobId: string, delayMs: number): BulkJob {
    return { name: DELIVER_JOB, data, opts: { jobId, delay: Math.max(0, delayMs), ...ONCE } };
  }

  /**
   * A replay that leaves this process unsent travels on as a replay job at once rather than
   * waiting for the sweeper (which would find it too: a replay request is a row).
   */
  private replayAgain(tenantId: string, item: LaneItem, delayMs: number): BulkJob {
    const data = { tenantId, eventId: item.eventId, replay: true };
    return this.job(data, replayAgainJobId(item.eventId), delayMs);
  }

  /**
   * Whether a job with this id already stands to run. The delivery it names is overdue and
   * unclaimed, so a job held in any other state is stale and would make a new add a no-op: an
   * "active" one was taken by a worker that died before claiming, a "delayed" one missed its
   * promotion (a Redis restart), a finished one lingers. Stale jobs are cleared (or promoted) so
   * the attempt runs; the Postgres claim still lets only one attempt be sent.
   */
  private async willRun(jobId: string): Promise<boolean> {
    const job = await this.queue.getJob(jobId);
    if (!job) return false;
    const state = await job.getState();
    if (state === 'waiting' || state === 'paused') return true;
    if (state === 'delayed') {
      await job.promote().catch(() => undefined);
      return true;
    }
    if (state === 'active') {
      await job
        .moveToFailed({ message: 'orphaned by a stopped worker' }, true)
        .catch(() => undefined);
    }
    await job.remove().catch(() => undefined);
    return false;
  }
}
