import { Module } from '@nestjs/common';
import { HousekeepingService } from './housekeeping.service';
import { HousekeepingWorker } from './housekeeping.worker';

/** Retention of events and clean-up of expired credentials (HousekeepingService). */
@Module({ providers: [HousekeepingService], exports: [HousekeepingService] })
export class HousekeepingModule {}

/** The timer that runs it, in worker processes only. */
@Module({ imports: [HousekeepingModule], providers: [HousekeepingWorker] })
export class HousekeepingWorkerModule {}
