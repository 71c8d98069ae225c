import { Injectable } from '@nestjs/common';
import { And, DataSource, In, LessThan, MoreThanOrEqual, Raw } from 'typeorm';
import { EntityRows, pageTotal } from '../database/entity-rows';
import { PersonalData } from '../common/privacy/personal-data.decorator';
import { redactColumns } from '../database/redaction';
import { TransactionHost } from '../database/transaction-host';
import { BonusEntity, type BonusSourceType, type BonusStatus } from './bonus.entity';
import { MemberBalanceEntity } from './member-balance.entity';

/**
 * Every state change is one conditional UPDATE … RETURNING: the row's current status is part of
 * the WHERE clause, so concurrent clicks, sweeps and reversals settle without explicit locks and
 * each transition happens (and is reported to the caller) exactly once.
 */
@Injectable()
export class BonusesRepository {
  private readonly rows: EntityRows<BonusEntity>;
  private readonly balanceRows: EntityRows<MemberBalanceEntity>;

  constructor(
    private readonly tx: TransactionHost,
    dataSource: DataSource,
  ) {
    this.rows = new EntityRows(dataSource, BonusEntity);
    this.balanceRows = new EntityRows(dataSource, MemberBalanceEntity);
  }

  private get repo() {
    return this.tx.manager.getRepository(BonusEntity);
  }

  async insert(bonuses: BonusEntity[]): Promise<void> {
    if (!bonuses.length) return;
    const { sql, params } = this.rows.insert(bonuses);
    await this.tx.manager.query(sql, params);
  }

  find(tenantId: string, bonusId: string): Promise<BonusEntity | null> {
    return this.repo.findOneBy({ tenantId, id: bonusId });
  }

  listBySource(
    tenantId: string,
    sourceType: BonusSourceType,
    sourceId: string,
  ): Promise<BonusEntity[]> {
    return this.repo.find({ where: { tenantId, sourceType, sourceId }, order: { id: 'ASC' } });
  }

  /** `from` inclusive, `to` exclusive: `created_at >= from AND created_at < to`, either alone. */
  list(
    tenantId: string,
    filter: {
      status?: BonusStatus;
      review?: 'flagged' | 'cleared';
      serviceUserId?: string;
      from?: Date;
      to?: Date;
    },
    offset: number,
    limit: number,
  ): Promise<[BonusEntity[], number]> {
    const bounds = [
      ...(filter.from ? [MoreThanOrEqual(filter.from)] : []),
      ...(filter.to ? [LessThan(filter.to)] : []),
    ];
    const created = bounds.length > 1 ? And(...bounds) : bounds[0];
    return this.repo.findAndCount({
      where: {
        tenantId,
        ...(filter.status ? { status: filter.status } : {}),
        ...(filter.review ? { review: Raw((r) => `${r} ->> 'status' = :review`, filter) } : {}),
        ...(filter.serviceUserId ? { serviceUserId: filter.serviceUserId } : {}),
        ...(created ? { createdAt: created } : {}),
      },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: offset,
      take: limit,
    });
  }

  /** A member's bonuses, newest first (the widgets' transactions). */
  /** A page of a member's bonuses, newest first (ix_bonuses_member read backwards), and the total. */
  async forMember(
    tenantId: string,
    memberId: string,
    offset: number,
    limit: number,
  ): Promise<[BonusEntity[], number]> {
    const rows = await this.recentForMember(tenantId, memberId, limit, offset);
    const total = await pageTotal(rows.length, offset, limit, () =>
      this.tx.select(
        `SELECT count(*)::int AS count FROM bonuses WHERE tenant_id = $1 AND member_id = $2`,
        [tenantId, memberId],
      ),
    );
    return [rows, total];
  }

  async recentForMember(
    tenantId: string,
    memberId: string,
    limit: number,
    offset = 0,
  ): Promise<BonusEntity[]> {
    const rows: Record<string, unknown>[] = await this.tx.select(
      `SELECT ${this.rows.select('b')} FROM bonuses b
        WHERE b.tenant_id = $1 AND b.member_id = $2
        ORDER BY b.created_at DESC, b.id DESC OFFSET $3 LIMIT $4`,
      [tenantId, memberId, offset, limit],
    );
    return this.rows.fromAll(rows);
  }

  /** Count and sum per status and currency, for the staff approval queue. */
  async totalsByStatus(
    tenantId: string,
  ): Promise<{ status: BonusStatus; currency: string; count: number; amountKopecks: number }[]> {
    const rows: { status: BonusStatus; currency: string; count: number; amount: string }[] =
      await this.tx.select(
        `SELECT status, currency, count(*)::int AS count, sum(amount_kopecks)::text AS amount
           FROM bonuses WHERE tenant_id = $1 GROUP BY status, currency ORDER BY status, currency`,
        [tenantId],
      );
    return rows.map((r) => ({
      status: r.status,
      currency: r.currency,
      count: r.count,
      amountKopecks: Number(r.amount),
    }));
  }

  /** The member's balances per currency, kept by the bonus trigger. */
  async balances(tenantId: string, memberId: string): Promise<MemberBalanceEntity[]> {
    const rows: Record<string, unknown>[] = await this.tx.select(
      `SELECT ${this.balanceRows.select('b')} FROM member_balances b
        WHERE b.tenant_id = $1 AND b.member_id = $2 ORDER BY b.currency`,
      [tenantId, memberId],
    );
    return this.balanceRows.fromAll(rows);
  }

  /** A flagged bonus approved by staff has its review `cleared` (docs/fraud.md). */
  approve(tenantId: string, bonusId: string): Promise<BonusEntity | undefined> {
    return this.transition(
      `status = 'approved', approved_at = now(),
       review = CASE WHEN review IS NULL THEN NULL ELSE jsonb_set(review, '{status}', '"cleared"') END`,
      `tenant_id = $1 AND id = $2 AND status = 'pending'`,
      [tenantId, bonusId],
    ).then((rows) => rows[0]);
  }

  reject(tenantId: string, bonusId: string, reason: string): Promise<BonusEntity | undefined> {
    return this.transition(
      `status = 'rejected', rejected_at = now(), reason = $3`,
      `tenant_id = $1 AND id = $2 AND status = 'pending'`,
      [tenantId, bonusId, reason],
    ).then((rows) => rows[0]);
  }

  rejectPendingBySource(
    tenantId: string,
    sourceType: BonusSourceType,
    sourceId: string,
    reason: string,
  ): Promise<BonusEntity[]> {
    return this.transition(
      `status = 'rejected', rejected_at = now(), reason = $4`,
      `tenant_id = $1 AND source_type = $2 AND source_id = $3 AND status = 'pending'`,
      [tenantId, sourceType, sourceId, reason],
    );
  }

  /** A banned partner's pending bonuses, every one (docs/fraud.md). */
  rejectPendingForMember(
    tenantId: string,
    memberId: string,
    reason: string,
  ): Promise<BonusEntity[]> {
    return this.transition(
      `status = 'rejected', rejected_at = now(), reason = $3`,
      `tenant_id = $1 AND member_id = $2 AND status = 'pending'`,
      [tenantId, memberId, reason],
    );
  }

  /** Pending, approved and paid bonuses of the source; `approved_at` tells which were approved. */
  reverseBySource(
    tenantId: string,
    sourceType: BonusSourceType,
    sourceId: string,
  ): Promise<BonusEntity[]> {
    return this.transition(
      `status = 'reversed', reversed_at = now()`,
      `tenant_id = $1 AND source_type = $2 AND source_id = $3
       AND status IN ('pending', 'approved', 'paid')`,
      [tenantId, sourceType, sourceId],
    );
  }

  /**
   * Locks bonuses in id order (FOR UPDATE) before a payout's own row: a payout transition and a
   * reversal then take their locks in the same order (bonus, then payout) and never deadlock.
   */
  async lockInOrder(tenantId: string, bonusIds: string[]): Promise<void> {
    if (!bonusIds.length) return;
    await this.tx.manager.query(
      `SELECT id FROM bonuses WHERE tenant_id = $1 AND id = ANY($2::text[]) ORDER BY id FOR UPDATE`,
      [tenantId, bonusIds],
    );
  }

  /** approved → paid for the bonuses of a payout marked paid (reversed ones stay reversed). */
  markPaid(tenantId: string, bonusIds: string[], paidAt: Date): Promise<BonusEntity[]> {
    if (!bonusIds.length) return Promise.resolve([]);
    return this.transition(
      `status = 'paid', paid_at = $3`,
      `tenant_id = $1 AND id = ANY($2::text[]) AND status = 'approved'`,
      [tenantId, bonusIds, paidAt],
    );
  }

  /** The tenants with bonuses the sweep may approve now (read without locks, ix_bonuses_due). */
  async tenantsWithDue(): Promise<string[]> {
    const rows: { tenant_id: string }[] = await this.tx.manager.query(
      `SELECT DISTINCT tenant_id FROM bonuses
        WHERE status = 'pending' AND review IS NULL AND due_at <= now()`,
    );
    return rows.map((row) => row.tenant_id);
  }

  /**
   * Approves up to `limit` of the tenant's pending bonuses whose grace period has passed, never a
   * flagged one (a pending bonus with a review; docs/fraud.md). One tenant per statement, so on a
   * database sharded by tenant it runs on one shard (docs/operations.md). SKIP LOCKED lets several sweeps
   * share the work; the status condition makes each approval once.
   */
  async approveDue(tenantId: string, limit: number): Promise<BonusEntity[]> {
    const [rows]: [Record<string, unknown>[], number] = await this.tx.manager.query(
      `WITH due AS (
         SELECT tenant_id, id FROM bonuses
          WHERE tenant_id = $2 AND status = 'pending' AND review IS NULL AND due_at <= now()
          ORDER BY due_at
          LIMIT $1
          FOR UPDATE SKIP LOCKED)
       UPDATE bonuses b SET status = 'approved', approved_at = now()
         FROM due
        WHERE b.tenant_id = due.tenant_id AND b.id = due.id AND b.status = 'pending'
          AND b.review IS NULL
       RETURNING b.*`,
      [limit, tenantId],
    );
    return this.rows.fromAll(rows);
  }

  /** Tenant-scoped lookup of several bonuses at once. */
  findMany(tenantId: string, bonusIds: string[]): Promise<BonusEntity[]> {
    return this.repo.findBy({ tenantId, id: In(bonusIds) });
  }

  private async transition(set: string, where: string, params: unknown[]): Promise<BonusEntity[]> {
    // TypeORM answers an UPDATE with [rows, affected].
    const [rows]: [Record<string, unknown>[], number] = await this.tx.manager.query(
      `UPDATE bonuses SET ${set} WHERE ${where} RETURNING *`,
      params,
    );
    return this.rows.fromAll(rows);
  }

  /** docs/privacy.md: erased values copied into this table's texts, replaced. */
  @PersonalData('redact', 'bonuses')
  redactPersonal(tenantId: string, values: string[]): Promise<number> {
    return redactColumns(this.tx.manager, tenantId, values, {
      table: 'bonuses',
      key: ['tenant_id', 'id'],
      columns: { review: 'jsonb', explanation: 'text', reason: 'text' },
    });
  }
}
