import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../database/transaction-host';

/** Which conversions a draft governs: as "Which program pays" picks, with the groups as they are now. */
export type GovernedBy = { type: 'default' } | { type: 'group' | 'offer'; id: string };

/** A conversion of the period, in registration order. */
export interface ReplayedConversion {
  id: string;
  leadId: string;
  createdAt: Date;
  amountKopecks: number;
  currency: string;
  reversed: boolean;
  referrerMemberId: string | null;
  governed: boolean;
}

export interface MemberLink {
  id: string;
  parentId: string | null;
  serviceUserId: string;
  isActive: boolean;
}

/** The SQL condition (over `l` leads, `o` offers, `m` referrers, `g` their groups) and its parameter. */
function governedSql(by: GovernedBy, param: number): { sql: string; params: string[] } {
  if (by.type === 'offer') return { sql: `l.offer_id = $${param}`, params: [by.id] };
  if (by.type === 'group') {
    return { sql: `o.program IS NULL AND m.group_id = $${param}`, params: [by.id] };
  }
  return { sql: `o.program IS NULL AND g.program IS NULL`, params: [] };
}

const PAYING_JOINS = `
  JOIN leads l ON l.tenant_id = c.tenant_id AND l.id = c.lead_id
  LEFT JOIN offers o ON o.tenant_id = l.tenant_id AND o.id = l.offer_id
  LEFT JOIN members m ON m.tenant_id = l.tenant_id AND m.id = l.referrer_member_id
  LEFT JOIN groups g ON g.tenant_id = m.tenant_id AND g.id = m.group_id`;

/**
 * The reads of a backtest (docs/money.md §2, "Backtest"): the period's conversions in registration
 * order, a page at a time; what their bonuses were; the members above the referrers; the lead
 * history and personal sales from before the period. Reads only.
 */
@Injectable()
export class BacktestRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** Up to `limit` conversions registered in [from, to) after `after`, oldest first. */
  async page(
    tenantId: string,
    from: Date,
    to: Date,
    by: GovernedBy,
    after: { at: Date; id: string } | null,
    limit: number,
  ): Promise<ReplayedConversion[]> {
    const governed = governedSql(by, 6);
    const rows: {
      id: string;
      lead_id: string;
      created_at: Date;
      amount_kopecks: string;
      currency: string;
      reversed: boolean;
      referrer_member_id: string | null;
      governed: boolean;
    }[] = await this.tx.select(
      `SELECT c.id, c.lead_id, c.created_at, c.amount_kopecks, c.currency,
              c.status = 'reversed' AS reversed, l.referrer_member_id,
              coalesce(${governed.sql}, false) AS governed
         FROM conversions c ${PAYING_JOINS}
        WHERE c.tenant_id = $1 AND c.created_at >= $2 AND c.created_at < $3
          AND (c.created_at, c.id) > ($4::timestamptz, $5::text)
        ORDER BY c.created_at, c.id
        LIMIT ${Number(limit)}`,
      [tenantId, from, to, after?.at ?? new Date(0), after?.id ?? '', ...governed.params],
    );
    return rows.map((r) => ({
      id: r.id,
      leadId: r.lead_id,
      createdAt: r.created_at,
      amountKopecks: Number(r.amount_kopecks),
      currency: r.currency.trim(),
      reversed: r.reversed,
      referrerMemberId: r.referrer_member_id,
      governed: r.governed,
    }));
  }

  /** The bonuses of the governed, unreversed conversions of the period in `currency`, per member and tier. */
  async actual(
    tenantId: string,
    from: Date,
    to: Date,
    by: GovernedBy,
    currency: string,
  ): Promise<{ memberId: string; serviceUserId: string; tier: string; amountKopecks: number }[]> {
    const governed = governedSql(by, 5);
    const rows: { member_id: string; service_user_id: string; tier: string; amount: string }[] =
      await this.tx.select(
        `SELECT b.member_id, b.service_user_id, b.tier, sum(b.amount_kopecks)::text AS amount
           FROM conversions c ${PAYING_JOINS}
           JOIN bonuses b ON b.tenant_id = c.tenant_id AND b.source_type = 'conversion'
                         AND b.source_id = c.id
          WHERE c.tenant_id = $1 AND c.created_at >= $2 AND c.created_at < $3
            AND c.status <> 'reversed' AND c.currency = $4 AND coalesce(${governed.sql}, false)
          GROUP BY 1, 2, 3`,
        [tenantId, from, to, currency, ...governed.params],
      );
    return rows.map((r) => ({
      memberId: r.member_id,
      serviceUserId: r.service_user_id,
      tier: r.tier,
      amountKopecks: Number(r.amount),
    }));
  }

  /** Registration times, oldest first, of the conversions before `from` of the leads converting in [from, to). */
  async earlierTimes(tenantId: string, from: Date, to: Date): Promise<Map<string, Date[]>> {
    const rows: { lead_id: string; created_at: Date }[] = await this.tx.select(
      `SELECT lead_id, created_at FROM conversions
        WHERE tenant_id = $1 AND created_at < $2
          AND lead_id IN (SELECT lead_id FROM conversions
                           WHERE tenant_id = $1 AND created_at >= $2 AND created_at < $3)
        ORDER BY lead_id, created_at, id`,
      [tenantId, from, to],
    );
    const times = new Map<string, Date[]>();
    for (const row of rows) {
      const list = times.get(row.lead_id) ?? [];
      list.push(row.created_at);
      times.set(row.lead_id, list);
    }
    return times;
  }

  async members(tenantId: string, ids: readonly string[]): Promise<MemberLink[]> {
    if (!ids.length) return [];
    const rows: {
      id: string;
      referrer_member_id: string | null;
      service_user_id: string;
      is_active: boolean;
    }[] = await this.tx.select(
      `SELECT id, referrer_member_id, service_user_id, is_active FROM members
        WHERE tenant_id = $1 AND id = ANY($2::text[])`,
      [tenantId, ids],
    );
    return rows.map((r) => ({
      id: r.id,
      parentId: r.referrer_member_id,
      serviceUserId: r.service_user_id,
      isActive: r.is_active,
    }));
  }

  /** Personal sales per member and UTC day in the `days` days before `from` (personal_sales_daily). */
  async salesBefore(
    tenantId: string,
    currency: string,
    memberIds: readonly string[],
    from: Date,
    days: number,
  ): Promise<{ memberId: string; day: string; amountKopecks: number }[]> {
    if (!memberIds.length || days <= 0) return [];
    const rows: { member_id: string; day: string; amount: string }[] = await this.tx.select(
      `SELECT member_id, to_char(day, 'YYYY-MM-DD') AS day, sum(amount_kopecks)::text AS amount
         FROM personal_sales_daily
        WHERE tenant_id = $1 AND currency = $2 AND member_id = ANY($3::text[])
          AND day >= $4::date - $5::int AND day < $4::date
        GROUP BY member_id, day ORDER BY member_id, day`,
      [tenantId, currency, memberIds, from.toISOString().slice(0, 10), days],
    );
    return rows.map((r) => ({
      memberId: r.member_id,
      day: r.day,
      amountKopecks: Number(r.amount),
    }));
  }
}
