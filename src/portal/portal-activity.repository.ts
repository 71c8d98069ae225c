import { Injectable } from '@nestjs/common';
import { PersonalData, type ErasedMember } from '../common/privacy/personal-data.decorator';
import { TransactionHost } from '../database/transaction-host';

export interface ActivityDay {
  day: string;
  clicks: number;
  leads: number;
  conversions: number;
}

/**
 * The portal's own rollup, `portal_activity_daily` (kept by the PortalActivity migration's
 * triggers): a member's clicks, leads and conversions per UTC day.
 */
@Injectable()
export class PortalActivityRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** The member's days from `from` to `to` (inclusive, `YYYY-MM-DD`) that have any activity. */
  async days(tenantId: string, memberId: string, from: string, to: string): Promise<ActivityDay[]> {
    const rows: { day: string; clicks: string; leads: string; conversions: string }[] =
      await this.tx.select(
        `SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(clicks)::text AS clicks,
                sum(leads)::text AS leads, sum(conversions)::text AS conversions
           FROM portal_activity_daily
          WHERE tenant_id = $1 AND member_id = $2 AND day BETWEEN $3::date AND $4::date
          GROUP BY day ORDER BY day`,
        [tenantId, memberId, from, to],
      );
    return rows.map((r) => ({
      day: r.day,
      clicks: Number(r.clicks),
      leads: Number(r.leads),
      conversions: Number(r.conversions),
    }));
  }

  /**
   * docs/privacy.md: the erased member's days of activity (when they had clicks, leads and
   * conversions) go; the members' counters and the money keep the totals.
   */
  @PersonalData('member', 'portal_activity')
  async erasePersonal(member: ErasedMember): Promise<string[]> {
    await this.tx.manager.query(
      `DELETE FROM portal_activity_daily WHERE tenant_id = $1 AND member_id = $2`,
      [member.tenantId, member.memberId],
    );
    return [];
  }
}
