import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { offsetOf, pagination } from '../../common/http/pagination.dto';
import { TransactionHost } from '../../database/transaction-host';
import { ExportsService } from '../../transfer/exports.service';
import { Conditions } from './conditions';
import type { ListLeadsQueryDto } from '../leads/leads.dto';
import type { LeadListResponse, LeadRowResponse } from '../leads/leads.response';

const ISO = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

type Filter = Pick<ListLeadsQueryDto, 'status' | 'source' | 'user_id' | 'from' | 'to'>;

/** The filters as conditions over `l` (leads), for the list and for the export alike. */
function conditions(filter: Filter): Conditions {
  return new Conditions()
    .add('l.status = ?', filter.status)
    .add('l.source = ?', filter.source)
    .add('(l.referrer_member_id = ? OR l.referrer_user_id = ?)', filter.user_id)
    .period('l.created_at', filter.from, filter.to);
}

/**
 * The console's leads (docs/console.md): the list with its partner, newest first, and its CSV,
 * which is the transfer work's `leads.csv` export with the same conditions.
 */
@Injectable()
export class LeadListReader {
  /** The tables its SQL reads (test/architecture/read-model.spec.ts checks the list). */
  static readonly tables = ['leads', 'members'] as const;

  constructor(
    private readonly tx: TransactionHost,
    private readonly exports: ExportsService,
  ) {}

  async list(tenantId: string, query: ListLeadsQueryDto): Promise<LeadListResponse> {
    const cond = conditions(query);
    const where = `l.tenant_id = $1${cond.sql ? ` AND ${cond.sql}` : ''}`;
    const n = cond.params.length;
    const items = await this.tx.select<LeadRowResponse>(
      `SELECT l.id AS lead_id, l.status, l.source, l.contact_name, l.contact_email,
              l.contact_phone, l.offer_id, l.status_reason, ${ISO('l.created_at')} AS created_at,
              m.id AS user_id, m.service_user_id,
              coalesce(m.full_name, m.email, m.external_id) AS partner_name
         FROM leads l
         JOIN members m ON m.tenant_id = l.tenant_id AND m.id = l.referrer_member_id
        WHERE ${where}
        ORDER BY l.created_at DESC, l.id DESC OFFSET $${n + 2} LIMIT $${n + 3}`,
      [tenantId, ...cond.params, offsetOf(query), query.page_size],
    );
    const [count] = await this.tx.select<{ n: number }>(
      `SELECT count(*)::float8 AS n FROM leads l WHERE ${where}`,
      [tenantId, ...cond.params],
    );
    return { items, pagination: pagination(query, count?.n ?? 0) };
  }

  /** The `leads.csv` export (docs/import-export.md) of the leads the filter keeps, streamed. */
  csv(tenantId: string, filter: Filter): Promise<Readable> {
    const cond = conditions(filter);
    return this.exports.stream(tenantId, 'leads', { sql: cond.sql, params: cond.params });
  }
}
