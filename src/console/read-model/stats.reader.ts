import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../../database/transaction-host';

/** A day of the rollups, money in one currency. */
export interface DayRow {
  day: string;
  clicks: number;
  new_partners: number;
  leads: number;
  converted_leads: number;
  conversions: number;
  revenue_kopecks: number;
  pending: number;
  approved: number;
  paid: number;
  other: number;
}

export interface PartnerSum {
  member_id: string;
  commission_kopecks: number;
  display_name: string;
}

/**
 * The overview's statements over the rollups (the migration ConsoleRollups keeps them). Count
 * columns are summed over every currency (`''` holds what has none); money only in `currency`.
 * Parameters: tenant, first day, last day, currency.
 */
export const STATS_SQL = {
  days: `SELECT to_char(day, 'YYYY-MM-DD') AS day,
           sum(clicks)::float8 AS clicks, sum(new_partners)::float8 AS new_partners,
           sum(leads)::float8 AS leads, sum(converted_leads)::float8 AS converted_leads,
           sum(conversions)::float8 AS conversions,
           coalesce(sum(revenue_kopecks) FILTER (WHERE currency = $4), 0)::float8 AS revenue_kopecks,
           coalesce(sum(commission_pending_kopecks) FILTER (WHERE currency = $4), 0)::float8 AS pending,
           coalesce(sum(commission_approved_kopecks) FILTER (WHERE currency = $4), 0)::float8 AS approved,
           coalesce(sum(commission_paid_kopecks) FILTER (WHERE currency = $4), 0)::float8 AS paid,
           coalesce(sum(commission_other_kopecks) FILTER (WHERE currency = $4), 0)::float8 AS other
      FROM stats_daily
     WHERE tenant_id = $1 AND day BETWEEN $2::date AND $3::date
     GROUP BY day ORDER BY day`,
  /**
   * Each day's `$5` largest partner commissions (ix_stats_partner_daily_top), and with each
   * day's `$5`-th value: the candidates of the top partners and the bound of everyone else.
   */
  dayTops: `SELECT t.member_id, t.commission_kopecks::float8 AS commission_kopecks,
           to_char(d.day, 'YYYY-MM-DD') AS day, t.rank::int AS rank
      FROM generate_series($2::date, $3::date, interval '1 day') AS d (day)
     CROSS JOIN LATERAL (
       SELECT member_id, commission_kopecks, row_number() OVER (ORDER BY commission_kopecks DESC) AS rank
         FROM stats_partner_daily
        WHERE tenant_id = $1 AND currency = $4 AND day = d.day::date AND commission_kopecks > 0
        ORDER BY commission_kopecks DESC LIMIT $5) t`,
  /** The exact sums of the candidates `$5` over the period (the primary key). */
  candidateSums: `SELECT member_id, sum(commission_kopecks)::float8 AS commission_kopecks
      FROM stats_partner_daily
     WHERE tenant_id = $1 AND member_id = ANY($5::text[]) AND currency = $4
       AND day BETWEEN $2::date AND $3::date
     GROUP BY member_id`,
  /**
   * The members whose all-time positive commission (stats_partner_totals) reaches `$3`, the only
   * ones whose sum over any period can; at most `$4` of them (more: the caller sums everyone).
   */
  reaching: `SELECT member_id FROM stats_partner_totals
     WHERE tenant_id = $1 AND currency = $2 AND positive_kopecks >= $3
     ORDER BY positive_kopecks DESC LIMIT $4`,
  /** Every partner's sum: the fallback when no bound narrows the top. */
  allSums: `SELECT member_id, sum(commission_kopecks)::float8 AS commission_kopecks
      FROM stats_partner_daily
     WHERE tenant_id = $1 AND currency = $4 AND day BETWEEN $2::date AND $3::date
     GROUP BY member_id HAVING sum(commission_kopecks) > 0
     ORDER BY 2 DESC, 1 LIMIT $5`,
  names: `SELECT id AS member_id, coalesce(full_name, email, external_id) AS display_name
      FROM members WHERE tenant_id = $1 AND id = ANY($2::text[])`,
};

@Injectable()
export class StatsReader {
  /** The tables its SQL reads (test/architecture/read-model.spec.ts checks the list). */
  static readonly tables = [
    'stats_daily',
    'stats_partner_daily',
    'stats_partner_totals',
    'members',
  ] as const;

  constructor(private readonly tx: TransactionHost) {}

  days(tenantId: string, from: string, to: string, currency: string): Promise<DayRow[]> {
    return this.tx.select<DayRow>(STATS_SQL.days, [tenantId, from, to, currency]);
  }

  /**
   * The `limit` partners with the largest commission in the period, exactly, without summing every
   * partner (docs/console.md, "Performance"). Each day's `4 × limit` largest commissions are the
   * first candidates, summed exactly. Nobody else can have more than the sum of each day's
   * smallest of those, so if the `limit`-th candidate reaches that, the top is settled. Otherwise
   * the `limit`-th candidate's sum is a floor the top must reach, and only members whose all-time
   * positive commission reaches it can: their sums decide. Only when that is still too many are
   * every partner's days summed (an index-only scan of ix_stats_partner_daily_top).
   */
  async topPartners(
    tenantId: string,
    from: string,
    to: string,
    currency: string,
    limit: number,
  ): Promise<PartnerSum[]> {
    const args = [tenantId, from, to, currency];
    const first = await this.boundedTop(args, limit);
    let top = first.settled ? first.ranked : undefined;
    if (!top && first.floor > 0) {
      const reaching = await this.tx.select<{ member_id: string }>(STATS_SQL.reaching, [
        tenantId,
        currency,
        first.floor,
        MAX_REACHING + 1,
      ]);
      if (reaching.length <= MAX_REACHING) {
        top = rank(
          await this.sumsOf(
            args,
            reaching.map((r) => r.member_id),
          ),
          limit,
        );
      }
    }
    top ??= await this.tx.transaction(async () => {
      // Every active partner's group in memory: the default 4 MB spills this to disk.
      await this.tx.manager.query(`SET LOCAL work_mem = '64MB'`);
      return this.tx.select<{ member_id: string; commission_kopecks: number }>(STATS_SQL.allSums, [
        ...args,
        limit,
      ]);
    });
    if (!top.length) return [];
    const names = await this.tx.select<{ member_id: string; display_name: string }>(
      STATS_SQL.names,
      [tenantId, top.map((t) => t.member_id)],
    );
    const byId = new Map(names.map((n) => [n.member_id, n.display_name]));
    return top.map((t) => ({ ...t, display_name: byId.get(t.member_id) ?? t.member_id }));
  }

  /**
   * The top of each day's `4 × limit` largest, summed exactly; `settled` when nobody else can
   * reach it, and `floor`, the `limit`-th sum (0 with fewer), which the true top reaches.
   */
  private async boundedTop(
    args: string[],
    limit: number,
  ): Promise<{ ranked: MemberSum[]; settled: boolean; floor: number }> {
    const k = limit * 4;
    const rows = await this.tx.select<MemberSum & { rank: number }>(STATS_SQL.dayTops, [
      ...args,
      k,
    ]);
    const bound = rows.reduce((sum, r) => (r.rank === k ? sum + r.commission_kopecks : sum), 0);
    const ranked = rank(await this.sumsOf(args, [...new Set(rows.map((r) => r.member_id))]), limit);
    const floor = ranked.length === limit ? ranked[limit - 1].commission_kopecks : 0;
    // Settled when nobody outside can exceed the last one kept (or equal it: ties by id).
    return { ranked, settled: bound === 0 || floor > bound, floor };
  }

  /** The members' exact sums over the period (the primary key). */
  private async sumsOf(args: string[], ids: string[]): Promise<MemberSum[]> {
    if (!ids.length) return [];
    return this.tx.select<MemberSum>(STATS_SQL.candidateSums, [...args, ids]);
  }

  /** Recomputes the tenant's rollups from the raw tables (after a load that bypassed triggers). */
  async rebuild(tenantId: string): Promise<void> {
    await this.tx.manager.query('SELECT stats_rebuild($1)', [tenantId]);
  }
}

/** Above this many members reaching the floor, summing everyone is as cheap. */
const MAX_REACHING = 20_000;

interface MemberSum {
  member_id: string;
  commission_kopecks: number;
}

/** The `limit` largest positive sums, ties by member id. */
function rank(sums: MemberSum[], limit: number): MemberSum[] {
  return sums
    .filter((s) => s.commission_kopecks > 0)
    .sort(
      (a, b) => b.commission_kopecks - a.commission_kopecks || (a.member_id < b.member_id ? -1 : 1),
    )
    .slice(0, limit);
}
