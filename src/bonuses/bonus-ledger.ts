/**
 * What the bonuses need of the money ledger (docs/payouts.md), owned here and provided by the
 * payouts feature (`payouts/ledger/ledger.module.ts` binds `BONUS_LEDGER` to its LedgerService):
 * payouts pay bonuses, so payouts imports bonuses and never the other way round. Both calls join
 * the caller's transaction, so a bonus's change and its ledger entries commit together.
 */
export const BONUS_LEDGER = Symbol('BonusLedger');

/** A bonus that just became `approved`. */
export interface ApprovedBonus {
  id: string;
  memberId: string;
  currency: string;
  amountKopecks: number;
}

/** A bonus that just became `reversed`, as the bonuses module saw it. */
export interface ReversedBonus extends ApprovedBonus {
  serviceUserId: string;
  /** Whether it had been approved (or paid) before: only then did it reach the ledger. */
  wasApproved: boolean;
}

export interface BonusLedger {
  /** Approved bonuses enter the members' `available` balance. */
  bonusesApproved(tenantId: string, bonuses: ApprovedBonus[]): Promise<void>;
  /**
   * Reversed bonuses leave it, or are clawed back when paid or held by a pending payout; answers
   * the clawback id of each bonus clawed back.
   */
  bonusesReversed(tenantId: string, bonuses: ReversedBonus[]): Promise<Map<string, string>>;
}
