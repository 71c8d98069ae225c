import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import {
  RETENTION_JOB,
  type RetentionJobOptions,
  type RetentionResult,
} from './retention.decorator';

/** How many rows each retention job deleted in one run, by the job's name (or each kind it names). */
export type HousekeepingReport = Record<string, number>;

interface Job extends Required<RetentionJobOptions> {
  run: () => Promise<RetentionResult>;
}

/**
 * Deletes what the service no longer needs by calling the retention jobs the features declare
 * (`@Retention()` on a method of their providers): events older than EVENT_RETENTION_DAYS
 * (docs/webhooks.md: 30 days) and their webhook deliveries and attempts unless a delivery is still
 * pending (outbox/, webhooks/), and the expired idempotency keys, popup sessions, consent tokens,
 * admin sessions and sign-in codes (their features). Each job deletes its own feature's rows in
 * bounded batches, each its own short transaction; running twice at once is harmless.
 */
@Injectable()
export class HousekeepingService implements OnApplicationBootstrap {
  private readonly logger = new Logger(HousekeepingService.name);
  private jobs: Job[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  /** Finds every `@Retention()` method of the application's providers, once. */
  onApplicationBootstrap(): void {
    const jobs: Job[] = [];
    for (const { instance } of this.discovery.getProviders()) {
      if (!instance || typeof instance !== 'object') continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown> | null;
      if (!prototype) continue;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const fn = prototype[method];
        if (typeof fn !== 'function') continue;
        const options = Reflect.getMetadata(RETENTION_JOB, fn) as RetentionJobOptions | undefined;
        if (!options) continue;
        jobs.push({
          name: options.name,
          order: options.order ?? 0,
          run: () => (fn as () => Promise<RetentionResult>).call(instance),
        });
      }
    }
    this.jobs = jobs.sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
  }

  /** The jobs' names in the order they run. */
  jobNames(): string[] {
    return this.jobs.map((job) => job.name);
  }

  async run(): Promise<HousekeepingReport> {
    const report: HousekeepingReport = {};
    for (const job of this.jobs) {
      const result = await job.run();
      if (typeof result === 'number') report[job.name] = result;
      else Object.assign(report, result);
    }
    if (Object.values(report).some((n) => n > 0)) {
      this.logger.log({ deleted: report }, 'Housekeeping deleted expired rows');
    }
    return report;
  }
}
