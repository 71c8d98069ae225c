import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { HousekeepingService } from './housekeeping.service';
import { HousekeepingWorker } from './housekeeping.worker';

/**
 * Retention and the clean-up of expired rows (HousekeepingService): each feature declares its own
 * jobs with `@Retention()` (retention.decorator.ts), and housekeeping finds and runs them, so it
 * imports no feature.
 */
@Module({
  imports: [DiscoveryModule],
  providers: [HousekeepingService],
  exports: [HousekeepingService],
})
export class HousekeepingModule {}

/** The timer that runs it, in worker processes only. */
@Module({ imports: [HousekeepingModule], providers: [HousekeepingWorker] })
export class HousekeepingWorkerModule {}
