import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../database/transaction-host';

/**
 * Members' personal sales (docs/money.md §2, "Qualification"): `personal_sales_daily`, which the
 * PersonalSales migration's triggers keep from the conversions; read here only.
 */
@Injectable()
export class PersonalSalesRepository {
  constructor(private readonly tx: TransactionHost) {}

  /**
   * For each member, what they sold in `currency` over each window: the `window` UTC days ending
   * with `day`'s (so 1 is that day alone). One statement, at most the longest window's days of rows
   * per member (the primary key's order); a member with no sales is absent.
   */
  async sums(
    tenantId: string,
    currency: string,
    memberIds: readonly string[],
    windows: readonly number[],
    day: Date,
  ): Promise<Map<string, Map<number, number>>> {
    const found = new Map<string, Map<number, number>>();
    if (memberIds.length === 0 || windows.length === 0) return found;
    const columns = windows.map(
      (_, i) =>
        `coalesce(sum(amount_kopecks) FILTER (WHERE day > $4::date - $${i + 6}::int), 0)::text AS w${i}`,
    );
    const rows: Record<string, string>[] = await this.tx.manager.query(
      `SELECT member_id, ${columns.join(', ')}
         FROM personal_sales_daily
        WHERE tenant_id = $1 AND member_id = ANY($2::text[]) AND currency = $3
          AND day <= $4::date AND day > $4::date - $5::int
        GROUP BY member_id`,
      [
        tenantId,
        memberIds,
        currency,
        day.toISOString().slice(0, 10),
        Math.max(...windows),
        ...windows,
      ],
    );
    for (const row of rows) {
      found.set(row.member_id, new Map(windows.map((w, i) => [w, Number(row[`w${i}`])])));
    }
    return found;
  }

  /**
   * What `memberId` referred over the `windowDays` UTC days ending with `day`'s: how many
   * conversions (any currency) and their amount in `currency` (docs/partners.md, "Promotion").
   */
  async totals(
    tenantId: string,
    memberId: string,
    currency: string,
    windowDays: number,
    day: Date,
  ): Promise<{ conversions: number; amountKopecks: number }> {
    const [row]: { conversions: string; amount: string }[] = await this.tx.manager.query(
      `SELECT coalesce(sum(conversions), 0)::text AS conversions,
              coalesce(sum(amount_kopecks) FILTER (WHERE currency = $3), 0)::text AS amount
         FROM personal_sales_daily
        WHERE tenant_id = $1 AND member_id = $2
          AND day <= $4::date AND day > $4::date - $5::int`,
      [tenantId, memberId, currency, day.toISOString().slice(0, 10), windowDays],
    );
    return { conversions: Number(row.conversions), amountKopecks: Number(row.amount) };
  }
}
