import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { offsetOf } from '../../common/http/pagination.dto';
import { MEMBER_SEARCH_TEXT } from '../../database/migrations/1795740000000-ConsoleRollups';
import type { CsvSpec } from '../../common/csv/csv';
import { copyCsv, withLiterals } from '../../database/copy-out';
import { TransactionHost } from '../../database/transaction-host';
import type { PartnerSort } from '../members/partners.dto';
import type {
  PartnerBalanceResponse,
  PartnerBonusResponse,
  PartnerDetailResponse,
  PartnerLeadResponse,
  PartnerLinkResponse,
  PartnerResponse,
  UplineEntryResponse,
} from '../members/partners.response';

const PARTNER_COLUMNS = `m.id AS user_id, m.service_user_id, m.external_id, m.full_name, m.email,
  m.role, m.is_active, m.erased_at IS NOT NULL AS erased, m.referrer_member_id AS referrer_user_id, m.depth, m.downline_count,
  m.leads_count, m.clicks_count, m.group_id,
  to_char(m.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS joined_at`;

const ORDER: Record<PartnerSort, string> = {
  joined: 'm.created_at DESC, m.id DESC',
  oldest: 'm.created_at ASC, m.id ASC',
  name: 'm.full_name ASC NULLS LAST, m.id ASC',
};

const ISO = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The partners CSV's columns (console.md), as the list's JSON names them. */
const PARTNERS_CSV: CsvSpec = {
  columns: [
    'user_id',
    'service_user_id',
    'external_id',
    'full_name',
    'email',
    'role',
    'is_active',
    'referrer_user_id',
    'depth',
    'downline_count',
    'leads_count',
    'clicks_count',
    'joined_at',
  ],
  numeric: ['depth', 'downline_count', 'leads_count', 'clicks_count'],
};

/** `%`, `_` and `\` taken literally in a LIKE pattern. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

export interface MemberFilter {
  q?: string;
  sort?: PartnerSort;
}

/**
 * The console's reads of partners (members and what hangs off them). Read-only: every change goes
 * through the owning services (MembersService). The list uses the indexes of ConsoleRollups; the
 * unfiltered total comes from the rollups (every member counted once as a new partner).
 */
@Injectable()
export class MemberListReader {
  /** The tables its SQL reads (test/architecture/read-model.spec.ts checks the list). */
  static readonly tables = [
    'members',
    'member_balances',
    'deeplinks',
    'leads',
    'bonuses',
    'stats_daily',
  ] as const;

  constructor(private readonly tx: TransactionHost) {}

  /** The WHERE clause of a search, with its parameters after `$1` (the tenant). */
  private where(q: string | undefined): { sql: string; params: unknown[] } {
    const text = q?.trim().toLowerCase();
    if (!text) return { sql: 'm.tenant_id = $1', params: [] };
    if (/^(mbr|usr)_[0-9a-z]+$/i.test(text)) {
      return {
        sql: 'm.tenant_id = $1 AND (m.id = $2 OR m.service_user_id = $2)',
        params: [q!.trim()],
      };
    }
    return {
      sql: `m.tenant_id = $1 AND ${MEMBER_SEARCH_TEXT.replace(/\b(full_name|email|external_id)\b/g, 'm.$1')} LIKE $2`,
      params: [`%${likeLiteral(text)}%`],
    };
  }

  async list(
    tenantId: string,
    filter: MemberFilter,
    page: { page: number; page_size: number },
  ): Promise<[PartnerResponse[], number]> {
    const where = this.where(filter.q);
    const n = where.params.length;
    const rows = await this.tx.select<PartnerResponse>(
      `SELECT ${PARTNER_COLUMNS} FROM members m WHERE ${where.sql}
        ORDER BY ${ORDER[filter.sort ?? 'joined']} OFFSET $${n + 2} LIMIT $${n + 3}`,
      [tenantId, ...where.params, offsetOf(page), page.page_size],
    );
    const [count] = filter.q?.trim()
      ? await this.tx.select<{ n: number }>(
          `SELECT count(*)::float8 AS n FROM members m WHERE ${where.sql}`,
          [tenantId, ...where.params],
        )
      : await this.tx.select<{ n: number }>(
          `SELECT coalesce(sum(new_partners), 0)::float8 AS n FROM stats_daily WHERE tenant_id = $1`,
          [tenantId],
        );
    return [rows, count?.n ?? 0];
  }

  /**
   * The partners the filter finds, as CSV with a header row, streamed by the one CSV writer
   * (database/copy-out.ts' copyCsv: text cells under the formula rule, docs/security.md).
   */
  csv(tenantId: string, filter: MemberFilter): Promise<Readable> {
    const where = this.where(filter.q);
    return copyCsv(
      this.tx.manager.connection,
      `SELECT m.id, m.service_user_id, m.external_id, m.full_name, m.email, m.role, m.is_active,
              m.referrer_member_id, m.depth, m.downline_count, m.leads_count, m.clicks_count,
              ${ISO('m.created_at')}
         FROM members m WHERE ${withLiterals(where.sql, [tenantId, ...where.params])}
        ORDER BY ${ORDER[filter.sort ?? 'joined']}`,
      PARTNERS_CSV,
    );
  }

  async detail(
    tenantId: string,
    ref: string,
  ): Promise<
    Omit<PartnerDetailResponse, 'payout_balances' | 'payouts' | 'payout_details'> | undefined
  > {
    const [user] = await this.tx.select<PartnerResponse>(
      `SELECT ${PARTNER_COLUMNS} FROM members m
        WHERE m.tenant_id = $1 AND (m.id = $2 OR m.service_user_id = $2)`,
      [tenantId, ref],
    );
    if (!user) return undefined;
    const id = user.user_id;
    const [upline, firstLine, firstLineTotal, links, leads, bonuses, bonusTotal, balances] =
      await Promise.all([
        this.tx.select<UplineEntryResponse>(
          `WITH RECURSIVE chain AS (
             SELECT referrer_member_id AS id, 1 AS position FROM members
              WHERE tenant_id = $1 AND id = $2
             UNION ALL
             SELECT m.referrer_member_id, chain.position + 1
               FROM chain JOIN members m ON m.tenant_id = $1 AND m.id = chain.id
              WHERE chain.position < 50)
           SELECT m.id AS user_id, coalesce(m.full_name, m.email, m.external_id) AS display_name,
                  m.depth, m.is_active
             FROM chain JOIN members m ON m.tenant_id = $1 AND m.id = chain.id
            ORDER BY chain.position`,
          [tenantId, id],
        ),
        this.tx.select<PartnerResponse>(
          `SELECT ${PARTNER_COLUMNS} FROM members m
            WHERE m.tenant_id = $1 AND m.referrer_member_id = $2
            ORDER BY m.created_at DESC, m.id DESC LIMIT 50`,
          [tenantId, id],
        ),
        this.tx.select<{ n: number }>(
          `SELECT count(*)::float8 AS n FROM members WHERE tenant_id = $1 AND referrer_member_id = $2`,
          [tenantId, id],
        ),
        this.tx.select<PartnerLinkResponse>(
          `SELECT id AS deeplink_id, code, target_type, target_id, clicks_count,
                  ${ISO('created_at')} AS created_at
             FROM deeplinks WHERE tenant_id = $1 AND member_id = $2
            ORDER BY created_at DESC, id DESC LIMIT 50`,
          [tenantId, id],
        ),
        this.tx.select<PartnerLeadResponse>(
          `SELECT id AS lead_id, contact_name, status, ${ISO('created_at')} AS created_at
             FROM leads WHERE tenant_id = $1 AND referrer_member_id = $2
            ORDER BY created_at DESC, id DESC LIMIT 20`,
          [tenantId, id],
        ),
        this.tx.select<PartnerBonusResponse>(
          `SELECT id AS bonus_id, amount_kopecks::float8 AS amount_kopecks, currency, status,
                  source_type, tier, ${ISO('created_at')} AS created_at
             FROM bonuses WHERE tenant_id = $1 AND member_id = $2
            ORDER BY created_at DESC, id DESC LIMIT 20`,
          [tenantId, id],
        ),
        this.tx.select<{ n: number }>(
          `SELECT count(*)::float8 AS n FROM bonuses WHERE tenant_id = $1 AND member_id = $2`,
          [tenantId, id],
        ),
        this.tx.select<PartnerBalanceResponse>(
          `SELECT currency, pending_kopecks::float8 AS pending_kopecks,
                  cleared_kopecks::float8 AS approved_kopecks
             FROM member_balances WHERE tenant_id = $1 AND member_id = $2 ORDER BY currency`,
          [tenantId, id],
        ),
      ]);
    return {
      user,
      upline,
      first_line: { items: firstLine, total: firstLineTotal[0]?.n ?? 0 },
      links,
      leads: { items: leads, total: user.leads_count },
      bonuses: { items: bonuses, total: bonusTotal[0]?.n ?? 0 },
      balances,
    };
  }

  /** Partners by service user id (`usr_…`): their member id and the name the pages show. */
  async names(
    tenantId: string,
    serviceUserIds: string[],
  ): Promise<Map<string, { member_id: string; display_name: string }>> {
    const rows = await this.tx.select<{
      service_user_id: string;
      member_id: string;
      display_name: string;
    }>(
      `SELECT service_user_id, id AS member_id,
              coalesce(full_name, email, external_id) AS display_name
         FROM members WHERE tenant_id = $1 AND service_user_id = ANY($2::text[])`,
      [tenantId, [...new Set(serviceUserIds)]],
    );
    return new Map(rows.map((r) => [r.service_user_id, r]));
  }
}
