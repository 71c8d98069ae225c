import { Module } from '@nestjs/common';
import { LedgerService } from './ledger.service';

/**
 * The ledger alone, without the payout runs: the bonuses module writes its entries (approvals,
 * reversals, clawbacks) in its own transactions, and the payouts module builds on both.
 */
@Module({ providers: [LedgerService], exports: [LedgerService] })
export class LedgerModule {}
