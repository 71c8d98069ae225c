import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { HousekeepingService } from './housekeeping.service';

/** Runs housekeeping in worker processes every HOUSEKEEPING_MS (and once shortly after start). */
@Injectable()
export class HousekeepingWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(HousekeepingWorker.name);
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly housekeeping: HousekeepingService,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const run = () =>
      void this.housekeeping
        .run()
        .catch((error: unknown) => this.logger.warn({ err: error }, 'Housekeeping failed'));
    this.timers = [setTimeout(run, 10_000), setInterval(run, this.config.housekeepingMs)];
    for (const timer of this.timers) timer.unref();
  }

  onApplicationShutdown(): void {
    for (const timer of this.timers) clearTimeout(timer);
  }
}
