import { InjectQueue } from '@nestjs/bull';
import {
  Injectable,
  Logger,
  OnApplicationShutdown,
  OnModuleDestroy,
  OnModuleInit,
} from '@nestjs/common';
import type { JobOptions, Queue } from 'bull';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Pool } from 'pg';
import { AuditService } from '../audit/audit.service';
import { AppConfig } from '../config/app-config';
import { TransactionHost } from '../database/transaction-host';
import { TEST_EVENT_TYPE } from '../events/event-types';
import {
  EndpointLane,
  type LaneBatch,
  type LaneItem,
  type ReadyAttempt,
  type RecordEntry,
} from './engine/endpoint-lane';
import { decideAttempt } from './engine/attempt-policy';
import { OpenedSecrets } from './opened-secrets';
import { DeliveryStore } from './engine/delivery-store';
import type {
  ArrayQuery,
  ClaimedAttempt,
  FlushInput,
  SettleInput,
} from './engine/delivery-store.types';
import { type AttemptError, type AttemptResult, WebhookSender } from './webhook-sender';
import { deliveryHeaders } from './webhook-signature';
import {
  attemptDuration,
  deliveriesTotal,
  type QueueDepth,
  reportQueueDepth,
} from './webhook.metrics';
import {
  busyJobId,
  deferredJobId,
  deliverJobId,
  groupJobId,
  replayAgainJobId,
  replayJobId,
} from './engine/job-ids';
import { DELIVER_JOB, type DeliverJob, GROUP_SIZE, WEBHOOKS_QUEUE } from './webhook.queue';

/**
 * The lock of a claimed attempt, and the lease of a slot: twice the HTTP timeout and a second, so
 * a claimed attempt can wait for its slot and still end before its lock does, and a crashed
 * process's claims and slots come free soon after.
 */
export function attemptLockMs(timeoutMs: number): number {
  return 2 * timeoutMs + 1000;
}
/** Claimed attempts per slot held, at most (a lane uses fewer for a slow endpoint). */
const MAX_PREFETCH = 16;
/** Statements in flight at once per process (each on a connection of the engine's own pool). */
const STATEMENTS_RUNNING = 1;
/**
 * The engine's connection: a statement that runs longer than this is cancelled by the server
 * (and one whose answer never comes is abandoned a little later), then written again.
 */
const STATEMENT_TIMEOUT_MS = 10_000;
/**
 * The engine's statements find a few hundred deliveries by key, from arrays whose length a cached
 * plan cannot know, in a table that grows faster than its statistics: the planner would hash
 * the whole table (a 30,000-row scan per statement, measured by the webhooks benchmark) where
 * index probes cost microseconds. On the engine's own connection hash and merge joins are off,
 * so every lookup is a nested loop over a primary key whatever the statistics say, and the
 * statement keeps its one generic plan rather than being planned again for each call.
 */
const ENGINE_SESSION = [
  'enable_hashjoin=off',
  'enable_mergejoin=off',
  'plan_cache_mode=force_generic_plan',
  `statement_timeout=${STATEMENT_TIMEOUT_MS}`,
]
  .map((setting) => `-c ${setting}`)
  .join(' ');
/**
 * A claimed attempt is sent only if it can end this long before its lock does (a quarter of the
 * HTTP timeout, at least this): room for its record to be written, and for a slow event loop.
 */
const LOCK_MARGIN_MS = 500;
/** A busy endpoint's delivery comes back after about this long, without counting an attempt. */
const BUSY_RETRY_MS = 1_000;
/** Deferred jobs come back after at most this long. */
const MAX_DEFER_MS = 60_000;
/**
 * A lane accepts at least this many deliveries, and as many as it answers in ACCEPT_SECONDS at
 * its current rate; beyond that a job waits for room or is deferred (see admit()).
 */
const MIN_BACKLOG = 4096;
const ACCEPT_SECONDS = 2;
const MAX_ADMIT_WAIT_MS = 1000;
const SWEEP_BATCH = 500;
/** Jobs per MULTI when a transaction committed many deliveries at once. */
const ENQUEUE_BATCH = 500;

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

type BulkJob = { name: string; data: DeliverJob; opts: JobOptions };

/**
 * A job for an attempt put off because its endpoint had no slot for this process (`attempt`,
 * for the job id), or, for a replay, given back unsent: it travels on as a replay job at once
 * rather than waiting for the sweeper (which would find it too: a replay request is a row).
 */
const laterJob = (
  tenantId: string,
  item: LaneItem,
  delayMs: number,
  attempt?: number,
): BulkJob => ({
  name: DELIVER_JOB,
  data: item.replay
    ? { tenantId, eventId: item.eventId, replay: true }
    : { tenantId, eventId: item.eventId },
  opts: {
    jobId: item.replay ? replayAgainJobId(item.eventId) : busyJobId(item.eventId, attempt ?? 0),
    delay: delayMs,
    removeOnComplete: true,
    removeOnFail: true,
  },
});

/** An attempt that failed before anything was sent. */
const failed = (error: AttemptError): AttemptResult => ({
  ok: false,
  statusCode: null,
  durationMs: 0,
  error,
  responseBody: null,
});

/**
 * A statement that failed for a reason that passes (the connection, a deadlock between workers
 * claiming the same deliveries, resources, a restart): written again until it succeeds. Anything
 * else is in the data and would fail again.
 */
function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return ['08', '40', '53', '57', '58'].includes(code.slice(0, 2));
}

/**
 * The delivery engine of one process. Jobs hand deliveries to the endpoint's lane
 * (endpoint-lane.ts); the engine runs one statement at a time, for every lane at once, that records
 * answered attempts, leases the endpoint's slots for this process and claims the next attempts,
 * and starts a request whenever a lane has a claimed attempt, a free slot and a process permit
 * (WEBHOOK_CONCURRENCY). Each answer is recorded with what follows it: delivered, a retry on the
 * schedule (a delayed job), or dead with an audit-log entry.
 */
@Injectable()
export class WebhookDeliveryService
  implements OnModuleInit, OnModuleDestroy, OnApplicationShutdown
{
  private readonly logger = new Logger(WebhookDeliveryService.name);
  /** Names this process's slot leases. */
  private readonly holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly lockMs: number;
  /** How long a claimed attempt may wait for its slot and still end well before its lock. */
  private readonly waitBudgetMs: number;
  private readonly pool: Pool;
  private readonly run: ArrayQuery;
  private readonly lanes = new Map<string, EndpointLane>();
  /** Lanes with something to write. */
  private readonly dirty = new Set<EndpointLane>();
  private running = 0;
  private scheduled = false;
  /** Statements failed in a row (transient failures), for the back-off. */
  private failures = 0;
  /**
   * Lanes whose part of a statement was refused (a non-transient error): each is written in a
   * statement of its own, its records one at a time (the count left), so that the fault is found
   * and only what causes it is given up, never the answered attempts of other lanes or records.
   */
  private readonly suspects = new Map<EndpointLane, number>();
  /** Process permits free, and lanes waiting for one (in order). */
  private permits: number;
  private readonly waitingForPermit = new Set<EndpointLane>();
  /** Per lane with jobs waiting for room in it: what wakes them. */
  private readonly rooms = new Map<EndpointLane, { promise: Promise<void>; resolve: () => void }>();
  private readonly renewTimer: NodeJS.Timeout;
  private closing = false;
  private stopReporting?: () => void;

  constructor(
    private readonly tx: TransactionHost,
    private readonly config: AppConfig,
    private readonly deliveries: DeliveryStore,
    private readonly secrets: OpenedSecrets,
    private readonly sender: WebhookSender,
    private readonly audit: AuditService,
    @InjectQueue(WEBHOOKS_QUEUE) private readonly queue: Queue<DeliverJob>,
  ) {
    this.pool = new Pool({
      connectionString: config.databaseUrl,
      max: STATEMENTS_RUNNING,
      application_name: 'referral-service:webhooks',
      options: ENGINE_SESSION,
      query_timeout: STATEMENT_TIMEOUT_MS + 2000,
    });
    // An idle connection that breaks is dropped by the pool; the next statement opens another.
    this.pool.on('error', (error) => this.logger.warn({ err: error }, 'webhook connection lost'));
    this.run = (text, values, name) =>
      this.pool.query<unknown[]>({ text, values, name, rowMode: 'array' }).then((r) => r.rows);
    this.lockMs = attemptLockMs(config.webhook.timeoutMs);
    const margin = Math.max(LOCK_MARGIN_MS, config.webhook.timeoutMs / 4);
    this.waitBudgetMs = this.lockMs - config.webhook.timeoutMs - margin;
    this.permits = config.webhook.concurrency;
    // Lanes whose every request is slow write nothing for a while: renew their leases anyway.
    this.renewTimer = setInterval(() => {
      for (const lane of this.lanes.values()) if (lane.held) this.touch(lane);
    }, this.lockMs / 6);
    this.renewTimer.unref();
  }

  onModuleInit(): void {
    this.stopReporting = reportQueueDepth(() => this.queueDepth());
  }

  onModuleDestroy(): void {
    clearInterval(this.renewTimer);
    this.stopReporting?.();
  }

  /** After the worker's drain (beforeApplicationShutdown), which still writes its records. */
  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }

  /** For the metrics: what waits where (unknown figures are NaN while a store does not answer). */
  private async queueDepth(): Promise<QueueDepth> {
    // Bull queues commands while Redis is away rather than failing them: bound the wait.
    const [pending, jobs] = await Promise.all([
      within(this.deliveries.pendingCounts(), METRICS_READ_MS, { due: NaN, scheduled: NaN }),
      within<{ waiting: number; active: number; delayed: number }>(
        this.queue.getJobCounts(),
        METRICS_READ_MS,
        { waiting: NaN, active: NaN, delayed: NaN },
      ),
    ]);
    let inLanes = 0;
    for (const lane of this.lanes.values()) inLanes += lane.backlog;
    return { ...pending, jobs, inLanes };
  }

  /** Hands an attempt to Bull; the job id is deterministic per attempt, so duplicates collapse. */
  async enqueue(job: DeliverJob, attempt: number, delayMs: number): Promise<void> {
    await this.queue.add(DELIVER_JOB, job, {
      jobId: deliverJobId(job.eventId, attempt),
      delay: Math.max(0, delayMs),
      removeOnComplete: true,
      removeOnFail: true,
    });
  }

  /**
   * First attempts of deliveries one transaction committed: one job for one delivery, group jobs
   * of up to GROUP_SIZE for more (added in one MULTI per ENQUEUE_BATCH jobs).
   */
  async enqueueFirstAttempts(tenantId: string, eventIds: string[]): Promise<void> {
    if (eventIds.length === 1) return this.enqueue({ tenantId, eventId: eventIds[0] }, 1, 0);
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
          removeOnComplete: true,
          removeOnFail: true,
        },
      });
    }
    for (let i = 0; i < jobs.length; i += ENQUEUE_BATCH) {
      await this.queue.addBulk(jobs.slice(i, i + ENQUEUE_BATCH));
    }
  }

  /**
   * A worker's job: its deliveries go to the endpoint's lane, and the job is done once they are
   * there. What a lane holds lives in this process only; if it dies, Postgres still has every
   * delivery pending (and every replay requested) and the sweeper of another worker queues them
   * again. A replay job also waits for its attempt (below).
   */
  async runJob(job: DeliverJob): Promise<void> {
    const ids = job.eventIds?.length ? job.eventIds : [job.eventId];
    if (!job.replay) {
      await this.admit(
        job,
        ids.map((eventId) => ({ eventId, replay: false })),
      );
      return;
    }
    // A replay job ends only once the attempt is recorded (or handed on as another job), so a
    // process that dies holding it leaves the job stalled in Bull, which runs it again; the
    // sweeper finds the replay request in Postgres too, should Redis lose the job.
    let left = ids.length;
    await new Promise<void>((resolve) => {
      const settle = () => --left === 0 && resolve();
      void this.admit(
        job,
        ids.map((eventId) => ({ eventId, replay: true, settle })),
      );
    });
  }

  /**
   * One attempt now, in this process (the API's test event): its result once recorded, or
   * undefined if there was nothing to send or the endpoint was busy (then a worker sends it).
   */
  attemptNow(tenantId: string, eventId: string): Promise<AttemptResult | undefined> {
    return new Promise((resolve) => {
      void this.admit({ tenantId, eventId }, [{ eventId, replay: false, settle: resolve }]);
    });
  }

  /**
   * Puts a job's deliveries in their lane. A lane takes at least MIN_BACKLOG deliveries and as
   * many as it answers in ACCEPT_SECONDS. A job beyond that waits for room if the lane should
   * make it within MAX_ADMIT_WAIT_MS at its rate (or, in its first second, before the rate is
   * known), and is deferred otherwise (and after waiting that long in all). So a burst to a fast
   * endpoint flows through, while a slow endpoint's jobs never hold the process's job slots for
   * long: other tenants' jobs keep running.
   */
  private async admit(job: DeliverJob, items: LaneItem[]): Promise<void> {
    const lane = this.closing ? undefined : this.laneOf(job.tenantId);
    const deadline = Date.now() + MAX_ADMIT_WAIT_MS;
    while (lane && lane.backlog + items.length > this.allowance(lane)) {
      const now = Date.now();
      const rate = lane.attemptsPerSecond(now);
      const excess = lane.backlog + items.length - this.allowance(lane);
      const roomInMs = rate > 0 ? (excess / rate) * 1000 : Infinity;
      const young = now - lane.createdAt < 1000;
      if (this.closing || now >= deadline || (roomInMs > MAX_ADMIT_WAIT_MS && !young)) {
        await this.defer(job, items, lane);
        return;
      }
      await Promise.race([this.room(lane), sleep(deadline - now)]);
    }
    if (!lane) {
      this.letGo(job.tenantId, items);
      return;
    }
    for (const item of lane.admit(items)) item.settle?.(undefined);
    this.touch(lane);
  }

  private allowance(lane: EndpointLane): number {
    return Math.max(MIN_BACKLOG, lane.attemptsPerSecond() * ACCEPT_SECONDS);
  }

  /** Resolves when the lane may have room again (after its next statement). */
  private room(lane: EndpointLane): Promise<void> {
    let room = this.rooms.get(lane);
    if (!room) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.rooms.set(lane, (room = { promise, resolve }));
    }
    return room.promise;
  }

  /** Lets the jobs waiting for room in the lane look again. */
  private wakeRoomWaiters(lane: EndpointLane): void {
    const room = this.rooms.get(lane);
    if (!room || lane.backlog >= this.allowance(lane)) return;
    this.rooms.delete(lane);
    room.resolve();
  }

  /** Re-queues a job's deliveries for later: by the lane's own backlog time, 1 s to 60 s. */
  private async defer(job: DeliverJob, items: LaneItem[], lane: EndpointLane): Promise<void> {
    const rate = lane.attemptsPerSecond();
    const deferrals = (job.deferrals ?? 0) + 1;
    const base = rate > 0 ? (lane.backlog / rate) * 1000 : BUSY_RETRY_MS * 2 ** (deferrals - 1);
    const delayMs = Math.min(MAX_DEFER_MS, Math.max(BUSY_RETRY_MS, base)) * (1 + Math.random());
    const ids = items.map((i) => i.eventId);
    await this.queue
      .add(
        DELIVER_JOB,
        { ...job, eventId: ids[0], eventIds: ids.length > 1 ? ids : undefined, deferrals },
        {
          jobId: deferredJobId(ids, deferrals),
          delay: Math.round(delayMs),
          removeOnComplete: true,
          removeOnFail: true,
        },
      )
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, 'deferred job not queued; the sweeper will'),
      );
    for (const item of items) item.settle?.(undefined);
  }

  private laneOf(tenantId: string): EndpointLane {
    let lane = this.lanes.get(tenantId);
    if (!lane) {
      lane = new EndpointLane(tenantId, {
        cap: this.config.webhook.endpointConcurrency,
        maxPrefetch: MAX_PREFETCH,
        waitBudgetMs: this.waitBudgetMs,
        renewAfterMs: this.lockMs / 3,
        noSlotsRetryMs: BUSY_RETRY_MS,
      });
      this.lanes.set(tenantId, lane);
    }
    return lane;
  }

  /** The lane has something to write (or may have): it goes in the next statement. */
  private touch(lane: EndpointLane): void {
    this.dirty.add(lane);
    this.schedule();
  }

  private schedule(delayMs = 0): void {
    if (this.scheduled || this.running >= STATEMENTS_RUNNING || !this.dirty.size) return;
    this.scheduled = true;
    const go = () => {
      this.scheduled = false;
      void this.flush();
    };
    if (delayMs > 0) setTimeout(go, delayMs).unref();
    else setImmediate(go);
  }

  /**
   * The parts of the next statement: every lane with something to write, or, while a lane is
   * suspected of a statement refused before, that lane alone (one of its records, or its batch).
   */
  private takeParts(now: number): { lane: EndpointLane; batch: LaneBatch }[] {
    for (const [lane, records] of this.suspects) {
      if (!this.dirty.has(lane)) continue;
      this.dirty.delete(lane);
      let batch = records > 0 ? lane.takeRecord(now) : undefined;
      if (!batch) {
        this.suspects.set(lane, 0);
        batch = lane.takeBatch(now, this.closing);
      }
      if (batch) return [{ lane, batch }];
      // Nothing left to write: no longer suspected.
      this.suspects.delete(lane);
      this.forgetIfIdle(lane);
    }
    const parts: { lane: EndpointLane; batch: LaneBatch }[] = [];
    for (const lane of this.dirty) {
      this.dirty.delete(lane);
      const batch = lane.takeBatch(now, this.closing);
      if (batch) parts.push({ lane, batch });
      else this.forgetIfIdle(lane);
    }
    return parts;
  }

  /**
   * A statement was refused (an error that would come again, e.g. in the data): nothing it did was
   * committed. Given up is only what is known to cause it: a lane's batch written alone with no
   * record (its claims, which go back to the sweeper), or one record written alone (its claim
   * lapses and the delivery is retried). Anything else is written again, each lane alone and its
   * records one at a time, so one bad record never costs the answered attempts of others.
   */
  private refused(parts: { lane: EndpointLane; batch: LaneBatch }[]): void {
    const alone = parts.length === 1 ? parts[0] : undefined;
    const single = alone && this.suspects.get(alone.lane) !== undefined;
    for (const { lane, batch } of parts) {
      const isRecord = single && !batch.lease && batch.records.length === 1 && !batch.claims.length;
      if (isRecord) {
        this.letGo(lane.tenantId, lane.failBatch(batch, true));
        this.suspects.set(lane, Math.max(0, (this.suspects.get(lane) ?? 1) - 1));
      } else if (alone && !batch.records.length) {
        this.letGo(lane.tenantId, lane.failBatch(batch, true));
        this.suspects.delete(lane);
      } else {
        lane.failBatch(batch);
        this.suspects.set(lane, batch.records.length);
      }
      this.dirty.add(lane);
    }
  }

  /** One statement for every lane with something to write, and what follows from its answer. */
  private async flush(): Promise<void> {
    if (this.running >= STATEMENTS_RUNNING || !this.dirty.size) return;
    const now = Date.now();
    const parts = this.takeParts(now);
    if (!parts.length) return;
    this.running++;
    this.schedule();
    // One delay for the busy deliveries of this statement (put off in Postgres and re-queued).
    const deferMs = BUSY_RETRY_MS + Math.floor(Math.random() * BUSY_RETRY_MS);
    const input: FlushInput = {
      holder: this.holder,
      lockMs: this.lockMs,
      endpointConcurrency: this.config.webhook.endpointConcurrency,
      records: [],
      lanes: [],
      claims: [],
      unclaims: [],
    };
    for (const { lane, batch } of parts) {
      const tenantId = lane.tenantId;
      for (const entry of batch.records) input.records.push(entry.input);
      for (const { item, claim } of batch.unclaims) {
        input.unclaims.push({ tenantId, eventId: item.eventId, attempt: claim.attempt });
      }
      if (!batch.lease) continue;
      input.lanes.push(batch.lease);
      for (const item of batch.claims) {
        input.claims.push({
          tenantId,
          eventId: item.eventId,
          replay: item.replay,
          deferMs: item.replay ? 0 : deferMs,
        });
      }
    }
    try {
      const output = await this.deliveries.flush(input, this.run);
      this.failures = 0;
      if (parts.length === 1 && this.suspects.has(parts[0].lane)) {
        const { lane, batch } = parts[0];
        const left = this.suspects.get(lane)!;
        if (!batch.lease && batch.records.length === 1 && left > 0) {
          this.suspects.set(lane, left - 1);
        } else {
          this.suspects.delete(lane);
        }
      }
      const requeue: BulkJob[] = [];
      let r = 0;
      let l = 0;
      let c = 0;
      for (const { lane, batch } of parts) {
        const settled = output.settled.slice(r, (r += batch.records.length));
        const answer = batch.lease ? output.lanes[l++] : undefined;
        const claims = batch.lease ? output.claims.slice(c, (c += batch.claims.length)) : [];
        const { busy, none, slotsRetryMs } = lane.applyBatch(batch, answer, claims);
        if (slotsRetryMs) {
          setTimeout(
            () => this.lanes.get(lane.tenantId) === lane && this.touch(lane),
            slotsRetryMs,
          ).unref();
        }
        batch.records.forEach((entry, i) => this.afterRecord(lane, entry, settled[i]));
        for (const item of none) item.settle?.(undefined);
        for (const { item, attempts } of busy) {
          requeue.push(laterJob(lane.tenantId, item, deferMs, attempts + 1));
          item.settle?.(undefined);
        }
        if (this.closing) this.letGo(lane.tenantId, lane.dropPending());
        this.pump(lane);
        this.wakeRoomWaiters(lane);
        this.touch(lane);
      }
      if (requeue.length) {
        this.queue
          .addBulk(requeue)
          .catch((error: unknown) =>
            this.logger.warn({ err: error }, 'busy deliveries not re-queued; the sweeper will'),
          );
      }
    } catch (error) {
      const retry = isTransient(error);
      this.failures = retry ? this.failures + 1 : 0;
      this.logger.warn(
        { err: error },
        retry
          ? 'webhook statement failed; writing it again'
          : 'webhook statement refused; writing its parts apart to find the one at fault',
      );
      if (!retry) {
        this.refused(parts);
      } else {
        for (const { lane, batch } of parts) {
          lane.failBatch(batch);
          this.dirty.add(lane);
        }
      }
    } finally {
      this.running--;
      this.schedule(this.failures ? Math.min(5000, 100 * 2 ** this.failures) : 0);
    }
  }

  /**
   * Deliveries leaving this process unsent (it is stopping, or their statement was given up).
   * Postgres still has them (a pending delivery, a replay request), where the sweeper finds them;
   * a replay also goes back to the queue at once, as a staff member waits for it.
   */
  private letGo(tenantId: string, items: LaneItem[]): void {
    const replays = items
      .filter((item) => item.replay)
      .map((item) => laterJob(tenantId, item, BUSY_RETRY_MS));
    if (replays.length) {
      this.queue
        .addBulk(replays)
        .catch((error: unknown) =>
          this.logger.error({ err: error }, 'replays not re-queued; replay them again'),
        );
    }
    for (const item of items) item.settle?.(undefined);
  }

  private forgetIfIdle(lane: EndpointLane): void {
    if (!lane.idle) return;
    this.lanes.delete(lane.tenantId);
    this.suspects.delete(lane);
    this.waitingForPermit.delete(lane);
    this.rooms.get(lane)?.resolve();
    this.rooms.delete(lane);
  }

  /** Starts a request for each claimed attempt that has a slot and a process permit. */
  private pump(lane: EndpointLane): void {
    while (lane.ready.length && lane.inFlight < lane.held) {
      if (this.permits === 0) {
        this.waitingForPermit.add(lane);
        return;
      }
      const ready = lane.nextToSend()!;
      this.permits--;
      void this.send(lane, ready);
    }
  }

  private releasePermit(): void {
    this.permits++;
    for (const lane of this.waitingForPermit) {
      if (this.permits === 0) return;
      this.waitingForPermit.delete(lane);
      this.pump(lane);
    }
  }

  /** One request, and its answer handed on to be recorded. */
  private async send(lane: EndpointLane, ready: ReadyAttempt): Promise<void> {
    const { item, claim } = ready;
    const at = Date.now();
    if (at - ready.claimedAt > this.waitBudgetMs) {
      // Waited so long that the request could outlive the lock: give the claim back unsent.
      lane.notSent();
      lane.unclaim(ready);
      this.releasePermit();
      this.touch(lane);
      return;
    }
    let result: AttemptResult;
    try {
      result = await this.request(lane, ready, at);
    } catch (error) {
      // A fault here (an unreadable stored secret, say) is a failed attempt like any other: it
      // follows the retry schedule and shows in the attempt log, and the process carries on.
      this.logger.error({ err: error }, `attempt of ${item.eventId} could not be made`);
      result = failed('internal_error');
    }
    attemptDuration.observe({ error: result.error ?? 'none' }, result.durationMs / 1000);
    const entry = this.recordEntry(lane.tenantId, item, claim, at, result);
    if (entry.deadLetter) {
      lane.answeredElsewhere(entry);
      void this.deadLetter(lane, entry);
    } else {
      lane.answered(entry);
      this.touch(lane);
    }
    this.releasePermit();
    this.pump(lane);
  }

  /** Signs the stored bytes with the endpoint's secrets as they are now and sends them. */
  private async request(lane: EndpointLane, ready: ReadyAttempt, at: number) {
    const { item, claim } = ready;
    const endpoint = lane.endpoint;
    if (!endpoint || !endpoint.enabled) return failed('endpoint_disabled');
    const previous =
      endpoint.previousSecretSealed &&
      endpoint.previousSecretExpiresAt &&
      endpoint.previousSecretExpiresAt > at
        ? this.secrets.open(endpoint.previousSecretSealed)
        : undefined;
    // The stored bytes, encoded once: signed twice and sent as they are.
    const body = Buffer.from(claim.body, 'utf8');
    const headers = deliveryHeaders({
      body,
      eventId: item.eventId,
      eventType: claim.eventType,
      attempt: claim.attempt,
      secret: this.secrets.open(endpoint.secretSealed),
      previousSecret: previous,
      timestamp: Math.floor(at / 1000),
    });
    return this.sender.send(endpoint.url, body, headers);
  }

  /** What an answer means (attempt-policy.ts): delivered, a retry on the schedule, or dead. */
  private recordEntry(
    tenantId: string,
    item: LaneItem,
    claim: ClaimedAttempt,
    at: number,
    result: AttemptResult,
  ): RecordEntry {
    const now = Date.now();
    const decision = decideAttempt(
      {
        attempt: claim.attempt,
        ok: result.ok,
        replay: item.replay,
        statusBefore: claim.status,
        test: claim.eventType === TEST_EVENT_TYPE,
      },
      this.config.webhook.retryDelaysMs,
      now,
    );
    const input: SettleInput = {
      tenantId,
      eventId: item.eventId,
      attempt: claim.attempt,
      at,
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      error: result.error,
      responseBody: result.responseBody,
      replay: item.replay,
      status: decision.status,
      nextAttemptAt: decision.retryAt,
      deliveredAt: result.ok ? now : null,
    };
    return {
      input,
      item,
      result,
      outcome: decision.outcome,
      retryInMs: decision.retryInMs,
      deadLetter: decision.deadLetter,
    };
  }

  /** A dead letter is recorded with its audit entry in one transaction of its own. */
  private async deadLetter(lane: EndpointLane, entry: RecordEntry): Promise<void> {
    const { input } = entry;
    let settled = false;
    try {
      settled = await this.tx.transaction(async () => {
        const [done] = await this.deliveries.settleMany([input]);
        if (done) {
          await this.audit.record(
            input.tenantId,
            { type: 'system', name: 'webhooks' },
            'webhook.dead_lettered',
            { type: 'event', id: input.eventId },
            {
              attempts: input.attempt,
              last_status_code: input.statusCode,
              last_error: input.error,
            },
          );
        }
        return done;
      });
    } catch (error) {
      this.logger.warn({ err: error }, 'dead letter not recorded; its claim will lapse');
    }
    this.afterRecord(lane, entry, settled);
    this.touch(lane);
  }

  /** Once an attempt is recorded: metrics, the retry job, and whoever waits for the result. */
  private afterRecord(lane: EndpointLane, entry: RecordEntry, settled: boolean): void {
    lane.recorded(entry.item);
    const { input } = entry;
    if (!settled) {
      // The claim had lapsed and a later attempt owns the delivery now: it decides what follows.
      this.logger.warn(`attempt ${input.attempt} of ${input.eventId} outlived its claim`);
      entry.item.settle?.(undefined);
      return;
    }
    deliveriesTotal.inc({ outcome: entry.outcome });
    if (entry.retryInMs !== undefined) {
      this.enqueue(
        { tenantId: input.tenantId, eventId: input.eventId },
        input.attempt + 1,
        entry.retryInMs,
      ).catch((error: unknown) =>
        this.logger.warn({ err: error }, 'retry not enqueued; the sweeper will'),
      );
    }
    entry.item.settle?.(entry.result);
  }

  /**
   * Before the process stops: take nothing new, give back claims not sent, let the requests in
   * flight end and their records be written, and release the slots. Bounded by the HTTP timeout;
   * whatever does not make it is not lost (claims and leases lapse, the sweeper retries).
   */
  async drain(): Promise<void> {
    this.closing = true;
    for (const lane of this.lanes.values()) {
      this.letGo(lane.tenantId, lane.dropPending());
      lane.unclaimReady();
      this.touch(lane);
    }
    for (const room of this.rooms.values()) room.resolve();
    this.rooms.clear();
    const deadline = Date.now() + this.config.webhook.timeoutMs + 5000;
    while (Date.now() < deadline && [...this.lanes.values()].some((lane) => !lane.idle)) {
      for (const lane of this.lanes.values()) this.touch(lane);
      await sleep(20);
    }
  }

  /**
   * Whether a job with this id already stands to run. The delivery it names is overdue and
   * unclaimed, so a job held in any other state is stale and would make a new add a no-op: an
   * "active" one was taken by a worker that died before claiming, a "delayed" one missed its
   * promotion (a Redis restart), a finished one lingers. Stale jobs are cleared (or promoted) so
   * the attempt runs; the Postgres claim still lets only one attempt be sent.
   */
  private async jobWillRun(jobId: string): Promise<boolean> {
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

  /**
   * Hands on overdue deliveries that are not in flight (what a Redis outage or a crash between
   * commit and enqueue left behind) and staff replays not made yet: as a job, unless one already
   * stands to run (job ids are per attempt, so nothing doubles). An endpoint with every slot leased
   * is being worked on, and another job would only join that work: the processes holding its slots
   * take its lost deliveries straight into their own lanes (skipping what a lane already has), and
   * others leave them to those holders' sweepers. So a lost job waits for its turn in the lane,
   * never for a pause in the endpoint's traffic.
   */
  async sweep(): Promise<number> {
    const overdue = await this.deliveries.overdue(
      Math.min(this.config.webhook.sweepMs, 5000),
      SWEEP_BATCH,
      this.config.webhook.endpointConcurrency,
      this.holder,
    );
    const local = new Map<string, LaneItem[]>();
    let handedOn = 0;
    for (const d of overdue) {
      if (d.busy) {
        const lane = this.lanes.get(d.tenantId);
        if (!d.mine || !lane || lane.has(d.eventId, d.replay)) continue;
        const items = local.get(d.tenantId) ?? [];
        items.push({ eventId: d.eventId, replay: d.replay });
        local.set(d.tenantId, items);
        continue;
      }
      const attempt = d.attempts + 1;
      const job: DeliverJob = d.replay
        ? { tenantId: d.tenantId, eventId: d.eventId, replay: true }
        : { tenantId: d.tenantId, eventId: d.eventId };
      const jobId = d.replay ? replayJobId(d.eventId, attempt) : deliverJobId(d.eventId, attempt);
      if (await this.jobWillRun(jobId)) continue;
      await this.queue.add(DELIVER_JOB, job, {
        jobId,
        removeOnComplete: true,
        removeOnFail: true,
      });
      handedOn++;
    }
    for (const [tenantId, items] of local) {
      void this.admit({ tenantId, eventId: items[0].eventId }, items);
      handedOn += items.length;
    }
    return handedOn;
  }
}
