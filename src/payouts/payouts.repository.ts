import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { reserveUlids, ulidSql } from '../common/ids';
import { EntityRows, pageTotal } from '../database/entity-rows';
import { PersonalData, type ErasedMember } from '../common/privacy/personal-data.decorator';
import { redactColumns } from '../database/redaction';
import { TransactionHost } from '../database/transaction-host';
import { PayoutEntity, PayoutRunEntity, type PayoutStatus } from './payout.entity';

/** The tenant's payout lock: runs take it exclusive, reversals shared (LedgerService). */
export const PAYOUT_LOCK = `hashtextextended('payout-run:' || $1, 0)`;

/** A run's sort memory (SET LOCAL, this transaction only): 777,377 items sort in ~120 MB. */
const RUN_WORK_MEM = '256MB';

/** Clawback ids start so (LedgerService mints them); every other payout item is a bonus. */
export const CLAWBACK_PREFIX = 'clw_';

/**
 * What a run would pay one member in one currency (parameters tenant, member, currency, approved
 * before; exported for bench/embed.bench.ts), read without their history: the ledger's
 * `available` (approved bonuses in no payout plus clawbacks not yet netted, docs/payouts.md §1)
 * less what a run could not take yet: held clawbacks (payable once their payout is paid) and
 * bonuses approved after the cutoff ($4, the run day less `hold_days`), which only the partial
 * index `ix_bonuses_member_approved` reads, from the cutoff on. Equal to `collectPayable`'s sum
 * for the member (test/e2e/widget/widgets-balance.browser.e2e-spec.ts runs a real run to compare).
 */
export const MEMBER_PAYABLE_SQL = `
  SELECT (coalesce((SELECT l.available_kopecks FROM ledger_balances l
                     WHERE l.tenant_id = $1 AND l.member_id = $2 AND l.currency = $3), 0)
          - (SELECT coalesce(sum(k.amount_kopecks), 0) FROM clawbacks k
              WHERE k.tenant_id = $1 AND k.member_id = $2 AND k.currency = $3 AND k.state = 'held')
          - (SELECT coalesce(sum(b.amount_kopecks), 0) FROM bonuses b
              WHERE b.tenant_id = $1 AND b.member_id = $2 AND b.status = 'approved'
                AND b.currency = $3 AND b.approved_at > $4
                AND NOT EXISTS (SELECT 1 FROM payout_claims c
                                 WHERE c.tenant_id = $1 AND c.item_id = b.id)))::text AS s`;

export interface PayoutItemRow {
  item_id: string;
  kind: 'bonus' | 'clawback';
  amount_kopecks: number;
}

export interface CsvRow {
  payout_id: string;
  /** The member's `mbr_…`, which the sealed details are bound to. */
  member_id: string;
  user_id: string;
  external_id: string;
  full_name: string | null;
  email: string | null;
  currency: string;
  amount_kopecks: number;
  status: PayoutStatus;
  details_method: string | null;
  details_sealed: string | null;
}

/**
 * Payouts in constant SQL. A run holds its tenant's payout lock (a transaction-scoped advisory
 * lock, exclusive) from before it reads until it commits; a reversal takes the same lock shared
 * before it looks for the payout holding its bonus (LedgerService), so a refund racing a run
 * either commits first (the run no longer sees the bonus approved) or waits and then finds the
 * bonus in the new payout (a clawback). The payable items are summed into a transaction-local
 * table, so the sums and the items written are the same set; a payout keeps its items on its own
 * row, and the primary key of `payout_claims` (one row per item of a pending or paid payout)
 * makes a second live claim of any item fail, whatever the locks.
 */
@Injectable()
export class PayoutsRepository {
  private readonly rows: EntityRows<PayoutEntity>;
  private readonly runRows: EntityRows<PayoutRunEntity>;

  constructor(
    private readonly tx: TransactionHost,
    dataSource: DataSource,
  ) {
    this.rows = new EntityRows(dataSource, PayoutEntity);
    this.runRows = new EntityRows(dataSource, PayoutRunEntity);
  }

  private query<T = Record<string, unknown>>(sql: string, params: unknown[]): Promise<T> {
    return this.tx.manager.query(sql, params);
  }

  /** Serialises runs of one tenant (transaction-scoped: safe behind a transaction pooler). */
  async lockTenantRuns(tenantId: string): Promise<void> {
    await this.query(`SELECT pg_advisory_xact_lock(${PAYOUT_LOCK})`, [tenantId]);
  }

  /** Inserts the run row; false when the schedule's run of that day already exists. */
  async insertRun(run: PayoutRunEntity): Promise<boolean> {
    const rows: unknown[] = await this.query(
      `INSERT INTO payout_runs (tenant_id, id, trigger, schedule_key, created_at)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING id`,
      [run.tenantId, run.id, run.trigger, run.scheduleKey, run.createdAt],
    );
    return rows.length === 1;
  }

  async finishRun(run: PayoutRunEntity): Promise<void> {
    await this.query(
      `UPDATE payout_runs SET payouts_count = $3, total_kopecks = $4, currency_totals = $5
        WHERE tenant_id = $1 AND id = $2`,
      [
        run.tenantId,
        run.id,
        run.payoutsCount,
        run.totalKopecks,
        JSON.stringify(run.currencyTotals),
      ],
    );
  }

  /**
   * Sums the run's payable items per active member and currency reaching the minimum (and, with
   * `requireDetails`, only of members with payout details: the others' items stay unclaimed, so
   * their balance stays available), numbered
   * 1 … n in member and currency order, each with its payout id and its items (ids and amounts,
   * in the order read: `items` sorts them), into a transaction-local table; answers n. The
   * payouts, their claims and every row derived from them are written from this table, so they
   * are the same set whatever commits meanwhile. The payout ids are made here, in SQL: the n-th
   * is the (n - 1)-th of a block of ULIDs (`reserveUlids`), so they are in the order of n and no
   * id is sent from Node.
   */
  async collectPayable(
    tenantId: string,
    approvedBefore: Date,
    minimumKopecks: number,
    requireDetails = false,
  ): Promise<number> {
    const ids = reserveUlids();
    // The run sorts every payable item once: in memory, not in temporary files.
    await this.query(`SET LOCAL work_mem = '${RUN_WORK_MEM}'`, []);
    await this.query(
      `CREATE TEMP TABLE payout_run_sums ON COMMIT DROP AS
       SELECT n, 'pay_' || ${ulidSql('$4::text', '$5::bigint', '$6::bigint', 'n - 1')} AS id,
              member_id, service_user_id, currency, amount, item_ids, item_amounts
         FROM (SELECT row_number() OVER (ORDER BY s.member_id, s.currency) AS n, s.member_id,
                      m.service_user_id, s.currency, s.amount, s.item_ids, s.item_amounts
                 FROM (SELECT member_id, currency, sum(amount_kopecks) AS amount,
                              array_agg(item_id) AS item_ids, array_agg(amount_kopecks) AS item_amounts
                         FROM (SELECT b.member_id, b.currency, b.id AS item_id, b.amount_kopecks
                                 FROM bonuses b
                                WHERE b.tenant_id = $1 AND b.status = 'approved' AND b.approved_at <= $2
                                  AND NOT EXISTS (SELECT 1 FROM payout_claims c
                                                   WHERE c.tenant_id = $1 AND c.item_id = b.id)
                               UNION ALL
                               SELECT k.member_id, k.currency, k.id, k.amount_kopecks FROM clawbacks k
                                WHERE k.tenant_id = $1 AND k.state = 'open'
                                  AND NOT EXISTS (SELECT 1 FROM payout_claims c
                                                   WHERE c.tenant_id = $1 AND c.item_id = k.id)) i
                        GROUP BY member_id, currency HAVING sum(amount_kopecks) >= $3) s
                 JOIN members m ON m.tenant_id = $1 AND m.id = s.member_id
                WHERE m.is_active
                  AND (NOT $7::boolean OR EXISTS (SELECT 1 FROM payout_details d
                                                   WHERE d.tenant_id = $1 AND d.member_id = s.member_id))) r`,
      [tenantId, approvedBefore, minimumKopecks, ids.time, ids.hi, ids.lo, requireDetails],
    );
    const [{ n }]: { n: number }[] = await this.query(
      `SELECT count(*)::int AS n FROM payout_run_sums`,
      [],
    );
    return n;
  }

  /**
   * What a run would pay one member in one currency: `collectPayable`'s items of that member
   * (approved bonuses approved by `approvedBefore` and open clawbacks, none claimed), summed; from
   * the kept balance (MEMBER_PAYABLE_SQL), so a partner with a long history costs no more.
   */
  async payableOf(
    tenantId: string,
    memberId: string,
    currency: string,
    approvedBefore: Date,
  ): Promise<number> {
    const [{ s }]: { s: string }[] = await this.tx.select(MEMBER_PAYABLE_SQL, [
      tenantId,
      memberId,
      currency,
      approvedBefore,
    ]);
    return Number(s);
  }

  /**
   * The collected payouts with their items, and a claim per item, each one `INSERT … SELECT` in
   * key order; answers the totals per currency. The new payouts stay readable as `newPayouts()`
   * until the transaction ends.
   */
  async insertRunPayouts(run: PayoutRunEntity): Promise<{ currency: string; total: string }[]> {
    // Each payout takes a copy of its member's payout details (sealed, bound to the tenant and
    // member, so the copy opens as the original does): the run's file pays where they asked then.
    await this.query(
      `INSERT INTO payouts (tenant_id, id, run_id, member_id, service_user_id, currency,
                            amount_kopecks, status, created_at, item_ids, item_amounts,
                            details_method, details_sealed)
       SELECT $1, s.id, $2, s.member_id, s.service_user_id, s.currency, s.amount, 'pending', $3,
              s.item_ids, s.item_amounts, d.method, d.sealed
         FROM payout_run_sums s
         LEFT JOIN payout_details d ON d.tenant_id = $1 AND d.member_id = s.member_id
        ORDER BY s.n`,
      [run.tenantId, run.id, run.createdAt],
    );
    // In item order: the primary key grows at its right edge instead of splitting pages.
    await this.query(
      `INSERT INTO payout_claims (tenant_id, item_id, payout_id)
       SELECT $1, i.item_id, s.id
         FROM payout_run_sums s, unnest(s.item_ids) AS i(item_id)
        ORDER BY i.item_id`,
      [run.tenantId],
    );
    return this.query(
      `SELECT currency, sum(amount)::text AS total FROM payout_run_sums
        GROUP BY currency ORDER BY currency`,
      [],
    );
  }

  /**
   * The payouts `insertRunPayouts` just wrote, as SQL selecting `id`, `n` (1 … n, in id order),
   * `member_id`, `service_user_id`, `currency`, `amount` (for set-wise ledger entries and events).
   */
  newPayouts(): string {
    return `SELECT id, n, member_id, service_user_id, currency, amount FROM payout_run_sums`;
  }

  async find(tenantId: string, payoutId: string): Promise<PayoutEntity | null> {
    const rows: Record<string, unknown>[] = await this.tx.select(
      `SELECT ${this.rows.select('p')} FROM payouts p WHERE p.tenant_id = $1 AND p.id = $2`,
      [tenantId, payoutId],
    );
    return rows.length ? this.rows.from(rows[0]) : null;
  }

  async findRun(tenantId: string, runId: string): Promise<PayoutRunEntity | null> {
    const rows: Record<string, unknown>[] = await this.tx.select(
      `SELECT ${this.runRows.select('r')} FROM payout_runs r WHERE r.tenant_id = $1 AND r.id = $2`,
      [tenantId, runId],
    );
    return rows.length ? this.runRows.from(rows[0]) : null;
  }

  /** The tenant's runs, newest first (run ids are ULIDs: the primary key orders them). */
  async listRuns(
    tenantId: string,
    offset: number,
    limit: number,
  ): Promise<[PayoutRunEntity[], number]> {
    const rows: Record<string, unknown>[] = await this.tx.select(
      `SELECT ${this.runRows.select('r')} FROM payout_runs r WHERE r.tenant_id = $1
        ORDER BY r.id DESC OFFSET ${offset} LIMIT ${limit}`,
      [tenantId],
    );
    const total = await pageTotal(rows.length, offset, limit, () =>
      this.tx.select(`SELECT count(*)::int AS count FROM payout_runs WHERE tenant_id = $1`, [
        tenantId,
      ]),
    );
    return [this.runRows.fromAll(rows), total];
  }

  /** How many payouts of each run are in each status now, keyed by run id. */
  async runStatusCounts(
    tenantId: string,
    runIds: string[],
  ): Promise<Map<string, Partial<Record<PayoutStatus, number>>>> {
    const rows: { run_id: string; status: PayoutStatus; n: number }[] = await this.tx.select(
      `SELECT run_id, status, count(*)::int AS n FROM payouts
        WHERE tenant_id = $1 AND run_id = ANY($2::text[]) GROUP BY run_id, status`,
      [tenantId, runIds],
    );
    const byRun = new Map<string, Partial<Record<PayoutStatus, number>>>();
    for (const r of rows) byRun.set(r.run_id, { ...byRun.get(r.run_id), [r.status]: r.n });
    return byRun;
  }

  /** Items of payouts (kept on the payout row), keyed by payout id, in item order. */
  async items(tenantId: string, payoutIds: string[]): Promise<Map<string, PayoutItemRow[]>> {
    const rows: { payout_id: string; item_id: string; amount_kopecks: string }[] =
      await this.tx.select(
        `SELECT p.id AS payout_id, i.item_id, i.amount::text AS amount_kopecks
           FROM payouts p, unnest(p.item_ids, p.item_amounts) AS i(item_id, amount)
          WHERE p.tenant_id = $1 AND p.id = ANY($2::text[]) ORDER BY p.id, i.item_id`,
        [tenantId, payoutIds],
      );
    const byPayout = new Map<string, PayoutItemRow[]>();
    for (const r of rows) {
      const list = byPayout.get(r.payout_id) ?? [];
      list.push({
        item_id: r.item_id,
        kind: r.item_id.startsWith(CLAWBACK_PREFIX) ? 'clawback' : 'bonus',
        amount_kopecks: Number(r.amount_kopecks),
      });
      byPayout.set(r.payout_id, list);
    }
    return byPayout;
  }

  /** pending → `to`, once: the status is part of the WHERE clause. */
  async transition(
    tenantId: string,
    payoutId: string,
    to: Exclude<PayoutStatus, 'pending'>,
    fields: { reference?: string; failureReason?: string },
  ): Promise<PayoutEntity | undefined> {
    const [rows]: [Record<string, unknown>[], number] = await this.query(
      `UPDATE payouts SET status = $3, settled_at = now(),
              paid_at = CASE WHEN $3 = 'paid' THEN now() ELSE NULL END,
              reference = COALESCE($4, reference), failure_reason = $5
        WHERE tenant_id = $1 AND id = $2 AND status = 'pending' RETURNING *`,
      [tenantId, payoutId, to, fields.reference ?? null, fields.failureReason ?? null],
    );
    return rows.length ? this.rows.from(rows[0]) : undefined;
  }

  /**
   * A failed or canceled payout's items are free again (its claims go); clawbacks of its bonuses
   * are void.
   */
  async release(tenantId: string, payoutId: string): Promise<void> {
    await this.query(
      `DELETE FROM payout_claims
        WHERE tenant_id = $1 AND payout_id = $2
          AND item_id = ANY (SELECT unnest(item_ids) FROM payouts
                              WHERE tenant_id = $1 AND id = $2)`,
      [tenantId, payoutId],
    );
    await this.query(
      `UPDATE clawbacks SET state = 'void' WHERE tenant_id = $1 AND payout_id = $2 AND state = 'held'`,
      [tenantId, payoutId],
    );
  }

  /** A paid payout's reversed bonuses were paid after all: their clawbacks become payable. */
  async openHeldClawbacks(tenantId: string, payoutId: string): Promise<void> {
    await this.query(
      `UPDATE clawbacks SET state = 'open' WHERE tenant_id = $1 AND payout_id = $2 AND state = 'held'`,
      [tenantId, payoutId],
    );
  }

  async list(
    tenantId: string,
    filter: { status?: PayoutStatus; runId?: string; memberId?: string },
    offset: number,
    limit: number,
  ): Promise<[PayoutEntity[], number]> {
    const where = ['p.tenant_id = $1'];
    const params: unknown[] = [tenantId];
    if (filter.status) where.push(`p.status = $${params.push(filter.status)}`);
    if (filter.runId) where.push(`p.run_id = $${params.push(filter.runId)}`);
    if (filter.memberId) where.push(`p.member_id = $${params.push(filter.memberId)}`);
    const rows: Record<string, unknown>[] = await this.tx.select(
      `SELECT ${this.rows.select('p')} FROM payouts p WHERE ${where.join(' AND ')}
        ORDER BY p.created_at DESC, p.id DESC OFFSET ${offset} LIMIT ${limit}`,
      params,
    );
    const total = await pageTotal(rows.length, offset, limit, () =>
      this.tx.select(
        `SELECT count(*)::int AS count FROM payouts p WHERE ${where.join(' AND ')}`,
        params,
      ),
    );
    return [this.rows.fromAll(rows), total];
  }

  /** One row per payout of the run with the member's details, for the mass-payout file. */
  async csvRows(tenantId: string, runId: string): Promise<CsvRow[]> {
    const rows: (CsvRow & { amount_kopecks: string })[] = await this.tx.select(
      `SELECT p.id AS payout_id, p.member_id, p.service_user_id AS user_id, m.external_id,
              m.full_name, m.email, p.currency, p.amount_kopecks::text AS amount_kopecks, p.status,
              p.details_method, p.details_sealed
         FROM payouts p JOIN members m ON m.tenant_id = p.tenant_id AND m.id = p.member_id
        WHERE p.tenant_id = $1 AND p.run_id = $2 ORDER BY p.id`,
      [tenantId, runId],
    );
    return rows.map((r) => ({ ...r, amount_kopecks: Number(r.amount_kopecks) }));
  }

  /** The scheduled tenants: id and settings of every tenant whose schedule is not manual. */
  scheduledTenants(): Promise<{ id: string; payouts: Record<string, unknown> }[]> {
    return this.tx.select(
      `SELECT id, payouts FROM tenants WHERE payouts ->> 'schedule' <> 'manual' ORDER BY id`,
      [],
    );
  }

  /**
   * docs/privacy.md: the copies of the member's payout details on their payouts, dropped (the
   * payouts, their amounts and states stay: the ledger still adds up).
   */
  @PersonalData('member', 'payouts')
  async erasePersonal(member: ErasedMember): Promise<string[]> {
    await this.tx.manager.query(
      `UPDATE payouts SET details_sealed = NULL
        WHERE tenant_id = $1 AND member_id = $2 AND details_sealed IS NOT NULL`,
      [member.tenantId, member.memberId],
    );
    return [];
  }

  /** Erased values inside payouts' free texts (a reference or failure reason naming someone). */
  @PersonalData('redact', 'payouts')
  redactPersonal(tenantId: string, values: string[]): Promise<number> {
    return redactColumns(this.tx.manager, tenantId, values, {
      table: 'payouts',
      key: ['tenant_id', 'id'],
      columns: { reference: 'text', failure_reason: 'text' },
    });
  }
}
