import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { TEST_EVENT_TYPE } from '../../outbox/event-types';
import type { AttemptResult } from '../webhook-sender';
import { deliveriesTotal } from '../webhook.metrics';
import { decideAttempt } from './attempt-policy';
import type { ClaimedAttempt } from './deliveries.types';
import type { EndpointLane, LaneItem, RecordEntry } from './endpoint-lane';
import { DeliveryJobs } from './delivery-jobs';

/**
 * An answered attempt as the record to write (its outcome decided by attempt-policy.ts), and what
 * follows once the record is written: the metric, the retry job, and whoever waits for the result.
 */
@Injectable()
export class AttemptRecords {
  private readonly logger = new Logger(AttemptRecords.name);

  constructor(
    private readonly config: AppConfig,
    private readonly jobs: DeliveryJobs,
  ) {}

  /** The record of an attempt made at `at` (epoch milliseconds) that answered `result`. */
  entry(
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
    return {
      input: {
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
      },
      item,
      result,
      outcome: decision.outcome,
      retryInMs: decision.retryInMs,
      deadLetter: decision.deadLetter,
    };
  }

  /** The record was written (`settled`: its delivery too), or given up (not settled). */
  recorded(lane: EndpointLane, entry: RecordEntry, settled: boolean): void {
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
      this.jobs.retry(input.tenantId, input.eventId, input.attempt + 1, entry.retryInMs);
    }
    entry.item.settle?.(entry.result);
  }
}
