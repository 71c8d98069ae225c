import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { attemptDuration } from '../webhook.metrics';
import { AttemptRecords } from './attempt-records';
import { AttemptSender } from './attempt-sender';
import { DeadLetters } from './dead-letters';
import type { EndpointLane, ReadyAttempt } from './endpoint-lane';
import { EngineSettings } from './engine-settings';
import { type LaneListener, StatementLoop } from './statement-loop';

/**
 * The process's requests: one starts whenever a lane has a claimed attempt, a free slot (the
 * endpoint's cap, across workers) and one of the process's WEBHOOK_CONCURRENCY permits; lanes
 * wait for a permit in turn. Each answer goes to its lane, to be recorded by the next statement.
 */
@Injectable()
export class SendPool implements LaneListener {
  /** Process permits free, and lanes waiting for one (in order). */
  private permits: number;
  private readonly waitingForPermit = new Set<EndpointLane>();

  constructor(
    config: AppConfig,
    private readonly settings: EngineSettings,
    private readonly loop: StatementLoop,
    private readonly sender: AttemptSender,
    private readonly records: AttemptRecords,
    private readonly deadLetters: DeadLetters,
  ) {
    this.permits = config.webhook.concurrency;
  }

  /** After a statement the lane may have claimed attempts to send. */
  applied(lane: EndpointLane): void {
    this.pump(lane);
  }

  forgotten(lane: EndpointLane): void {
    this.waitingForPermit.delete(lane);
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
    if (at - ready.claimedAt > this.settings.waitBudgetMs) {
      // Waited so long that the request could outlive the lock: give the claim back unsent.
      lane.notSent();
      lane.unclaim(ready);
      this.releasePermit();
      this.loop.touch(lane);
      return;
    }
    const result = await this.sender.send(lane.endpoint, item.eventId, claim, at);
    attemptDuration.observe({ error: result.error ?? 'none' }, result.durationMs / 1000);
    const entry = this.records.entry(lane.tenantId, item, claim, at, result);
    if (entry.deadLetter) {
      lane.answeredElsewhere(entry);
      void this.deadLetters.record(entry.input).then((settled) => {
        this.records.recorded(lane, entry, settled);
        this.loop.touch(lane);
      });
    } else {
      lane.answered(entry);
      this.loop.touch(lane);
    }
    this.releasePermit();
    this.pump(lane);
  }
}
