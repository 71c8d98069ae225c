import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../../database/transaction-host';
import type { SqlRows } from '../../outbox/events.service';
import { PAYOUT_LOCK } from '../payouts.repository';

/** A clawback to insert: a bonus of a live or paid payout reversed (LedgerService decides). */
export interface NewClawback {
  id: string;
  memberId: string;
  serviceUserId: string;
  bonusId: string;
  currency: string;
  amountKopecks: number;
  state: string;
  payoutId: string;
}

/** `ledger_entries`, `ledger_balances` and `clawbacks` (LedgerService holds the rules). */
@Injectable()
export class LedgerRepository {
  constructor(private readonly tx: TransactionHost) {}

  /**
   * Appends the entries `entries` selects (the columns of a LedgerEntry in its order) and moves
   * the balances, in one statement (balance rows in key order).
   */
  async appendSelected(tenantId: string, entries: SqlRows): Promise<void> {
    await this.tx.manager.query(
      `WITH e AS (
         INSERT INTO ledger_entries (tenant_id, member_id, currency, kind, available_delta,
                                     in_payout_delta, paid_delta, bonus_id, payout_id, clawback_id)
         SELECT $1, * FROM (${entries.sql}) s
         RETURNING member_id, currency, available_delta, in_payout_delta, paid_delta)
       INSERT INTO ledger_balances AS b
              (tenant_id, member_id, currency, available_kopecks, in_payout_kopecks, paid_kopecks)
       SELECT $1, member_id, currency, sum(available_delta), sum(in_payout_delta), sum(paid_delta)
         FROM e GROUP BY member_id, currency ORDER BY member_id, currency
       ON CONFLICT (tenant_id, member_id, currency) DO UPDATE
         SET available_kopecks = b.available_kopecks + EXCLUDED.available_kopecks,
             in_payout_kopecks = b.in_payout_kopecks + EXCLUDED.in_payout_kopecks,
             paid_kopecks = b.paid_kopecks + EXCLUDED.paid_kopecks`,
      [tenantId, ...entries.params],
    );
  }

  /** The tenant's payout lock, shared: a run in progress holds it exclusively. */
  async lockRunsShared(tenantId: string): Promise<void> {
    await this.tx.manager.query(`SELECT pg_advisory_xact_lock_shared(${PAYOUT_LOCK})`, [tenantId]);
  }

  /** The payouts (id, status) that hold these bonuses, by bonus id. */
  payoutsHolding(
    tenantId: string,
    bonusIds: string[],
  ): Promise<{ item_id: string; payout_id: string; status: string }[]> {
    return this.tx.manager.query(
      `SELECT c.item_id, p.id AS payout_id, p.status FROM payout_claims c
         JOIN payouts p ON p.tenant_id = c.tenant_id AND p.id = c.payout_id
        WHERE c.tenant_id = $1 AND c.item_id = ANY($2::text[])`,
      [tenantId, bonusIds],
    );
  }

  async insertClawbacks(tenantId: string, clawbacks: NewClawback[]): Promise<void> {
    await this.tx.manager.query(
      `INSERT INTO clawbacks (tenant_id, id, member_id, service_user_id, bonus_id, currency,
                              amount_kopecks, state, payout_id)
       SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                                $7::bigint[], $8::text[], $9::text[])`,
      [
        tenantId,
        clawbacks.map((c) => c.id),
        clawbacks.map((c) => c.memberId),
        clawbacks.map((c) => c.serviceUserId),
        clawbacks.map((c) => c.bonusId),
        clawbacks.map((c) => c.currency),
        clawbacks.map((c) => c.amountKopecks),
        clawbacks.map((c) => c.state),
        clawbacks.map((c) => c.payoutId),
      ],
    );
  }

  /** A member's kept balance rows, by currency (one index read). */
  balances(
    tenantId: string,
    memberId: string,
  ): Promise<
    {
      currency: string;
      available_kopecks: string;
      in_payout_kopecks: string;
      paid_kopecks: string;
    }[]
  > {
    return this.tx.select(
      `SELECT currency, available_kopecks, in_payout_kopecks, paid_kopecks FROM ledger_balances
        WHERE tenant_id = $1 AND member_id = $2 ORDER BY currency`,
      [tenantId, memberId],
    );
  }
}
