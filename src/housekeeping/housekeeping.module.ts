import { Module } from '@nestjs/common';
import { SignInPopupModule } from '../sign-in-popup/sign-in-popup.module';
import { HousekeepingService } from './housekeeping.service';
import { HousekeepingWorker } from './housekeeping.worker';

/**
 * Retention of events and clean-up of expired credentials (HousekeepingService): each feature
 * deletes its own expired rows (sign-in, idempotency keys and admin sessions from global modules).
 */
@Module({
  imports: [SignInPopupModule],
  providers: [HousekeepingService],
  exports: [HousekeepingService],
})
export class HousekeepingModule {}

/** The timer that runs it, in worker processes only. */
@Module({ imports: [HousekeepingModule], providers: [HousekeepingWorker] })
export class HousekeepingWorkerModule {}
