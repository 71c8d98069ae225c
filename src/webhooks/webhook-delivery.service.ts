import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { AuditService } from '../audit/audit.service';
import { AppConfig } from '../config/app-config';
import { TransactionHost } from '../database/transaction-host';
import { TEST_EVENT_TYPE } from '../events/event-types';
import { type ClaimedAttempt, WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { type AttemptResult, WebhookSender } from './webhook-sender';
import { deliveryHeaders } from './webhook-signature';
import { attemptDuration, deliveriesTotal } from './webhook.metrics';
import { DELIVER_JOB, type DeliverJob, deliverJobId, WEBHOOKS_QUEUE } from './webhook.queue';
import { open } from '../common/crypto/secret-box';

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

/**
 * One attempt of one delivery: claim it in Postgres (at most one in flight per delivery, a
 * bounded number per endpoint), send the stored bytes, record the attempt and decide what comes
 * next (delivered, a retry on the schedule, or dead with an audit-log entry) in one transaction.
 */
@Injectable()
export class WebhookDeliveryService {
  private readonly logger = new Logger(WebhookDeliveryService.name);

  constructor(
    private readonly tx: TransactionHost,
    private readonly config: AppConfig,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly sender: WebhookSender,
    private readonly audit: AuditService,
    @InjectQueue(WEBHOOKS_QUEUE) private readonly queue: Queue<DeliverJob>,
  ) {}

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
   * Runs one attempt if the delivery is due and free; returns its result, or undefined when there
   * was nothing to do (delivered already, in flight elsewhere, not due, or deferred as busy).
   */
  async attempt(job: DeliverJob): Promise<AttemptResult | undefined> {
    const lockMs = attemptLockMs(this.config.webhook.timeoutMs);
    const claim = await this.tx.transaction(async () => {
      if (
        (await this.deliveries.inFlight(job.tenantId)) >= this.config.webhook.endpointConcurrency
      ) {
        return 'busy' as const;
      }
      return this.deliveries.claim(job.tenantId, job.eventId, job.replay ?? false, lockMs);
    });
    if (claim === 'busy') {
      const current = await this.deliveries.find(job.tenantId, job.eventId);
      const jitter = Math.floor(Math.random() * BUSY_RETRY_MS);
      await this.enqueue(
        job,
        (current?.attempts ?? 0) + 1,
        BUSY_RETRY_MS + jitter,
        `:busy${Date.now()}`,
      );
      return undefined;
    }
    if (!claim) return undefined;

    const endpoint = await this.endpoints.find(job.tenantId);
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
      const key = this.config.secretsEncryptionKey;
      const previous =
        endpoint.previousSecretSealed &&
        endpoint.previousSecretExpiresAt &&
        endpoint.previousSecretExpiresAt > at
          ? open(endpoint.previousSecretSealed, key)
          : undefined;
      const headers = deliveryHeaders({
        body: claim.body,
        eventId: job.eventId,
        eventType: claim.eventType,
        attempt: claim.attempt,
        secret: open(endpoint.secretSealed, key),
        previousSecret: previous,
        timestamp: Math.floor(at.getTime() / 1000),
      });
      result = await this.sender.send(endpoint.url, claim.body, headers);
    }
    attemptDuration.observe({ error: result.error ?? 'none' }, result.durationMs / 1000);
    await this.record(job, claim, at, result);
    return result;
  }

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
    await this.tx.transaction(async () => {
      await this.deliveries.recordAttempt({
        tenantId: job.tenantId,
        eventId: job.eventId,
        attempt,
        at,
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        error: result.error,
        responseBody: result.responseBody,
        replay,
      });
      const last = { lastStatusCode: result.statusCode, lastError: result.error };
      if (result.ok) {
        deliveriesTotal.inc({ outcome: replay ? 'replay_ok' : 'delivered' });
        await this.deliveries.settle(job.tenantId, job.eventId, {
          status: 'delivered',
          nextAttemptAt: null,
          deliveredAt: new Date(),
          ...last,
        });
      } else if (replay) {
        // A failed replay leaves the delivery as it was (dead stays dead).
        deliveriesTotal.inc({ outcome: 'replay_failed' });
        await this.deliveries.settle(job.tenantId, job.eventId, {
          status: statusBefore === 'delivered' ? 'delivered' : 'dead',
          nextAttemptAt: null,
          ...last,
        });
      } else if (attempt <= delays.length && !isTest) {
        retryIn = delays[attempt - 1];
        deliveriesTotal.inc({ outcome: 'retry' });
        await this.deliveries.settle(job.tenantId, job.eventId, {
          status: 'pending',
          nextAttemptAt: new Date(Date.now() + retryIn),
          ...last,
        });
      } else {
        deliveriesTotal.inc({ outcome: 'dead' });
        await this.deliveries.settle(job.tenantId, job.eventId, {
          status: 'dead',
          nextAttemptAt: null,
          ...last,
        });
        if (isTest) return;
        await this.audit.record(
          job.tenantId,
          { type: 'system', name: 'webhooks' },
          'webhook.dead_lettered',
          { type: 'event', id: job.eventId },
          { attempts: attempt, last_status_code: result.statusCode, last_error: result.error },
        );
      }
    });
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
    );
    for (const d of overdue) {
      const attempt = d.attempts + 1;
      if (await this.jobWillRun(deliverJobId(d.eventId, attempt))) continue;
      await this.enqueue({ tenantId: d.tenantId, eventId: d.eventId }, attempt, 0);
    }
    return overdue.length;
  }
}
