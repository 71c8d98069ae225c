import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { BonusesModule } from '../bonuses/bonuses.module';
import { TenantsModule } from '../tenants/tenants.module';
import { MembersModule } from '../members/members.module';
import { LedgerModule } from './ledger/ledger.module';
import { PayoutScheduleWorker } from './payout-schedule.worker';
import { PayoutsAdminController } from './payouts-admin.controller';
import { PayoutsCsvService } from './payouts-csv.service';
import { PayoutsFederationController } from './payouts.controller';
import { PAYOUTS_QUEUE } from './payouts.queue';
import { PayoutsRepository } from './payouts.repository';
import { PayoutsService } from './payouts.service';
import { PayoutDetailsRepository } from './payout-details/payout-details.repository';
import { PayoutDetailsService } from './payout-details/payout-details.service';

/** Balances, payout runs, payouts and clawbacks (docs/payouts.md), partners' payout details. */
@Module({
  imports: [AuditModule, BonusesModule, LedgerModule, MembersModule],
  controllers: [PayoutsAdminController, PayoutsFederationController],
  providers: [
    PayoutsRepository,
    PayoutsService,
    PayoutsCsvService,
    PayoutDetailsRepository,
    PayoutDetailsService,
  ],
  // PayoutsRepository for PayoutsWorkerModule below; other features read through PayoutsService.
  // PayoutDetailsService for the partner portal (save, masked) and the console's partner page.
  exports: [
    PayoutsService,
    PayoutsRepository,
    PayoutsCsvService,
    PayoutDetailsService,
    LedgerModule,
  ],
})
export class PayoutsModule {}

/** Loaded by the worker role only: the scheduled runs at 00:00 UTC. */
@Module({
  imports: [PayoutsModule, TenantsModule, BullModule.registerQueue({ name: PAYOUTS_QUEUE })],
  providers: [PayoutScheduleWorker],
})
export class PayoutsWorkerModule {}
