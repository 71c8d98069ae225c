import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../database/transaction-host';

/** An upline as the self-referral signal sees it: position 1 is the lead's referrer. */
export interface ChainContact {
  position: number;
  serviceUserId: string;
  email: string | null;
  lastSeenIp: string | null;
}

/** The look-ups the risk signals make, each one indexed query in the caller's transaction. */
@Injectable()
export class FraudRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** The referrer and its uplines (at most `limit`), nearest first, with email and last IP. */
  async chainContacts(tenantId: string, memberId: string, limit = 50): Promise<ChainContact[]> {
    const rows: {
      position: number;
      service_user_id: string;
      email: string | null;
      ip: string | null;
    }[] = await this.tx.manager.query(
      `WITH RECURSIVE chain AS (
         SELECT id, service_user_id, email, last_seen_ip, referrer_member_id, 1 AS position
           FROM members WHERE tenant_id = $1 AND id = $2
         UNION ALL
         SELECT m.id, m.service_user_id, m.email, m.last_seen_ip, m.referrer_member_id, chain.position + 1
           FROM chain JOIN members m ON m.tenant_id = $1 AND m.id = chain.referrer_member_id
          WHERE chain.position < $3)
       SELECT position, service_user_id, email, host(last_seen_ip) AS ip FROM chain ORDER BY position`,
      [tenantId, memberId, limit],
    );
    return rows.map((r) => ({
      position: r.position,
      serviceUserId: r.service_user_id,
      email: r.email,
      lastSeenIp: r.ip,
    }));
  }

  /**
   * Whether another partner of the tenant already has a lead with this contact email, counting
   * only leads of the tenant's authenticated back end: an anonymous form post (lead-form widget,
   * landing page) can name anyone's customer, and must not flag an honest partner.
   */
  async emailLeadOfAnotherPartner(
    tenantId: string,
    email: string,
    memberId: string,
  ): Promise<boolean> {
    const rows: unknown[] = await this.tx.manager.query(
      `SELECT 1 FROM leads
        WHERE tenant_id = $1 AND lower(contact_email) = lower($2) AND contact_email IS NOT NULL
          AND referrer_member_id <> $3 AND NOT anonymous
        LIMIT 1`,
      [tenantId, email, memberId],
    );
    return rows.length > 0;
  }

  /** The partner's leads from this IP in the last hour. */
  async leadsFromIpLastHour(tenantId: string, memberId: string, ip: string): Promise<number> {
    const [row]: { count: number }[] = await this.tx.manager.query(
      `SELECT count(*)::int AS count FROM leads
        WHERE tenant_id = $1 AND referrer_member_id = $2 AND client_ip = $3::inet
          AND created_at > now() - interval '1 hour'`,
      [tenantId, memberId, ip],
    );
    return row.count;
  }

  /** The median amount of the tenant's latest `window` conversions, and how many there are. */
  async recentMedian(
    tenantId: string,
    currency: string,
    window = 1000,
  ): Promise<{ count: number; median: number }> {
    const [row]: { count: number; median: string | null }[] = await this.tx.manager.query(
      `SELECT count(*)::int AS count,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY amount_kopecks)::text AS median
         FROM (SELECT amount_kopecks FROM conversions
                WHERE tenant_id = $1 AND currency = $2
                ORDER BY created_at DESC LIMIT $3) latest`,
      [tenantId, currency, window],
    );
    return { count: row.count, median: Number(row.median ?? 0) };
  }
}
