import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { JobOptions, Queue } from 'bull';
import { AuditService } from '../audit/audit.service';
import { AppConfig } from '../config/app-config';
import { TransactionHost } from '../database/transaction-host';
import { TEST_EVENT_TYPE } from '../events/event-types';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { Batcher, Semaphore } from './concurrency';
import {
  type ClaimedAttempt,
  type ClaimOutcome,
  type ClaimRequest,
  type Queryable,
  type SettleInput,
  WebhookDeliveriesRepository,
} from './webhook-deliveries.repository';
import type { DeliveryStatus } from './webhook-delivery.entity';
import { type AttemptResult, WebhookSender } from './webhook-sender';
import { deliveryHeaders } from './webhook-signature';
import { attemptDuration, deliveriesTotal } from './webhook.metrics';
import {
  DELIVER_JOB,
  type DeliverJob,
  deliverJobId,
  GROUP_SIZE,
  groupJobId,
  WEBHOOKS_QUEUE,
} from './webhook.queue';
import { OpenedSecrets } from './opened-secrets';

/**
 * The lock an attempt holds: twice the HTTP timeout and a second, so a slow receiver is never sent
 * the same delivery twice at once, while a crashed worker's claim lapses soon after.
 */
function attemptLockMs(timeoutMs: number): number {
  return 2 * timeoutMs + 1000;
}
/** A busy endpoint's job comes back after about this long, without counting an attempt. */
const BUSY_RETRY_MS = 1_000;
const SWEEP_BATCH = 500;
/** Jobs per MULTI when a transaction committed many deliveries at once. */
const ENQUEUE_BATCH = 500;
/** Records and claims written together in one statement, at most. */
const STATEMENT_BATCH = 128;
/**
 * Batch statements in flight at once per process: while one waits for its commit, the next is
 * already on its way (a claim never waits for more than one commit ahead of it).
 */
const STATEMENTS_RUNNING = 2;
/** Claims again (after this process's own records of the endpoint) before deferring as busy. */
const BUSY_RECLAIMS = 3;
/** Attempts answered but not yet recorded before a worker slot waits for its own record. */
const RECORDING_BACKLOG = 256;

/**
 * One attempt of one delivery: claim it in Postgres with one statement (at most one in flight per
 * delivery, at most WEBHOOK_ENDPOINT_CONCURRENCY per endpoint, via a leased endpoint slot), send
 * the stored bytes, then record the attempt and decide what comes next (delivered, a retry on the
 * schedule, or dead with an audit-log entry) in one more statement.
 */
@Injectable()
export class WebhookDeliveryService {
  private readonly logger = new Logger(WebhookDeliveryService.name);

  constructor(
    private readonly tx: TransactionHost,
    private readonly config: AppConfig,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly secrets: OpenedSecrets,
    private readonly sender: WebhookSender,
    private readonly audit: AuditService,
    @InjectQueue(WEBHOOKS_QUEUE) private readonly queue: Queue<DeliverJob>,
    dataSource: DataSource,
  ) {
    const pg = (dataSource.driver as unknown as { master: Pool }).master;
    const lockMs = attemptLockMs(config.webhook.timeoutMs);
    const pool: Queryable = {
      query: (text, values, name) => pg.query({ text, values, name }).then((r) => r.rows),
    };
    this.statements = new Batcher(
      async (ops) => {
        const settles = ops.flatMap((op) => (op.kind === 'settle' ? [op.input] : []));
        const settling = new Set(settles.map((i) => `${i.tenantId}\n${i.eventId}`));
        const key = (r: ClaimRequest) => `${r.tenantId}\n${r.eventId}\n${r.replay}`;
        const index = new Map<string, number>();
        const claims: ClaimRequest[] = [];
        for (const op of ops) {
          const r = op.kind === 'claim' ? op.request : undefined;
          if (!r || index.has(key(r)) || settling.has(`${r.tenantId}\n${r.eventId}`)) continue;
          index.set(key(r), claims.length);
          claims.push(r);
        }
        const { settled, outcomes } = await deliveries.flush(
          settles,
          claims,
          lockMs,
          config.webhook.endpointConcurrency,
          pool,
        );
        let s = 0;
        const answered = new Set<string>();
        return ops.map((op): boolean | ClaimOutcome | 'again' => {
          if (op.kind === 'settle') return settled[s++];
          const k = key(op.request);
          // A delivery this batch also settles is claimed in the next one (never both at once).
          if (!index.has(k)) return 'again';
          // A duplicate of a request earlier in this batch (duplicate jobs) has nothing to do.
          if (answered.has(k)) return { kind: 'none' };
          answered.add(k);
          return outcomes[index.get(k)!];
        });
      },
      STATEMENT_BATCH,
      STATEMENTS_RUNNING,
    );
    this.permits = new Semaphore(config.webhook.concurrency);
  }

  /**
   * The hot statements, batched: attempt records that finished and claims of attempts starting
   * at about the same time go to Postgres together, the records first, in one transaction (one
   * commit). A batch runs on a pool connection of its own, never in a caller's transaction (the
   * async context of whichever attempt started it must not decide where the others are written).
   */
  private readonly statements: Batcher<
    { kind: 'claim'; request: ClaimRequest } | { kind: 'settle'; input: SettleInput },
    boolean | ClaimOutcome | 'again'
  >;

  /** Attempts in flight in this process (worker jobs), whatever the jobs that carry them. */
  private readonly permits: Semaphore;

  /** Records still being written (attempts made with `awaitRecord: false`). */
  private readonly recording = new Set<Promise<void>>();

  /** Per tenant, records being written by the batcher (their slots are still leased). */
  private readonly unsettled = new Map<string, Set<Promise<unknown>>>();

  private async track<T>(tenantId: string, promise: Promise<T>): Promise<T> {
    let set = this.unsettled.get(tenantId);
    if (!set) this.unsettled.set(tenantId, (set = new Set()));
    set.add(promise);
    try {
      return await promise;
    } finally {
      set.delete(promise);
      if (!set.size) this.unsettled.delete(tenantId);
    }
  }

  /** Waits for every attempt record still being written (before shutdown). */
  async drain(): Promise<void> {
    while (this.recording.size) await Promise.allSettled([...this.recording]);
  }

  /** Hands an attempt to Bull; the job id is deterministic per attempt, so duplicates collapse. */
  async enqueue(job: DeliverJob, attempt: number, delayMs: number, suffix = ''): Promise<void> {
    await this.queue.add(DELIVER_JOB, job, {
      jobId: deliverJobId(job.eventId, attempt) + suffix,
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
    const jobs: { name: string; data: DeliverJob; opts: JobOptions }[] = [];
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
   * A worker's job: one attempt, or the first attempts of a group, each holding one of the
   * process's WEBHOOK_CONCURRENCY attempt permits while it is claimed and sent. A group sends at
   * most WEBHOOK_ENDPOINT_CONCURRENCY of its deliveries at once (they share one endpoint).
   */
  async runJob(job: DeliverJob, awaitRecord: boolean): Promise<void> {
    const one = (eventId: string) =>
      this.permits.with(() =>
        this.attempt({ tenantId: job.tenantId, eventId, replay: job.replay }, { awaitRecord }),
      );
    if (!job.eventIds?.length) {
      await one(job.eventId);
      return;
    }
    const ids = job.eventIds;
    const { concurrency, endpointConcurrency } = this.config.webhook;
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(ids.length, concurrency, endpointConcurrency) }, async () => {
        while (next < ids.length) await one(ids[next++]);
      }),
    );
  }

  /**
   * Runs one attempt if the delivery is due and free; returns its result, or undefined when there
   * was nothing to do (delivered already, in flight elsewhere, not due, or deferred as busy).
   */
  async attempt(
    job: DeliverJob,
    options: { awaitRecord?: boolean } = {},
  ): Promise<AttemptResult | undefined> {
    const replay = job.replay ?? false;
    const deferMs = BUSY_RETRY_MS + Math.floor(Math.random() * BUSY_RETRY_MS);
    let outcome: ClaimOutcome;
    for (let tries = 0; ;) {
      // The endpoint's slots may be held by attempts this process has answered whose records are
      // still being written: if it is busy, wait for those and claim again rather than defer the
      // job. Only the last claim defers (puts off `next_attempt_at` by the job's delay).
      const reclaim = !!this.unsettled.get(job.tenantId)?.size && tries < BUSY_RECLAIMS;
      const request = {
        tenantId: job.tenantId,
        eventId: job.eventId,
        replay,
        deferMs: reclaim ? 0 : deferMs,
      };
      const answer = await this.statements.submit({ kind: 'claim', request });
      if (answer === 'again') continue;
      outcome = answer as ClaimOutcome;
      if (outcome.kind !== 'busy' || !reclaim) break;
      tries++;
      await Promise.allSettled([...(this.unsettled.get(job.tenantId) ?? [])]);
    }
    if (outcome.kind === 'busy') {
      await this.enqueue(job, outcome.attempts + 1, deferMs, `:busy${Date.now()}`);
      return undefined;
    }
    if (outcome.kind === 'none') return undefined;
    const claim = outcome.claim;

    const endpoint = claim.endpoint;
    const at = new Date();
    let result: AttemptResult;
    if (!endpoint || !endpoint.enabled) {
      result = {
        ok: false,
        statusCode: null,
        durationMs: 0,
        error: 'endpoint_disabled',
        responseBody: null,
      };
    } else {
      const previous =
        endpoint.previousSecretSealed &&
        endpoint.previousSecretExpiresAt &&
        endpoint.previousSecretExpiresAt > at
          ? this.secrets.open(endpoint.previousSecretSealed)
          : undefined;
      const headers = deliveryHeaders({
        body: claim.body,
        eventId: job.eventId,
        eventType: claim.eventType,
        attempt: claim.attempt,
        secret: this.secrets.open(endpoint.secretSealed),
        previousSecret: previous,
        timestamp: Math.floor(at.getTime() / 1000),
      });
      result = await this.sender.send(endpoint.url, claim.body, headers);
    }
    attemptDuration.observe({ error: result.error ?? 'none' }, result.durationMs / 1000);
    const recorded = this.record(job, claim, at, result);
    if (options.awaitRecord ?? true) {
      await recorded;
    } else {
      // The worker's slot is free as soon as the request is answered: the attempt stays claimed
      // (its delivery lock and endpoint slot) until the record commits, so nothing can send it
      // again meanwhile; if this process dies first, the claim lapses and the sweeper retries.
      this.recording.add(recorded);
      void recorded
        .catch((error: unknown) =>
          this.logger.warn({ err: error }, 'attempt not recorded; its claim will lapse'),
        )
        .finally(() => this.recording.delete(recorded));
      if (this.recording.size > RECORDING_BACKLOG) await recorded.catch(() => undefined);
    }
    return result;
  }

  /**
   * Records the attempt and settles the delivery in one statement (plus the audit entry, in the
   * same transaction, when it dead-letters); a retry is handed to Bull after that.
   */
  private async record(
    job: DeliverJob,
    claim: ClaimedAttempt,
    at: Date,
    result: AttemptResult,
  ): Promise<void> {
    const { attempt, status: statusBefore } = claim;
    const replay = job.replay ?? false;
    // The test event gets one attempt, made inline by the API; it is never retried or dead-lettered.
    const isTest = claim.eventType === TEST_EVENT_TYPE;
    const delays = this.config.webhook.retryDelaysMs;
    let retryIn: number | undefined;
    let status: DeliveryStatus;
    let outcome: string;
    if (result.ok) {
      status = 'delivered';
      outcome = replay ? 'replay_ok' : 'delivered';
    } else if (replay) {
      // A failed replay leaves the delivery as it was (dead stays dead).
      status = statusBefore === 'delivered' ? 'delivered' : 'dead';
      outcome = 'replay_failed';
    } else if (attempt <= delays.length && !isTest) {
      retryIn = delays[attempt - 1];
      status = 'pending';
      outcome = 'retry';
    } else {
      status = 'dead';
      outcome = 'dead';
    }
    const input: SettleInput = {
      tenantId: job.tenantId,
      eventId: job.eventId,
      attempt,
      slot: claim.slot,
      at,
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      error: result.error,
      responseBody: result.responseBody,
      replay,
      status,
      nextAttemptAt: retryIn === undefined ? null : new Date(Date.now() + retryIn),
      deliveredAt: result.ok ? new Date() : null,
    };
    const deadLetter = outcome === 'dead' && !isTest;
    const settled = deadLetter
      ? await this.tx.transaction(async () => {
          const [done] = await this.deliveries.settleMany([input]);
          if (done) {
            await this.audit.record(
              job.tenantId,
              { type: 'system', name: 'webhooks' },
              'webhook.dead_lettered',
              { type: 'event', id: job.eventId },
              { attempts: attempt, last_status_code: result.statusCode, last_error: result.error },
            );
          }
          return done;
        })
      : await this.track(
          job.tenantId,
          this.statements.submit({ kind: 'settle', input }) as Promise<boolean>,
        );
    if (!settled) {
      // The claim had lapsed and a later attempt owns the delivery now: it decides what follows.
      this.logger.warn(`attempt ${attempt} of ${job.eventId} outlived its claim; not settled`);
      return;
    }
    deliveriesTotal.inc({ outcome });
    if (retryIn !== undefined) {
      await this.enqueue(
        { tenantId: job.tenantId, eventId: job.eventId },
        attempt + 1,
        retryIn,
      ).catch((error: unknown) =>
        this.logger.warn({ err: error }, 'retry not enqueued; the sweeper will'),
      );
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
   * Re-enqueues pending deliveries that are overdue and not in flight: what a Redis outage or a
   * crash between commit and enqueue left behind. Job ids are per attempt, so nothing doubles.
   */
  async sweep(): Promise<number> {
    const overdue = await this.deliveries.overdue(
      Math.min(this.config.webhook.sweepMs, 5000),
      SWEEP_BATCH,
      this.config.webhook.endpointConcurrency,
    );
    for (const d of overdue) {
      const attempt = d.attempts + 1;
      if (await this.jobWillRun(deliverJobId(d.eventId, attempt))) continue;
      await this.enqueue({ tenantId: d.tenantId, eventId: d.eventId }, attempt, 0);
    }
    return overdue.length;
  }
}
