import { Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { insertable } from '../database/columns';
import { EntityRows, pageTotal } from '../database/entity-rows';
import { TransactionHost } from '../database/transaction-host';
import { LeadEntity, type LeadStatus } from './lead.entity';

@Injectable()
export class LeadsRepository {
  private readonly rows: EntityRows<LeadEntity>;

  constructor(
    private readonly tx: TransactionHost,
    dataSource: DataSource,
  ) {
    this.rows = new EntityRows(dataSource, LeadEntity);
  }

  private get repo() {
    return this.tx.manager.getRepository(LeadEntity);
  }

  async insert(lead: LeadEntity): Promise<void> {
    await this.repo.insert(insertable(lead));
  }

  find(tenantId: string, leadId: string): Promise<LeadEntity | null> {
    return this.repo.findOneBy({ tenantId, id: leadId });
  }

  /** A referrer's leads, newest first, optionally of one status. */
  /**
   * A page of a referrer's leads, newest first (ix_leads_referrer read backwards), with the total:
   * `knownTotal` when the caller has it (members.leads_count for all statuses), else counted.
   */
  async forReferrer(
    tenantId: string,
    referrerMemberId: string,
    status: LeadStatus | undefined,
    offset: number,
    limit: number,
    knownTotal?: number,
  ): Promise<[LeadEntity[], number]> {
    const rows = await this.pageOf(tenantId, referrerMemberId, status, offset, limit);
    const total =
      knownTotal ??
      (await pageTotal(rows.length, offset, limit, () =>
        this.tx.select(
          `SELECT count(*)::int AS count FROM leads
            WHERE tenant_id = $1 AND referrer_member_id = $2 AND ($3::text IS NULL OR status = $3)`,
          [tenantId, referrerMemberId, status ?? null],
        ),
      ));
    return [rows, total];
  }

  /** The newest `limit` leads of a referrer, without counting them. */
  recentForReferrer(
    tenantId: string,
    referrerMemberId: string,
    limit: number,
  ): Promise<LeadEntity[]> {
    return this.pageOf(tenantId, referrerMemberId, undefined, 0, limit);
  }

  private async pageOf(
    tenantId: string,
    referrerMemberId: string,
    status: LeadStatus | undefined,
    offset: number,
    limit: number,
  ): Promise<LeadEntity[]> {
    const rows: Record<string, unknown>[] = await this.tx.select(
      `SELECT ${this.rows.select('l')} FROM leads l
        WHERE l.tenant_id = $1 AND l.referrer_member_id = $2 AND ($3::text IS NULL OR l.status = $3)
        ORDER BY l.created_at DESC, l.id DESC OFFSET $4 LIMIT $5`,
      [tenantId, referrerMemberId, status ?? null, offset, limit],
    );
    return this.rows.fromAll(rows);
  }

  /** Locks the lead for the rest of the transaction (conversions of one lead go one at a time). */
  async lock(tenantId: string, leadId: string): Promise<LeadEntity | null> {
    const [row] = await this.tx.select(
      `SELECT ${this.rows.select('l')} FROM leads l WHERE l.tenant_id = $1 AND l.id = $2 FOR UPDATE`,
      [tenantId, leadId],
    );
    return row ? this.rows.from(row) : null;
  }

  /** Serialises the first orders of one customer of one partner until the transaction ends. */
  async lockCustomerKey(tenantId: string, referrerUserId: string, key: string): Promise<void> {
    await this.tx.manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `customer:${tenantId}:${referrerUserId}:${key}`,
    ]);
  }

  /**
   * The partner's oldest lead of this customer that may still convert, locked: matched by the
   * customer's external id when one is given, else by email (docs/money.md §2, "Phases": a
   * customer's renewals are one lead's conversions).
   */
  async lockCustomerLead(
    tenantId: string,
    referrerUserId: string,
    customer: { externalId?: string; email?: string },
  ): Promise<LeadEntity | null> {
    const match =
      customer.externalId !== undefined
        ? `l.metadata ->> 'customer_external_id' = $3`
        : `l.contact_email IS NOT NULL AND lower(l.contact_email) = lower($3)`;
    const [row] = await this.tx.select(
      `SELECT ${this.rows.select('l')} FROM leads l
        WHERE l.tenant_id = $1 AND ${match} AND l.referrer_user_id = $2
          AND l.status <> 'rejected'
        ORDER BY l.created_at, l.id LIMIT 1 FOR UPDATE`,
      [tenantId, referrerUserId, customer.externalId ?? customer.email],
    );
    return row ? this.rows.from(row) : null;
  }

  /** Moves the lead to `to` only from one of `from`; `false` when it was in another status. */
  async transition(
    tenantId: string,
    leadId: string,
    from: LeadStatus[],
    to: LeadStatus,
    reason: string | null,
  ): Promise<boolean> {
    if (!from.length) return false;
    const result = await this.repo.update(
      { tenantId, id: leadId, status: In(from) },
      { status: to, statusReason: reason, updatedAt: () => 'now()' },
    );
    return (result.affected ?? 0) > 0;
  }
}
