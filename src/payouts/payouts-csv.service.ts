import { Injectable } from '@nestjs/common';
import { parse } from 'csv-parse/sync';
import type { Actor } from '../common/access/actor';
import { csvText, restoreCsvCell } from '../common/csv/csv';
import { ValidationFailedError, type FieldError } from '../common/errors/domain-error';
import { TransactionHost } from '../database/transaction-host';
import type { SettleRunResponse } from './dto/payout.response';
import { PayoutRunNotFoundError } from './payout.errors';
import { PayoutsRepository } from './payouts.repository';
import { PayoutsService } from './payouts.service';

/** The mass-payout file's columns, in order (docs/payouts.md §4). */
export const CSV_COLUMNS = [
  'payout_id',
  'user_id',
  'external_id',
  'full_name',
  'email',
  'currency',
  'amount_kopecks',
  'amount',
] as const;

/** Lines reported in one 400 at most. */
const MAX_LINE_ERRORS = 1000;

/** `12345` → `123.45`, `-5` → `-0.05`: exact, from the integer. */
export function decimalAmount(kopecks: number): string {
  const sign = kopecks < 0 ? '-' : '';
  const abs = Math.abs(kopecks);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/**
 * A run as an RFC 4180 file (UTF-8, CRLF, header row) that a bank's or payment provider's mass
 * payout takes, written by the one CSV writer (common/csv/csv.ts: a text cell a spreadsheet would
 * evaluate gets a leading `'`), and the same file posted back with a `reference` column to settle
 * the run (every cell read back through restoreCsvCell, which takes that `'` off again).
 */
@Injectable()
export class PayoutsCsvService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly payouts: PayoutsRepository,
    private readonly service: PayoutsService,
  ) {}

  async runCsv(tenantId: string, runId: string): Promise<string> {
    if (!(await this.payouts.findRun(tenantId, runId))) throw new PayoutRunNotFoundError(runId);
    const rows = await this.payouts.csvRows(tenantId, runId);
    return csvText(
      { columns: CSV_COLUMNS, numeric: ['amount_kopecks', 'amount'] },
      rows.map((r) => [
        r.payout_id,
        r.user_id,
        r.external_id,
        r.full_name,
        r.email,
        r.currency,
        String(r.amount_kopecks),
        decimalAmount(r.amount_kopecks),
      ]),
    );
  }

  /**
   * Marks every listed payout paid with its line's `reference`, all or nothing: a line naming a
   * payout not of this run, a changed amount, no reference or a payout that is no longer pending
   * fails the whole file with a 400 listing the lines (line 1 is the header).
   */
  async settle(
    tenantId: string,
    runId: string,
    body: string,
    actor: Actor,
  ): Promise<SettleRunResponse> {
    if (!(await this.payouts.findRun(tenantId, runId))) throw new PayoutRunNotFoundError(runId);
    const records = parseRecords(body);
    return this.tx.transaction(async () => {
      const known = new Map(
        (await this.payouts.csvRows(tenantId, runId)).map((r) => [r.payout_id, r]),
      );
      const errors: FieldError[] = [];
      const seen = new Set<string>();
      for (const { line, record } of records) {
        const fail = (message: string) => errors.push({ field: `line ${line}`, message });
        const payout = known.get(record.payout_id ?? '');
        if (!payout) fail(`payout_id "${record.payout_id ?? ''}" is not a payout of this run`);
        else if (seen.has(payout.payout_id)) fail(`payout ${payout.payout_id} is listed twice`);
        else if (record.amount_kopecks !== String(payout.amount_kopecks))
          fail(
            `amount_kopecks ${record.amount_kopecks ?? ''} differs from ${payout.amount_kopecks}`,
          );
        else if (
          record.amount !== undefined &&
          record.amount !== decimalAmount(payout.amount_kopecks)
        )
          fail(`amount ${record.amount} differs from ${decimalAmount(payout.amount_kopecks)}`);
        else if (!record.reference?.trim() || record.reference.length > 200)
          fail('reference must be 1 to 200 characters');
        else if (payout.status !== 'pending')
          fail(`payout ${payout.payout_id} is ${payout.status}`);
        if (payout) seen.add(payout.payout_id);
      }
      if (errors.length)
        throw new ValidationFailedError(
          errors.slice(0, MAX_LINE_ERRORS),
          `${errors.length} line(s) of the file are refused; nothing was marked paid.`,
        );
      for (const { record } of records) {
        await this.service.markPaidInTransaction(
          tenantId,
          record.payout_id,
          record.reference.trim(),
          actor,
        );
      }
      return { run_id: runId, paid_count: records.length };
    });
  }
}

function parseRecords(body: string): { line: number; record: Record<string, string> }[] {
  let rows: string[][];
  try {
    rows = parse(body, { bom: true, relax_column_count: false, skip_empty_lines: true });
  } catch (error) {
    throw new ValidationFailedError(
      [{ field: 'body', message: (error as Error).message.slice(0, 300) }],
      'The body is not a readable CSV file.',
    );
  }
  const [header, ...lines] = rows;
  const missing = ['payout_id', 'amount_kopecks', 'reference'].filter((c) => !header?.includes(c));
  if (missing.length || !lines.length)
    throw new ValidationFailedError(
      missing.length
        ? missing.map((c) => ({ field: 'line 1', message: `column ${c} is missing` }))
        : [{ field: 'body', message: 'the file lists no payout' }],
      'The file must be the run CSV with a reference column.',
    );
  return lines.map((values, i) => ({
    line: i + 2,
    // A cell the run CSV quoted against formulas (or a spreadsheet kept quoted) is read as the
    // value it stands for: one leading `'` off before a formula character (docs/payouts.md §4).
    record: Object.fromEntries(header.map((name, j) => [name, restoreCsvCell(values[j])])),
  }));
}
