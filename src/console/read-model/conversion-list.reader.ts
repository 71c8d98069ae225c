import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { offsetOf, pagination } from '../../common/http/pagination.dto';
import { TransactionHost } from '../../database/transaction-host';
import { ExportsService } from '../../transfer/exports.service';
import { Conditions } from './conditions';
import type { ListConversionsQueryDto } from '../conversions/conversions.dto';
import { ConversionNotFoundError } from '../../conversions/conversion.errors';
import type {
  ConversionBonusResponse,
  ConversionDetailResponse,
  ConversionListResponse,
  ConversionRowResponse,
} from '../conversions/conversions.response';

const ISO = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A conversion with its partner, customer and commission (the list's and the page's row). */
const ROW = `SELECT c.id AS conversion_id, c.lead_id, c.external_order_id,
       c.amount_kopecks::float8 AS amount_kopecks, c.currency, c.status,
       ${ISO('c.reversed_at')} AS reversed_at, c.reverse_reason,
       ${ISO('c.created_at')} AS created_at,
       m.id AS user_id, m.service_user_id,
       coalesce(m.full_name, m.email, m.external_id) AS partner_name,
       l.contact_name AS customer_name,
       (SELECT coalesce(sum(b.amount_kopecks), 0)::float8 FROM bonuses b
         WHERE b.tenant_id = c.tenant_id AND b.source_type = 'conversion'
           AND b.source_id = c.id AND b.status NOT IN ('rejected', 'reversed'))
         AS commission_kopecks
  FROM conversions c
  JOIN leads l ON l.tenant_id = c.tenant_id AND l.id = c.lead_id
  JOIN members m ON m.tenant_id = l.tenant_id AND m.id = l.referrer_member_id`;

type Filter = Pick<ListConversionsQueryDto, 'status' | 'user_id' | 'from' | 'to'>;

/** The filters as conditions over `c` (conversions), for the list and for the export alike. */
function conditions(filter: Filter): Conditions {
  return new Conditions()
    .add('c.status = ?', filter.status)
    .add(
      `EXISTS (SELECT 1 FROM leads fl WHERE fl.tenant_id = c.tenant_id AND fl.id = c.lead_id
                  AND (fl.referrer_member_id = ? OR fl.referrer_user_id = ?))`,
      filter.user_id,
    )
    .period('c.created_at', filter.from, filter.to);
}

/**
 * The console's conversions (docs/console.md): the list with its partner, customer and
 * commission, newest first (`ix_conversions_created`), and its CSV, which is the transfer work's
 * `conversions.csv` export with the same conditions. Reversal is ConversionsService's.
 */
@Injectable()
export class ConversionListReader {
  /** The tables its SQL reads (test/architecture/read-model.spec.ts checks the list). */
  static readonly tables = ['conversions', 'leads', 'members', 'bonuses'] as const;

  constructor(
    private readonly tx: TransactionHost,
    private readonly exports: ExportsService,
  ) {}

  async list(tenantId: string, query: ListConversionsQueryDto): Promise<ConversionListResponse> {
    const cond = conditions(query);
    const where = `c.tenant_id = $1${cond.sql ? ` AND ${cond.sql}` : ''}`;
    const n = cond.params.length;
    const items = await this.tx.select<ConversionRowResponse>(
      `${ROW}
        WHERE ${where}
        ORDER BY c.created_at DESC, c.id DESC OFFSET $${n + 2} LIMIT $${n + 3}`,
      [tenantId, ...cond.params, offsetOf(query), query.page_size],
    );
    const [count] = await this.tx.select<{ n: number }>(
      `SELECT count(*)::float8 AS n FROM conversions c WHERE ${where}`,
      [tenantId, ...cond.params],
    );
    return { items, pagination: pagination(query, count?.n ?? 0) };
  }

  /** One conversion and its cascade (every bonus it created, referrer first). */
  async detail(tenantId: string, conversionId: string): Promise<ConversionDetailResponse> {
    const [conversion] = await this.tx.select<ConversionRowResponse>(
      `${ROW} WHERE c.tenant_id = $1 AND c.id = $2`,
      [tenantId, conversionId],
    );
    if (!conversion) throw new ConversionNotFoundError(conversionId);
    const bonuses = await this.tx.select<ConversionBonusResponse>(
      `SELECT b.id AS bonus_id, b.tier, m.id AS user_id,
              coalesce(m.full_name, m.email, m.external_id) AS partner_name,
              b.amount_kopecks::float8 AS amount_kopecks, b.currency, b.status, b.reason
         FROM bonuses b
         JOIN members m ON m.tenant_id = b.tenant_id AND m.id = b.member_id
        WHERE b.tenant_id = $1 AND b.source_type = 'conversion' AND b.source_id = $2
        ORDER BY CASE WHEN b.tier = 'referrer' THEN 0
                      ELSE coalesce(substring(b.tier FROM '^upline_(\\d+)$')::int, 1000) END,
                 b.created_at, b.id`,
      [tenantId, conversionId],
    );
    return { conversion, bonuses };
  }

  /** The `conversions.csv` export (docs/import-export.md) of the conversions the filter keeps, streamed. */
  csv(tenantId: string, filter: Filter): Promise<Readable> {
    const cond = conditions(filter);
    return this.exports.stream(tenantId, 'conversions', { sql: cond.sql, params: cond.params });
  }
}
