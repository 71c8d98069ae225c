import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { MembersModule } from '../members/members.module';
import { BonusSweepWorker } from './bonus-sweep.processor';
import { BonusesAdminController } from './bonuses-admin.controller';
import { BONUSES_QUEUE } from './bonuses.queue';
import { BonusesRepository } from './bonuses.repository';
import { BonusesService } from './bonuses.service';

/**
 * Bonuses and their life. Their ledger entries go through `BONUS_LEDGER` (bonus-ledger.ts), which
 * the payouts feature's global LedgerModule provides.
 */
@Module({
  imports: [AuditModule, MembersModule],
  controllers: [BonusesAdminController],
  providers: [BonusesRepository, BonusesService],
  exports: [BonusesService],
})
export class BonusesModule {}

/** Loaded by the worker role only: consumes the bonuses queue and keeps the sweep scheduled. */
@Module({
  imports: [BonusesModule, BullModule.registerQueue({ name: BONUSES_QUEUE })],
  providers: [BonusSweepWorker],
})
export class BonusesWorkerModule {}
