import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { addInterval } from '../common/schedule/timers';
import { IMPORT_SWEEP_MS } from './import-owners';
import { ImportsService } from './imports.service';

/** The sweep's timer in SchedulerRegistry. */
export const IMPORT_SWEEP_INTERVAL = 'imports.sweep';

/**
 * Worker processes sweep abandoned imports every IMPORT_SWEEP_MS (ImportsService.sweepAbandoned),
 * on an interval in Nest's SchedulerRegistry that ScheduleModule clears at shutdown. A sweep finds
 * an abandoned import by its owner's session lock in PostgreSQL (import-owners.ts), so any worker
 * may run it, and several at once are harmless.
 */
@Injectable()
export class ImportSweepWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger(ImportSweepWorker.name);

  constructor(
    private readonly imports: ImportsService,
    private readonly scheduler: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    addInterval(
      this.scheduler,
      IMPORT_SWEEP_INTERVAL,
      IMPORT_SWEEP_MS,
      () => this.imports.sweepAbandoned(),
      (error: unknown) => this.logger.warn({ err: error }, 'import sweep failed'),
    );
  }
}
