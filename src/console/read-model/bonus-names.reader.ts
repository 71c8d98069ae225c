import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../../database/transaction-host';

/** Who a bonus is for and whom it came from, as the bonus queue shows them. */
export interface BonusNames {
  /** The partner's surrogate id (their console page). */
  member_id: string;
  /** The partner's name, else email, else external id. */
  partner_name: string;
  /** The lead's contact name (the lead's own, or the converted lead's); null for manual bonuses. */
  customer_name: string | null;
}

/**
 * The names beside a page of bonuses (docs/console.md: names and amounts, not bare ids): one query by
 * primary keys for the page's rows, after the Admin API's list gave them.
 */
@Injectable()
export class BonusNamesReader {
  /** The tables its SQL reads (test/architecture/read-model.spec.ts checks the list). */
  static readonly tables = ['bonuses', 'members', 'leads', 'conversions'] as const;

  constructor(private readonly tx: TransactionHost) {}

  async of(tenantId: string, bonusIds: string[]): Promise<Map<string, BonusNames>> {
    if (!bonusIds.length) return new Map();
    const rows = await this.tx.select<BonusNames & { bonus_id: string }>(
      `SELECT b.id AS bonus_id, m.id AS member_id,
              coalesce(m.full_name, m.email, m.external_id) AS partner_name,
              coalesce(ld.contact_name, lc.contact_name) AS customer_name
         FROM bonuses b
         JOIN members m ON m.tenant_id = b.tenant_id AND m.id = b.member_id
         LEFT JOIN leads ld
           ON b.source_type = 'lead' AND ld.tenant_id = b.tenant_id AND ld.id = b.source_id
         LEFT JOIN conversions c
           ON b.source_type = 'conversion' AND c.tenant_id = b.tenant_id AND c.id = b.source_id
         LEFT JOIN leads lc ON lc.tenant_id = c.tenant_id AND lc.id = c.lead_id
        WHERE b.tenant_id = $1 AND b.id = ANY($2::text[])`,
      [tenantId, bonusIds],
    );
    return new Map(rows.map(({ bonus_id, ...names }) => [bonus_id, names]));
  }
}
