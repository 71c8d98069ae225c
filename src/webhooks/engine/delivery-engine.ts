import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import type { AttemptResult } from '../webhook-sender';
import { type QueueDepth, reportQueueDepth } from '../webhook.metrics';
import type { DeliverJob } from '../webhook.queue';
import { Admission } from './admission';
import { DeliveryJobs } from './delivery-jobs';
import { DeliveriesRepository } from './deliveries.repository';
import { Lanes } from './lanes';
import { Replays } from './replays';
import { SendPool } from './send-pool';
import { StatementLoop } from './statement-loop';

/** A metrics reading waits this long for PostgreSQL and Redis. */
const METRICS_READ_MS = 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `promise`'s value, or `fallback` if it fails or takes longer than `ms`. */
function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.catch(() => fallback),
    new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms))),
  ]).finally(() => clearTimeout(timer));
}

/**
 * The delivery engine of one process, as the rest of the feature sees it. Jobs hand deliveries to
 * the endpoint's lane (admission.ts, endpoint-lane.ts); the engine runs one statement at a time,
 * for every lane at once, that records answered attempts, leases the endpoint's slots for this
 * process and claims the next attempts (statement-loop.ts, deliveries.repository.ts), and starts a
 * request whenever a lane has a claimed attempt, a free slot and a process permit
 * (send-pool.ts, attempt-sender.ts). Each answer is recorded with what follows it
 * (attempt-policy.ts, attempt-records.ts): delivered, a retry on the schedule (a delayed job,
 * delivery-jobs.ts), or dead with an audit-log entry (dead-letters.ts). What Redis loses, the
 * sweeper finds in Postgres (sweeper.ts).
 */
@Injectable()
export class DeliveryEngine implements OnModuleInit, OnModuleDestroy {
  private stopReporting?: () => void;

  constructor(
    private readonly config: AppConfig,
    private readonly lanes: Lanes,
    private readonly loop: StatementLoop,
    private readonly admission: Admission,
    private readonly replays: Replays,
    private readonly jobs: DeliveryJobs,
    private readonly deliveries: DeliveriesRepository,
    pool: SendPool,
  ) {
    // After each statement: send what it claimed, then let jobs waiting for room look again.
    loop.listen(pool);
    loop.listen(admission);
  }

  onModuleInit(): void {
    this.stopReporting = reportQueueDepth(() => this.queueDepth());
  }

  onModuleDestroy(): void {
    this.stopReporting?.();
  }

  /**
   * A worker's job: its deliveries go to the endpoint's lane, and the job is done once they are
   * there. What a lane holds lives in this process only; if it dies, Postgres still has every
   * delivery pending (and every replay requested) and the sweeper of another worker queues them
   * again. A replay job also waits for its attempt (replays.ts).
   */
  async runJob(job: DeliverJob): Promise<void> {
    if (job.replay) return this.replays.run(job);
    const ids = job.eventIds?.length ? job.eventIds : [job.eventId];
    await this.admission.admit(
      job,
      ids.map((eventId) => ({ eventId, replay: false })),
    );
  }

  /**
   * One attempt now, in this process (the API's test event): its result once recorded, or
   * undefined if there was nothing to send or the endpoint was busy (then a worker sends it).
   */
  attemptNow(tenantId: string, eventId: string): Promise<AttemptResult | undefined> {
    return new Promise((resolve) => {
      void this.admission.admit({ tenantId, eventId }, [
        { eventId, replay: false, settle: resolve },
      ]);
    });
  }

  /**
   * Before the process stops: take nothing new, give back claims not sent, let the requests in
   * flight end and their records be written, and release the slots. Bounded by the HTTP timeout;
   * whatever does not make it is not lost (claims and leases lapse, the sweeper retries).
   */
  async drain(): Promise<void> {
    this.lanes.closing = true;
    for (const lane of this.lanes.all()) {
      this.jobs.letGo(lane.tenantId, lane.dropPending());
      lane.unclaimReady();
      this.loop.touch(lane);
    }
    this.admission.openAll();
    const deadline = Date.now() + this.config.webhook.timeoutMs + 5000;
    while (Date.now() < deadline && [...this.lanes.all()].some((lane) => !lane.idle)) {
      for (const lane of this.lanes.all()) this.loop.touch(lane);
      await sleep(20);
    }
  }

  /** For the metrics: what waits where (unknown figures are NaN while a store does not answer). */
  private async queueDepth(): Promise<QueueDepth> {
    // Bull queues commands while Redis is away rather than failing them: bound the wait.
    const [pending, jobs] = await Promise.all([
      within(this.deliveries.pendingCounts(), METRICS_READ_MS, { due: NaN, scheduled: NaN }),
      within(this.jobs.counts(), METRICS_READ_MS, { waiting: NaN, active: NaN, delayed: NaN }),
    ]);
    return { ...pending, jobs, inLanes: this.lanes.backlog };
  }
}
