import { Global, Module } from '@nestjs/common';
import { BONUS_LEDGER } from '../../bonuses/bonus-ledger';
import { LedgerRepository } from './ledger.repository';
import { LedgerService } from './ledger.service';

/**
 * The ledger alone, without the payout runs. Global, for it provides the bonuses' port
 * (`BONUS_LEDGER`, owned by bonuses/): the bonuses module writes its entries (approvals, reversals,
 * clawbacks) in its own transactions without importing payouts, which pays bonuses and so sits
 * above them. PayoutsModule imports it once; the payouts module and the embed reads inject
 * LedgerService itself.
 */
@Global()
@Module({
  providers: [
    LedgerService,
    LedgerRepository,
    { provide: BONUS_LEDGER, useExisting: LedgerService },
  ],
  exports: [LedgerService, BONUS_LEDGER],
})
export class LedgerModule {}
