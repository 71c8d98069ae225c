import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { addInterval, addTimeout } from '../common/schedule/timers';
import { AppConfig } from '../config/app-config';
import { HousekeepingService } from './housekeeping.service';

/** The first run, shortly after a worker starts. */
export const HOUSEKEEPING_FIRST_TIMEOUT = 'housekeeping.first';
export const HOUSEKEEPING_INTERVAL = 'housekeeping';

/**
 * Runs housekeeping in worker processes every HOUSEKEEPING_MS (and once shortly after start), on
 * timers in Nest's SchedulerRegistry (common/schedule/timers.ts), which ScheduleModule clears at
 * shutdown.
 */
@Injectable()
export class HousekeepingWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger(HousekeepingWorker.name);

  constructor(
    private readonly housekeeping: HousekeepingService,
    private readonly config: AppConfig,
    private readonly scheduler: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    const run = () => this.housekeeping.run();
    const failed = (error: unknown) => this.logger.warn({ err: error }, 'Housekeeping failed');
    addTimeout(this.scheduler, HOUSEKEEPING_FIRST_TIMEOUT, 10_000, run, failed);
    addInterval(this.scheduler, HOUSEKEEPING_INTERVAL, this.config.housekeepingMs, run, failed);
  }
}
