import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../database/transaction-host';

/** A conversion of the period, in registration order. */
export interface ReplayedConversion {
  id: string;
  leadId: string;
  createdAt: Date;
  /** `created_at` to the microsecond, where the next page starts. */
  position: string;
  amountKopecks: number;
  currency: string;
  reversed: boolean;
}

export interface LeadLink {
  id: string;
  referrerMemberId: string | null;
  offerId: string | null;
}

export interface MemberLink {
  id: string;
  parentId: string | null;
  serviceUserId: string;
  isActive: boolean;
  groupId: string | null;
}

/** What conversions paid one payee in one tier, and whose program paid it. */
export interface PaidBonus {
  memberId: string;
  serviceUserId: string;
  tier: string;
  offerId: string | null;
  referrerGroupId: string | null;
  amountKopecks: number;
}

/**
 * The reads of a backtest (docs/money.md §2, "Backtest"): the period's conversions in registration
 * order, a page at a time, as plain as the floor's read of them (a range of ix_conversions_created);
 * then, by id, what the replay does not know yet: their leads, the members above the referrers;
 * what the bonuses they paid add up to; and the lead history and personal sales from before the period. Reads
 * only.
 */
@Injectable()
export class BacktestRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** Up to `limit` conversions registered in [from, to) after the position `after`, oldest first. */
  async page(
    tenantId: string,
    from: Date,
    to: Date,
    after: { position: string; id: string } | null,
    limit: number,
  ): Promise<ReplayedConversion[]> {
    const rows: {
      id: string;
      lead_id: string;
      created_at: Date;
      position: string;
      amount_kopecks: string;
      currency: string;
      reversed: boolean;
    }[] = await this.tx.select(
      `SELECT id, lead_id, created_at, created_at::text AS position, amount_kopecks, currency,
              status = 'reversed' AS reversed
         FROM conversions
        WHERE tenant_id = $1 AND created_at >= $2 AND created_at < $3
          AND (created_at, id) > ($4::timestamptz, $5::text)
        ORDER BY created_at, id
        LIMIT ${Number(limit)}`,
      [tenantId, from, to, after?.position ?? '-infinity', after?.id ?? ''],
    );
    return rows.map((r) => ({
      id: r.id,
      leadId: r.lead_id,
      createdAt: r.created_at,
      position: r.position,
      amountKopecks: Number(r.amount_kopecks),
      currency: r.currency.trim(),
      reversed: r.reversed,
    }));
  }

  async leads(tenantId: string, ids: readonly string[]): Promise<LeadLink[]> {
    if (!ids.length) return [];
    const rows: { id: string; referrer_member_id: string | null; offer_id: string | null }[] =
      await this.tx.select(
        `SELECT id, referrer_member_id, offer_id FROM leads
          WHERE tenant_id = $1 AND id = ANY($2::text[])`,
        [tenantId, ids],
      );
    return rows.map((r) => ({
      id: r.id,
      referrerMemberId: r.referrer_member_id,
      offerId: r.offer_id,
    }));
  }

  /** The offers and the groups of the tenant that have a program of their own. */
  async ownPrograms(tenantId: string): Promise<{ offers: Set<string>; groups: Set<string> }> {
    const rows: { kind: string; id: string }[] = await this.tx.select(
      `SELECT 'offer' AS kind, id FROM offers WHERE tenant_id = $1 AND program IS NOT NULL
       UNION ALL
       SELECT 'group', id FROM groups WHERE tenant_id = $1 AND program IS NOT NULL`,
      [tenantId],
    );
    return {
      offers: new Set(rows.filter((r) => r.kind === 'offer').map((r) => r.id)),
      groups: new Set(rows.filter((r) => r.kind === 'group').map((r) => r.id)),
    };
  }

  /**
   * What the period's unreversed conversions in `currency` paid, per payee and tier, with what
   * decides which program governs them: the lead's offer and its referrer's group now. One
   * statement (hash joins over the period), however many conversions.
   */
  async paid(tenantId: string, from: Date, to: Date, currency: string): Promise<PaidBonus[]> {
    const rows: {
      member_id: string;
      service_user_id: string;
      tier: string;
      offer_id: string | null;
      group_id: string | null;
      amount: string;
    }[] = await this.tx.select(
      `SELECT b.member_id, b.service_user_id, b.tier, l.offer_id, r.group_id,
              sum(b.amount_kopecks)::text AS amount
         FROM conversions c
         JOIN bonuses b ON b.tenant_id = c.tenant_id AND b.source_type = 'conversion'
                       AND b.source_id = c.id
         JOIN leads l ON l.tenant_id = c.tenant_id AND l.id = c.lead_id
         LEFT JOIN members r ON r.tenant_id = l.tenant_id AND r.id = l.referrer_member_id
        WHERE c.tenant_id = $1 AND c.created_at >= $2 AND c.created_at < $3
          AND c.status <> 'reversed' AND c.currency = $4
        GROUP BY 1, 2, 3, 4, 5`,
      [tenantId, from, to, currency],
    );
    return rows.map((r) => ({
      memberId: r.member_id,
      serviceUserId: r.service_user_id,
      tier: r.tier,
      offerId: r.offer_id,
      referrerGroupId: r.group_id,
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
      group_id: string | null;
    }[] = await this.tx.select(
      `SELECT id, referrer_member_id, service_user_id, is_active, group_id FROM members
        WHERE tenant_id = $1 AND id = ANY($2::text[])`,
      [tenantId, ids],
    );
    return rows.map((r) => ({
      id: r.id,
      parentId: r.referrer_member_id,
      serviceUserId: r.service_user_id,
      isActive: r.is_active,
      groupId: r.group_id,
    }));
  }

  /** Personal sales per member and UTC day in the `days` days before `from` (personal_sales_daily). */
  async salesBefore(
    tenantId: string,
    currency: string,
    from: Date,
    days: number,
  ): Promise<{ memberId: string; day: string; amountKopecks: number }[]> {
    if (days <= 0) return [];
    const rows: { member_id: string; day: string; amount: string }[] = await this.tx.select(
      `SELECT member_id, to_char(day, 'YYYY-MM-DD') AS day, sum(amount_kopecks)::text AS amount
         FROM personal_sales_daily
        WHERE tenant_id = $1 AND currency = $2 AND day >= $3::date - $4::int AND day < $3::date
        GROUP BY member_id, day ORDER BY member_id, day`,
      [tenantId, currency, from.toISOString().slice(0, 10), days],
    );
    return rows.map((r) => ({
      memberId: r.member_id,
      day: r.day,
      amountKopecks: Number(r.amount),
    }));
  }
}
