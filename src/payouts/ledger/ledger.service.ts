import { Injectable } from '@nestjs/common';
import type { ApprovedBonus, BonusLedger, ReversedBonus } from '../../bonuses/bonus-ledger';
import { newUlid } from '../../common/ids';
import { TransactionHost } from '../../database/transaction-host';
import { EventsService, type SqlRows } from '../../outbox/events.service';
import { CLAWBACK_PREFIX } from '../payouts.repository';
import { LedgerRepository } from './ledger.repository';

/** What a ledger entry records; docs/payouts.md §1 lists each with its deltas. */
export type LedgerKind =
  | 'bonus_approved'
  | 'bonus_reversed'
  | 'clawback'
  | 'payout_created'
  | 'payout_paid'
  | 'payout_failed'
  | 'payout_canceled';

export interface LedgerEntry {
  memberId: string;
  currency: string;
  kind: LedgerKind;
  available: number;
  inPayout: number;
  paid: number;
  bonusId?: string | null;
  payoutId?: string | null;
  clawbackId?: string | null;
}

export interface Balance {
  currency: string;
  availableKopecks: number;
  inPayoutKopecks: number;
  paidKopecks: number;
}

/**
 * The append-only ledger of docs/payouts.md: every movement of a member's money is a row of
 * `ledger_entries` (deltas of available / in payout / paid), and `ledger_balances` is upserted by
 * the same statement, so balances are exact and read in one row. Always called inside the
 * caller's transaction; nothing here is ever updated or deleted.
 */
@Injectable()
export class LedgerService implements BonusLedger {
  constructor(
    private readonly tx: TransactionHost,
    private readonly repo: LedgerRepository,
    private readonly events: EventsService,
  ) {}

  /** Appends entries and moves the balances, in one statement (balance rows in key order). */
  async append(tenantId: string, entries: LedgerEntry[]): Promise<void> {
    if (!entries.length) return;
    await this.appendSelected(tenantId, {
      sql: `SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[],
                                 $7::bigint[], $8::text[], $9::text[], $10::text[])`,
      params: [
        entries.map((e) => e.memberId),
        entries.map((e) => e.currency),
        entries.map((e) => e.kind),
        entries.map((e) => e.available),
        entries.map((e) => e.inPayout),
        entries.map((e) => e.paid),
        entries.map((e) => e.bonusId ?? null),
        entries.map((e) => e.payoutId ?? null),
        entries.map((e) => e.clawbackId ?? null),
      ],
    });
  }

  /**
   * Entries the database selects (a run's 100,000 `payout_created`): `entries` answers the
   * columns of a `LedgerEntry` in its order (member_id, currency, kind, available, in_payout,
   * paid, bonus_id, payout_id, clawback_id). Same single statement as `append`.
   */
  async appendSelected(tenantId: string, entries: SqlRows): Promise<void> {
    if (!this.tx.inTransaction) throw new Error('Ledger entries are written in a transaction');
    await this.repo.appendSelected(tenantId, entries);
  }

  /** Approved bonuses enter `available`. */
  bonusesApproved(tenantId: string, bonuses: ApprovedBonus[]): Promise<void> {
    return this.append(
      tenantId,
      bonuses.map((b) => ({
        memberId: b.memberId,
        currency: b.currency,
        kind: 'bonus_approved',
        available: b.amountKopecks,
        inPayout: 0,
        paid: 0,
        bonusId: b.id,
      })),
    );
  }

  /**
   * Bonuses just reversed. One in no live payout and never paid leaves `available` (an entry
   * `bonus_reversed`); one paid, or held by a pending payout, is clawed back: a `clw_…` of minus
   * its amount, `held` until that payout is paid (then `open`, netted by the next payouts; if the
   * payout fails instead, the bonus's returned amount cancels it). Answers the clawed-back ids.
   */
  async bonusesReversed(tenantId: string, bonuses: ReversedBonus[]): Promise<Map<string, string>> {
    const clawedBack = new Map<string, string>();
    const approved = bonuses.filter((b) => b.wasApproved);
    if (!approved.length) return clawedBack;
    // A run in progress holds this lock exclusively: wait for it, then see its payouts.
    await this.repo.lockRunsShared(tenantId);
    const holders = await this.repo.payoutsHolding(
      tenantId,
      approved.map((b) => b.id),
    );
    const holder = new Map(holders.map((h) => [h.item_id, h]));
    const entries: LedgerEntry[] = [];
    const clawbacks: { id: string; bonus: ReversedBonus; state: string; payoutId: string }[] = [];
    for (const b of approved) {
      const h = holder.get(b.id);
      if (!h) {
        entries.push({
          memberId: b.memberId,
          currency: b.currency,
          kind: 'bonus_reversed',
          available: -b.amountKopecks,
          inPayout: 0,
          paid: 0,
          bonusId: b.id,
        });
        continue;
      }
      const id = `${CLAWBACK_PREFIX}${newUlid()}`;
      clawbacks.push({
        id,
        bonus: b,
        state: h.status === 'paid' ? 'open' : 'held',
        payoutId: h.payout_id,
      });
      clawedBack.set(b.id, id);
      entries.push({
        memberId: b.memberId,
        currency: b.currency,
        kind: 'clawback',
        available: -b.amountKopecks,
        inPayout: 0,
        paid: 0,
        bonusId: b.id,
        clawbackId: id,
      });
    }
    if (clawbacks.length) {
      await this.repo.insertClawbacks(
        tenantId,
        clawbacks.map((c) => ({
          id: c.id,
          memberId: c.bonus.memberId,
          serviceUserId: c.bonus.serviceUserId,
          bonusId: c.bonus.id,
          currency: c.bonus.currency,
          amountKopecks: -c.bonus.amountKopecks,
          state: c.state,
          payoutId: c.payoutId,
        })),
      );
      await this.events.emitMany(
        tenantId,
        clawbacks.map((c) => ({
          type: 'clawback.created' as const,
          payload: {
            clawback_id: c.id,
            user_id: c.bonus.serviceUserId,
            bonus_id: c.bonus.id,
            amount_kopecks: -c.bonus.amountKopecks,
          },
        })),
      );
    }
    await this.append(tenantId, entries);
    return clawedBack;
  }

  /** A member's balances per currency, from the kept row (one index read). */
  async balances(tenantId: string, memberId: string): Promise<Balance[]> {
    const rows = await this.repo.balances(tenantId, memberId);
    return rows.map((r) => ({
      currency: r.currency,
      availableKopecks: Number(r.available_kopecks),
      inPayoutKopecks: Number(r.in_payout_kopecks),
      paidKopecks: Number(r.paid_kopecks),
    }));
  }
}
