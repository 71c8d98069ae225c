import { BeforeApplicationShutdown, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { addInterval, stopInterval } from '../common/schedule/timers';
import { AppConfig } from '../config/app-config';
import { TransactionHost } from '../database/transaction-host';
import { MembersService } from '../members/members.service';
import { DeeplinksRepository } from './deeplinks.repository';

/** The link a click was on. */
export interface ClickedLink {
  readonly tenantId: string;
  readonly id: string;
  readonly memberId: string;
}

/** The flush timer's name in SchedulerRegistry. */
export const CLICK_FLUSH_INTERVAL = 'deeplinks.click-flush';

interface Pending extends ClickedLink {
  count: number;
}

/**
 * Counts short-link clicks in memory and writes them every `CLICK_FLUSH_MS` in one transaction
 * (deeplinks.clicks_count, then the owner's members.clicks_count through MembersService), so a
 * redirect never waits for PostgreSQL. The timer is a per-process interval in Nest's
 * SchedulerRegistry (common/schedule/timers.ts): the counts are in this process's memory, in every
 * role. A failed write keeps its counts for the next one; shutdown stops the timer and writes what
 * is left. A process killed without warning loses at most one interval's clicks
 * (docs/architecture.md).
 */
@Injectable()
export class ClickCounter implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(ClickCounter.name);
  private pending = new Map<string, Pending>();
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly tx: TransactionHost,
    private readonly config: AppConfig,
    private readonly links: DeeplinksRepository,
    private readonly members: MembersService,
    private readonly scheduler: SchedulerRegistry,
  ) {}

  onModuleInit(): void {
    // flush() never rejects: a failed write keeps its counts and logs.
    addInterval(
      this.scheduler,
      CLICK_FLUSH_INTERVAL,
      this.config.clickFlushMs,
      () => this.flush(),
      () => undefined,
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    stopInterval(this.scheduler, CLICK_FLUSH_INTERVAL);
    await this.flush();
  }

  record(link: ClickedLink): void {
    const key = `${link.tenantId}\n${link.id}`;
    const entry = this.pending.get(key);
    if (entry) entry.count++;
    else
      this.pending.set(key, {
        tenantId: link.tenantId,
        id: link.id,
        memberId: link.memberId,
        count: 1,
      });
  }

  /** Writes the clicks counted so far; resolves when they are in PostgreSQL (or kept on error). */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.write());
    return this.writing;
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    // One order for every process, so concurrent writers lock the rows alike.
    batch.sort((a, b) => (a.tenantId + a.id < b.tenantId + b.id ? -1 : 1));
    try {
      await this.tx.transaction(async () => {
        await this.links.addClicks(batch);
        await this.members.addClicks(batch);
      });
    } catch (error) {
      for (const p of batch) {
        const key = `${p.tenantId}\n${p.id}`;
        const entry = this.pending.get(key);
        if (entry) entry.count += p.count;
        else this.pending.set(key, p);
      }
      this.logger.warn({ err: error, links: batch.length }, 'click counts kept for the next write');
    }
  }
}
