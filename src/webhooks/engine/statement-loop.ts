import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { AttemptRecords } from './attempt-records';
import { DeliveryJobs } from './delivery-jobs';
import { DeliveriesRepository } from './deliveries.repository';
import type { FlushInput } from './deliveries.types';
import type { EndpointLane, LaneBatch, LaneItem } from './endpoint-lane';
import { EngineConnection, STATEMENTS_RUNNING } from './engine-connection';
import { BUSY_RETRY_MS, EngineSettings } from './engine-settings';
import { Lanes } from './lanes';

type Part = { lane: EndpointLane; batch: LaneBatch };

/** What the other parts of the engine do when the loop is done with a lane. */
export interface LaneListener {
  /** A statement's answer was applied to the lane: claims may be ready, room may be free. */
  applied(lane: EndpointLane): void;
  /** The lane was idle and is forgotten. */
  forgotten(lane: EndpointLane): void;
}

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
 * The engine's writes: one statement at a time (STATEMENTS_RUNNING) for every lane with something
 * to write (DeliveriesRepository.flush: records, unclaims, leases and claims), and what follows from its
 * answer. Whatever waits while a statement runs goes into the next one, whatever its lane, so
 * Postgres costs a round trip per batch rather than several per delivery (the first engine made
 * about ten per delivery and reached 0.05 of a plain HTTPS loop; bench/README.md).
 */
@Injectable()
export class StatementLoop implements OnModuleDestroy {
  private readonly logger = new Logger(StatementLoop.name);
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
  private readonly listeners: LaneListener[] = [];
  private readonly renewTimer: NodeJS.Timeout;

  constructor(
    private readonly config: AppConfig,
    private readonly settings: EngineSettings,
    private readonly connection: EngineConnection,
    private readonly deliveries: DeliveriesRepository,
    private readonly lanes: Lanes,
    private readonly records: AttemptRecords,
    private readonly jobs: DeliveryJobs,
  ) {
    // Lanes whose every request is slow write nothing for a while: renew their leases anyway.
    // A heartbeat of the leases this loop holds, not a schedule: its period follows the lease
    // (lockMs / 6), it renews only what this process holds, and it lives and dies with the loop,
    // so it is not in SchedulerRegistry (docs/architecture.md, "Jobs and timers").
    this.renewTimer = setInterval(() => {
      for (const lane of this.lanes.all()) if (lane.held) this.touch(lane);
    }, settings.lockMs / 6);
    this.renewTimer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.renewTimer);
  }

  listen(listener: LaneListener): void {
    this.listeners.push(listener);
  }

  /** The lane has something to write (or may have): it goes in the next statement. */
  touch(lane: EndpointLane): void {
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

  private forgetIfIdle(lane: EndpointLane): void {
    if (!lane.idle) return;
    this.lanes.forget(lane);
    this.suspects.delete(lane);
    for (const listener of this.listeners) listener.forgotten(lane);
  }

  /**
   * The parts of the next statement: every lane with something to write (one lane, that is one
   * tenant, on a database sharded by tenant), or, while a lane is suspected of a statement refused
   * before, that lane alone (one of its records, or its batch).
   */
  private takeParts(now: number): Part[] {
    for (const [lane, records] of this.suspects) {
      if (!this.dirty.has(lane)) continue;
      this.dirty.delete(lane);
      let batch = records > 0 ? lane.takeRecord(now) : undefined;
      if (!batch) {
        this.suspects.set(lane, 0);
        batch = lane.takeBatch(now, this.lanes.closing);
      }
      if (batch) return [{ lane, batch }];
      // Nothing left to write: no longer suspected.
      this.suspects.delete(lane);
      this.forgetIfIdle(lane);
    }
    const parts: Part[] = [];
    for (const lane of this.dirty) {
      this.dirty.delete(lane);
      const batch = lane.takeBatch(now, this.lanes.closing);
      if (batch) parts.push({ lane, batch });
      else this.forgetIfIdle(lane);
      if (parts.length && this.config.databaseSharded) break;
    }
    return parts;
  }

  /** The statement's input: each lane's records and unclaims, and its lease with its claims. */
  private input(parts: Part[], deferMs: number): FlushInput {
    const input: FlushInput = {
      holder: this.settings.holder,
      lockMs: this.settings.lockMs,
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
    return input;
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
    try {
      const output = await this.deliveries.flush(this.input(parts, deferMs), this.connection.run);
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
      const busy: { tenantId: string; item: LaneItem; attempts: number }[] = [];
      let r = 0;
      let l = 0;
      let c = 0;
      for (const { lane, batch } of parts) {
        const settled = output.settled.slice(r, (r += batch.records.length));
        const answer = batch.lease ? output.lanes[l++] : undefined;
        const claims = batch.lease ? output.claims.slice(c, (c += batch.claims.length)) : [];
        const outcome = lane.applyBatch(batch, answer, claims);
        if (outcome.slotsRetryMs) {
          setTimeout(
            () => this.lanes.isCurrent(lane) && this.touch(lane),
            outcome.slotsRetryMs,
          ).unref();
        }
        batch.records.forEach((entry, i) => this.records.recorded(lane, entry, settled[i]));
        for (const item of outcome.none) item.settle?.(undefined);
        for (const { item, attempts } of outcome.busy) {
          busy.push({ tenantId: lane.tenantId, item, attempts });
          item.settle?.(undefined);
        }
        if (this.lanes.closing) this.jobs.letGo(lane.tenantId, lane.dropPending());
        for (const listener of this.listeners) listener.applied(lane);
        this.touch(lane);
      }
      this.jobs.busy(busy, deferMs);
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
   * A statement was refused (an error that would come again, e.g. in the data): nothing it did was
   * committed. Given up is only what is known to cause it: a lane's batch written alone with no
   * record (its claims, which go back to the sweeper), or one record written alone (its claim
   * lapses and the delivery is retried). Anything else is written again, each lane alone and its
   * records one at a time, so one bad record never costs the answered attempts of others.
   */
  private refused(parts: Part[]): void {
    const alone = parts.length === 1 ? parts[0] : undefined;
    const single = alone && this.suspects.get(alone.lane) !== undefined;
    for (const { lane, batch } of parts) {
      const isRecord = single && !batch.lease && batch.records.length === 1 && !batch.claims.length;
      if (isRecord) {
        this.jobs.letGo(lane.tenantId, lane.failBatch(batch, true));
        this.suspects.set(lane, Math.max(0, (this.suspects.get(lane) ?? 1) - 1));
      } else if (alone && !batch.records.length) {
        this.jobs.letGo(lane.tenantId, lane.failBatch(batch, true));
        this.suspects.delete(lane);
      } else {
        lane.failBatch(batch);
        this.suspects.set(lane, batch.records.length);
      }
      this.dirty.add(lane);
    }
  }
}
