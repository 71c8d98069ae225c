import type {
  ClaimedAttempt,
  ClaimOutcome,
  EndpointSnapshot,
  LaneLease,
  SettleInput,
} from './deliveries.types';
import type { AttemptResult } from '../webhook-sender';

/**
 * One endpoint's deliveries in one process: what jobs asked for, what is claimed, in flight and
 * being recorded, and how many of the endpoint's slots this process holds. Pure bookkeeping; the
 * engine runs the statements (statement-loop.ts) and the requests (send-pool.ts) it asks for.
 *
 * The point of a lane: the process leases the endpoint's slots for as long as it has work for it
 * and claims a few attempts ahead of its requests, so a finished request is followed at once by
 * the next one, while Postgres (claims, records, leases) is written in batches beside it.
 */

/** One delivery a job asked this process to attempt. */
export interface LaneItem {
  eventId: string;
  replay: boolean;
  /** Told once: the attempt's result once recorded, or undefined when nothing was sent here. */
  settle?: (result: AttemptResult | undefined) => void;
}

/** A claimed attempt waiting for a slot (and a process permit). */
export interface ReadyAttempt {
  item: LaneItem;
  claim: ClaimedAttempt;
  /** Local time the claiming statement was sent: the delivery lock runs from no earlier. */
  claimedAt: number;
}

/** An answered attempt to record, and what follows once it is. */
export interface RecordEntry {
  input: SettleInput;
  item: LaneItem;
  result: AttemptResult;
  outcome: string;
  retryInMs?: number;
  /** Recorded with its audit entry in a transaction of its own, not in the batch. */
  deadLetter: boolean;
}

/** What the lane puts in one statement. */
export interface LaneBatch {
  records: RecordEntry[];
  /** Present when the statement leases for this lane; claims come only with it. */
  lease?: LaneLease;
  claims: LaneItem[];
  unclaims: ReadyAttempt[];
  sentAt: number;
}

export interface LaneSettings {
  /** WEBHOOK_ENDPOINT_CONCURRENCY: slots held, and requests in flight, at most. */
  cap: number;
  /** Claimed attempts (waiting and in flight) per slot held, at most. */
  maxPrefetch: number;
  /** How long a claimed attempt may wait for its slot and still end before its lock does. */
  waitBudgetMs: number;
  /** Leases are renewed once they are this old. */
  renewAfterMs: number;
  /** After a lease that found every slot taken, slots are asked for again this much later. */
  noSlotsRetryMs: number;
}

/** What a statement's answer means for the engine, beyond the lane's own state. */
export interface LaneOutcome {
  /** Claimable, but every slot is leased by other processes: re-queue after a delay. */
  busy: { item: LaneItem; attempts: number }[];
  /** Nothing to do here (sent or in flight elsewhere, not due): told, and dropped. */
  none: LaneItem[];
  /** Every slot was taken by other processes: look again after this long. */
  slotsRetryMs?: number;
}

const key = (eventId: string, replay: boolean) => (replay ? `${eventId}\nreplay` : eventId);

export class EndpointLane {
  /** Asked for, not claimed yet (a queue read from `head`). */
  private pending: LaneItem[] = [];
  private head = 0;
  /** Claimed, waiting for a slot. */
  readonly ready: ReadyAttempt[] = [];
  inFlight = 0;
  /** Answered, to record in the next statement. */
  private records: RecordEntry[] = [];
  /** Claims to give back unsent. */
  private unclaims: ReadyAttempt[] = [];
  /** Deliveries whose record or unclaim is being written: not claimed until it commits. */
  private readonly writing = new Map<string, number>();
  /** Every delivery in the lane (pending … being recorded), to drop duplicate jobs. */
  private readonly keys = new Set<string>();
  /** Slots this process holds (as of the last statement with a lease). */
  held = 0;
  private leasedAt = 0;
  /**
   * Until then the lane asks for slots only along with claims: its last lease found every slot
   * taken by other processes, and asking again at once would loop while its claimed attempts
   * or requests in flight wait.
   */
  private noSlotsUntil = 0;
  /** A statement with this lane's lease is running (at most one at a time). */
  private leasing = false;
  private claiming = 0;
  /** The endpoint as the last leasing statement read it. */
  endpoint: EndpointSnapshot | null = null;
  /** When the lane was made: until a second has passed, its rate may not be known yet. */
  readonly createdAt = Date.now();
  /** Completed attempts, for the rate that sizes the backlog a lane accepts. */
  private completions = 0;
  private windowStart = this.createdAt;
  private rate = 0;
  /** Mean request time (moving average; 0 before the first answer). */
  private meanRequestMs = 0;

  constructor(
    readonly tenantId: string,
    private readonly settings: LaneSettings,
  ) {}

  get pendingCount(): number {
    return this.pending.length - this.head;
  }

  /** Deliveries admitted and not yet answered. */
  get backlog(): number {
    return this.pendingCount + this.claiming + this.ready.length + this.inFlight;
  }

  /** Nothing held, asked for or being written: the lane can be forgotten. */
  get idle(): boolean {
    return (
      this.keys.size === 0 &&
      this.held === 0 &&
      !this.leasing &&
      this.records.length === 0 &&
      this.unclaims.length === 0 &&
      this.writing.size === 0
    );
  }

  /** Attempts answered per second, a moving average over quarter seconds (0 before any). */
  attemptsPerSecond(now = Date.now()): number {
    const elapsed = now - this.windowStart;
    if (elapsed >= 250) {
      const current = (this.completions * 1000) / elapsed;
      this.rate = this.rate ? (this.rate + current) / 2 : current;
      this.completions = 0;
      this.windowStart = now;
    }
    return this.rate;
  }

  /**
   * Claimed attempts per slot held: enough to start the next request the moment one ends while a
   * statement claims more, few enough that a claim never waits longer than half its budget
   * (`waitBudgetMs`) at the endpoint's mean request time. Two until the first answer.
   */
  get prefetch(): number {
    if (!this.meanRequestMs) return 2;
    const waiting = Math.floor(this.settings.waitBudgetMs / (2 * this.meanRequestMs));
    return Math.max(1, Math.min(this.settings.maxPrefetch, 1 + waiting));
  }

  /** Whether the lane has this delivery (asked for, claimed, in flight or being recorded). */
  has(eventId: string, replay: boolean): boolean {
    return this.keys.has(key(eventId, replay));
  }

  /** Adds the items that are not already in the lane; returns those that were. */
  admit(items: LaneItem[]): LaneItem[] {
    const duplicates: LaneItem[] = [];
    for (const item of items) {
      const k = key(item.eventId, item.replay);
      if (this.keys.has(k)) {
        duplicates.push(item);
        continue;
      }
      this.keys.add(k);
      this.pending.push(item);
    }
    return duplicates;
  }

  /** Drops what is not claimed yet (the process is stopping); returns it. */
  dropPending(): LaneItem[] {
    const dropped = this.pending.slice(this.head);
    this.pending = [];
    this.head = 0;
    for (const item of dropped) this.keys.delete(key(item.eventId, item.replay));
    return dropped;
  }

  /** Gives back every claim not sent yet (the process is stopping). */
  unclaimReady(): void {
    for (const ready of this.ready.splice(0)) this.unclaim(ready);
  }

  /** Gives one claim back unsent: written in the next statement, claimable again after. */
  unclaim(ready: ReadyAttempt): void {
    this.unclaims.push(ready);
    this.hold(ready.item.eventId);
  }

  /** The next claimed attempt, if a slot is free. */
  nextToSend(): ReadyAttempt | undefined {
    if (this.inFlight >= this.held || !this.ready.length) return undefined;
    this.inFlight++;
    return this.ready.shift();
  }

  /** A request started by nextToSend ended without a record (it was given back unsent). */
  notSent(): void {
    this.inFlight--;
  }

  /** A request ended; its record goes in the next statement. */
  answered(entry: RecordEntry): void {
    this.ended(entry.result.durationMs);
    this.records.push(entry);
    this.hold(entry.item.eventId);
  }

  /** A request ended and its record is written elsewhere (a dead letter, with its audit entry). */
  answeredElsewhere(entry: RecordEntry): void {
    this.ended(entry.result.durationMs);
    this.hold(entry.item.eventId);
  }

  private ended(durationMs: number): void {
    this.inFlight--;
    this.completions++;
    this.meanRequestMs = this.meanRequestMs
      ? 0.9 * this.meanRequestMs + 0.1 * Math.max(1, durationMs)
      : Math.max(1, durationMs);
  }

  /** That record has been written (or given up): the delivery may be claimed again. */
  recorded(item: LaneItem): void {
    this.release(item.eventId);
    this.keys.delete(key(item.eventId, item.replay));
  }

  /**
   * This lane's part of the next statement, or undefined when it has nothing to write. Claims
   * (and with them a lease) only while no other statement leases for the lane: at most `prefetch`
   * claimed attempts per slot held (per slot wanted, before the first lease). Slots are leased up
   * to what the lane has work for, released when it has less, and renewed once a third of their
   * lease has passed.
   */
  takeBatch(now: number, closing: boolean): LaneBatch | undefined {
    const records = this.records.splice(0);
    const unclaims = this.unclaims.splice(0);
    let lease: LaneLease | undefined;
    let claims: LaneItem[] = [];
    if (!this.leasing) {
      const outstanding = this.ready.length + this.inFlight;
      const demand = outstanding + (closing ? 0 : this.pendingCount);
      const target = Math.min(this.settings.cap, demand);
      const prefetch = this.prefetch;
      if (!closing) {
        const base = this.held > 0 ? this.held : target;
        claims = this.takePending(prefetch * base - outstanding);
      }
      const renew = this.held > 0 && now - this.leasedAt >= this.settings.renewAfterMs;
      const grow =
        target > this.held && (records.length > 0 || this.held === 0) && now >= this.noSlotsUntil;
      if (claims.length || target < this.held || renew || grow) {
        lease = { tenantId: this.tenantId, target, outstanding, prefetch, renew };
        this.leasing = true;
        this.claiming = claims.length;
      }
    }
    if (!records.length && !unclaims.length && !lease) return undefined;
    return { records, lease, claims, unclaims, sentAt: now };
  }

  /**
   * The oldest answered attempt alone, with no lease, claim or unclaim: after a refused statement
   * the engine writes a suspected lane's records one per statement (statement-loop.ts).
   */
  takeRecord(now: number): LaneBatch | undefined {
    const record = this.records.shift();
    if (!record) return undefined;
    return { records: [record], claims: [], unclaims: [], sentAt: now };
  }

  /**
   * Applies a statement's answer: slots held, claims made (ready to send), refused for now
   * (back to the front of the queue) or not needed; records and unclaims written. Returns what
   * the engine must act on.
   */
  applyBatch(
    batch: LaneBatch,
    answer: { held: number; endpoint: EndpointSnapshot | null } | undefined,
    claims: ClaimOutcome[],
  ): LaneOutcome {
    const outcome: LaneOutcome = { busy: [], none: [] };
    for (const ready of batch.unclaims) {
      this.release(ready.item.eventId);
      this.requeue([ready.item]);
    }
    if (!batch.lease) return outcome;
    this.leasing = false;
    this.claiming = 0;
    if (answer) {
      if (batch.lease.renew || (this.held === 0 && answer.held > 0)) this.leasedAt = batch.sentAt;
      this.held = answer.held;
      if (answer.held === 0 && batch.lease.target > 0) {
        this.noSlotsUntil = batch.sentAt + this.settings.noSlotsRetryMs;
        outcome.slotsRetryMs = this.settings.noSlotsRetryMs;
      }
      this.endpoint = answer.endpoint;
    }
    const limited: LaneItem[] = [];
    batch.claims.forEach((item, i) => {
      const claim = claims[i];
      if (claim.kind === 'claimed') {
        this.ready.push({ item, claim: claim.claim, claimedAt: batch.sentAt });
      } else if (claim.kind === 'limited') {
        limited.push(item);
      } else {
        this.keys.delete(key(item.eventId, item.replay));
        if (claim.kind === 'busy') outcome.busy.push({ item, attempts: claim.attempts });
        else outcome.none.push(item);
      }
    });
    this.requeue(limited);
    return outcome;
  }

  /**
   * A statement failed, so nothing it did was committed. Its records and unclaims are written
   * again next time and its claims go back to the queue; or, when the statement is given up, its
   * records and claims are dropped (returned), their deliveries left to lapse and be swept.
   */
  failBatch(batch: LaneBatch, giveUp = false): LaneItem[] {
    if (batch.lease) {
      this.leasing = false;
      this.claiming = 0;
    }
    this.unclaims.unshift(...batch.unclaims);
    if (!giveUp) {
      this.records.unshift(...batch.records);
      this.requeue(batch.claims);
      return [];
    }
    const dropped = [...batch.records.map((entry) => entry.item), ...batch.claims];
    for (const entry of batch.records) this.release(entry.item.eventId);
    for (const item of dropped) this.keys.delete(key(item.eventId, item.replay));
    return dropped;
  }

  private takePending(n: number): LaneItem[] {
    const taken: LaneItem[] = [];
    const skipped: LaneItem[] = [];
    while (taken.length < n && this.head < this.pending.length) {
      const item = this.pending[this.head++];
      // A delivery whose record (or unclaim) is being written waits for that commit.
      (this.writing.has(item.eventId) ? skipped : taken).push(item);
    }
    if (skipped.length) this.requeue(skipped);
    if (this.head > 1024 && this.head * 2 > this.pending.length) {
      this.pending = this.pending.slice(this.head);
      this.head = 0;
    }
    return taken;
  }

  private requeue(items: LaneItem[]): void {
    if (!items.length) return;
    if (this.head >= items.length) {
      this.head -= items.length;
      for (let i = 0; i < items.length; i++) this.pending[this.head + i] = items[i];
    } else {
      this.pending = [...items, ...this.pending.slice(this.head)];
      this.head = 0;
    }
  }

  private hold(eventId: string): void {
    this.writing.set(eventId, (this.writing.get(eventId) ?? 0) + 1);
  }

  private release(eventId: string): void {
    const n = (this.writing.get(eventId) ?? 1) - 1;
    if (n > 0) this.writing.set(eventId, n);
    else this.writing.delete(eventId);
  }
}
