import { Injectable } from '@nestjs/common';
import type { DeliverJob } from '../webhook.queue';
import { DeliveryJobs } from './delivery-jobs';
import type { EndpointLane, LaneItem } from './endpoint-lane';
import { BUSY_RETRY_MS } from './engine-settings';
import { Lanes } from './lanes';
import { type LaneListener, StatementLoop } from './statement-loop';

/**
 * A lane accepts at least this many deliveries, and as many as it answers in ACCEPT_SECONDS at
 * its current rate; beyond that a job waits for room or is deferred (see admit()).
 */
const MIN_BACKLOG = 4096;
const ACCEPT_SECONDS = 2;
const MAX_ADMIT_WAIT_MS = 1000;
/** Deferred jobs come back after at most this long. */
const MAX_DEFER_MS = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Jobs' deliveries into their endpoint's lane, so that one tenant's slow receiver never holds the
 * process's job slots while other tenants' jobs wait (docs/webhooks.md: bounded concurrency per
 * endpoint).
 */
@Injectable()
export class Admission implements LaneListener {
  /** Per lane with jobs waiting for room in it: what wakes them. */
  private readonly rooms = new Map<EndpointLane, { promise: Promise<void>; resolve: () => void }>();

  constructor(
    private readonly lanes: Lanes,
    private readonly loop: StatementLoop,
    private readonly jobs: DeliveryJobs,
  ) {}

  /** After a statement the lane may have room: the jobs waiting for it look again. */
  applied(lane: EndpointLane): void {
    const room = this.rooms.get(lane);
    if (!room || lane.backlog >= this.allowance(lane)) return;
    this.rooms.delete(lane);
    room.resolve();
  }

  forgotten(lane: EndpointLane): void {
    this.rooms.get(lane)?.resolve();
    this.rooms.delete(lane);
  }

  /** The process is stopping: every job waiting for room looks again, and is deferred. */
  openAll(): void {
    for (const room of this.rooms.values()) room.resolve();
    this.rooms.clear();
  }

  /**
   * Puts a job's deliveries in their lane. A lane takes at least MIN_BACKLOG deliveries and as
   * many as it answers in ACCEPT_SECONDS. A job beyond that waits for room if the lane should
   * make it within MAX_ADMIT_WAIT_MS at its rate (or, in its first second, before the rate is
   * known), and is deferred otherwise (and after waiting that long in all). So a burst to a fast
   * endpoint flows through, while a slow endpoint's jobs never hold the process's job slots for
   * long: other tenants' jobs keep running.
   */
  async admit(job: DeliverJob, items: LaneItem[]): Promise<void> {
    const lane = this.lanes.closing ? undefined : this.lanes.of(job.tenantId);
    const deadline = Date.now() + MAX_ADMIT_WAIT_MS;
    while (lane && lane.backlog + items.length > this.allowance(lane)) {
      const now = Date.now();
      const rate = lane.attemptsPerSecond(now);
      const excess = lane.backlog + items.length - this.allowance(lane);
      const roomInMs = rate > 0 ? (excess / rate) * 1000 : Infinity;
      const young = now - lane.createdAt < 1000;
      if (this.lanes.closing || now >= deadline || (roomInMs > MAX_ADMIT_WAIT_MS && !young)) {
        await this.defer(job, items, lane);
        return;
      }
      await Promise.race([this.room(lane), sleep(deadline - now)]);
    }
    if (!lane) {
      this.jobs.letGo(job.tenantId, items);
      return;
    }
    for (const item of lane.admit(items)) item.settle?.(undefined);
    this.loop.touch(lane);
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

  /** Re-queues a job's deliveries for later: by the lane's own backlog time, 1 s to 60 s. */
  private async defer(job: DeliverJob, items: LaneItem[], lane: EndpointLane): Promise<void> {
    const rate = lane.attemptsPerSecond();
    const deferrals = (job.deferrals ?? 0) + 1;
    const base = rate > 0 ? (lane.backlog / rate) * 1000 : BUSY_RETRY_MS * 2 ** (deferrals - 1);
    const delayMs = Math.min(MAX_DEFER_MS, Math.max(BUSY_RETRY_MS, base)) * (1 + Math.random());
    await this.jobs.defer(
      job,
      items.map((i) => i.eventId),
      deferrals,
      delayMs,
    );
    for (const item of items) item.settle?.(undefined);
  }
}
