import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import type { CsvSpec } from '../common/csv/csv';
import { copyCsv, withLiterals } from '../database/copy-out';
import { EXPORT_ONLY_COLUMNS, IMPORT_COLUMNS } from './import-rows';

const iso = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * What each export holds: its header, the SELECT giving those columns, in that order ($1 is the
 * tenant id), and its numeric columns (written as numbers; every other cell is text, under the
 * formula rule). members.csv starts with the import columns, so it imports back as it is.
 */
export const EXPORTS = {
  members: {
    numeric: ['depth', 'downline_count'],
    columns: [...IMPORT_COLUMNS, ...EXPORT_ONLY_COLUMNS],
    sql: `SELECT m.external_id, m.full_name, m.email, m.role, p.external_id, ${iso('m.created_at')},
                 g.slug, m.service_user_id, m.id, m.depth, m.downline_count
            FROM members m
            LEFT JOIN members p ON p.tenant_id = m.tenant_id AND p.id = m.referrer_member_id
            JOIN groups g ON g.tenant_id = m.tenant_id AND g.id = m.group_id
           WHERE m.tenant_id = $1 ORDER BY m.depth, m.created_at, m.id`,
  },
  leads: {
    numeric: [],
    columns: [
      'lead_id',
      'status',
      'source',
      'referrer_user_id',
      'referrer_external_id',
      'offer_id',
      'contact_name',
      'contact_email',
      'contact_phone',
      'metadata',
      'status_reason',
      'created_at',
      'updated_at',
    ],
    sql: `SELECT l.id, l.status, l.source, l.referrer_user_id, m.external_id, l.offer_id,
                 l.contact_name, l.contact_email, l.contact_phone, l.metadata::text, l.status_reason,
                 ${iso('l.created_at')}, ${iso('l.updated_at')}
            FROM leads l
            JOIN members m ON m.tenant_id = l.tenant_id AND m.id = l.referrer_member_id
           WHERE l.tenant_id = $1 ORDER BY l.created_at, l.id`,
  },
  conversions: {
    numeric: ['amount_kopecks'],
    columns: [
      'conversion_id',
      'lead_id',
      'external_order_id',
      'amount_kopecks',
      'currency',
      'status',
      'reversed_at',
      'reverse_reason',
      'created_at',
    ],
    sql: `SELECT c.id, c.lead_id, c.external_order_id, c.amount_kopecks, c.currency, c.status,
                 ${iso('c.reversed_at')}, c.reverse_reason, ${iso('c.created_at')}
            FROM conversions c WHERE c.tenant_id = $1 ORDER BY c.created_at, c.id`,
  },
  bonuses: {
    numeric: ['amount_kopecks'],
    columns: [
      'bonus_id',
      'user_id',
      'tenant_service_id',
      'external_id',
      'amount_kopecks',
      'currency',
      'source_type',
      'source_id',
      'tier',
      'status',
      'reason',
      'due_at',
      'approved_at',
      'rejected_at',
      'reversed_at',
      'created_at',
    ],
    sql: `SELECT b.id, b.service_user_id, b.member_id, m.external_id, b.amount_kopecks, b.currency,
                 b.source_type, b.source_id, b.tier, b.status, b.reason, ${iso('b.due_at')},
                 ${iso('b.approved_at')}, ${iso('b.rejected_at')}, ${iso('b.reversed_at')},
                 ${iso('b.created_at')}
            FROM bonuses b
            JOIN members m ON m.tenant_id = b.tenant_id AND m.id = b.member_id
           WHERE b.tenant_id = $1 ORDER BY b.created_at, b.id`,
  },
  payouts: {
    numeric: ['amount_kopecks'],
    columns: [
      'payout_id',
      'run_id',
      'user_id',
      'tenant_service_id',
      'external_id',
      'currency',
      'amount_kopecks',
      'status',
      'reference',
      'failure_reason',
      'created_at',
      'paid_at',
      'settled_at',
    ],
    sql: `SELECT p.id, p.run_id, p.service_user_id, p.member_id, m.external_id, p.currency,
                 p.amount_kopecks, p.status, p.reference, p.failure_reason, ${iso('p.created_at')},
                 ${iso('p.paid_at')}, ${iso('p.settled_at')}
            FROM payouts p
            JOIN members m ON m.tenant_id = p.tenant_id AND m.id = p.member_id
           WHERE p.tenant_id = $1 ORDER BY p.created_at, p.id`,
  },
  /** The console's runs list (not an Admin API export): each run and its payouts by status now. */
  payout_runs: {
    numeric: ['payouts_count', 'total_kopecks', 'pending', 'paid', 'failed', 'canceled'],
    columns: [
      'run_id',
      'trigger',
      'payouts_count',
      'total_kopecks',
      'currency_totals',
      'pending',
      'paid',
      'failed',
      'canceled',
      'created_at',
    ],
    sql: `SELECT r.id, r.trigger, r.payouts_count, r.total_kopecks, r.currency_totals::text,
                 s.pending, s.paid, s.failed, s.canceled, ${iso('r.created_at')}
            FROM payout_runs r
            CROSS JOIN LATERAL (
                 SELECT count(*) FILTER (WHERE p.status = 'pending') AS pending,
                        count(*) FILTER (WHERE p.status = 'paid') AS paid,
                        count(*) FILTER (WHERE p.status = 'failed') AS failed,
                        count(*) FILTER (WHERE p.status = 'canceled') AS canceled
                   FROM payouts p WHERE p.tenant_id = r.tenant_id AND p.run_id = r.id) s
           WHERE r.tenant_id = $1 ORDER BY r.created_at, r.id`,
  },
} as const satisfies Record<string, CsvSpec & { sql: string }>;
export type ExportKind = keyof typeof EXPORTS;

/**
 * Conditions ANDed to an export's WHERE (the console's CSV links: a list's filters), over the
 * export's own aliases (`c` conversions, `l` leads, `b` bonuses, `m` members, `p` payouts,
 * `r` payout runs), with `$2`, `$3`… for `params` ($1 is the tenant). COPY takes no parameters:
 * the values go in as literals escaped by the driver.
 */
export interface ExportFilter {
  sql: string;
  params: string[];
}

/**
 * The exports' statements (docs/import-export.md): `COPY (SELECT …) TO STDOUT` streamed from
 * PostgreSQL, re-written by the one CSV writer (database/copy-out.ts' copyCsv, common/csv/csv.ts)
 * as RFC 4180 (CRLF, quotes where needed), UTF-8, with a header row, a text cell a spreadsheet
 * would evaluate quoted with `'` (docs/security.md); never the whole result in memory. COPY reads
 * one snapshot, so the file is consistent.
 */
@Injectable()
export class ExportsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The export of `kind`, its rows narrowed by `filter`. */
  async stream(tenantId: string, kind: ExportKind, filter?: ExportFilter): Promise<Readable> {
    const { sql } = EXPORTS[kind];
    let query: string = sql;
    if (filter?.sql) {
      const order = query.lastIndexOf('ORDER BY');
      query = `${query.slice(0, order)} AND (${filter.sql}) ${query.slice(order)}`;
    }
    const values = [tenantId, ...(filter?.params ?? [])];
    return copyCsv(this.dataSource, withLiterals(query, values), EXPORTS[kind]);
  }
}
