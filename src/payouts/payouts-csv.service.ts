import { Injectable } from '@nestjs/common';
import type { Actor } from '../common/access/actor';
import { csvText } from '../common/csv/csv';
import { ValidationFailedError, type FieldError } from '../common/errors/domain-error';
import { TransactionHost } from '../database/transaction-host';
import { cut, parseSettleText, type SettleLine } from './csv-body';
import type { SettleRunResponse } from './dto/payout.response';
import { PayoutRunNotFoundError } from './payout.errors';
import { PayoutsRepository } from './payouts.repository';
import { PayoutsService } from './payouts.service';
import type { PayoutDetails } from './payout-details/payout-details.input';
import { maskPayoutDetails } from './payout-details/payout-details.input';
import { PayoutDetailsService } from './payout-details/payout-details.service';

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
  'method',
  'details_masked',
  'holder',
  'iban',
  'account',
  'bik',
  'paypal_email',
] as const;

/** Who reads the run file: the owner (and the platform) see the details in full, others masked. */
export type DetailsAccess = 'full' | 'masked';

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
    private readonly details: PayoutDetailsService,
  ) {}

  /**
   * The run file. Each payout's details are the copy the run took when it created the payout:
   * `method` and `details_masked` for everyone, and with `full` access (the tenant's owner, the
   * platform) `holder`, `iban` or `account` and `bik`, or `paypal_email`; empty cells otherwise,
   * and for a payout made without details.
   */
  async runCsv(tenantId: string, runId: string, access: DetailsAccess): Promise<string> {
    if (!(await this.payouts.findRun(tenantId, runId))) throw new PayoutRunNotFoundError(runId);
    const rows = await this.payouts.csvRows(tenantId, runId);
    return csvText(
      { columns: CSV_COLUMNS, numeric: ['amount_kopecks', 'amount'] },
      rows.map((r) => {
        const details = r.details_sealed
          ? this.details.open(tenantId, r.member_id, r.details_sealed)
          : null;
        return [
          r.payout_id,
          r.user_id,
          r.external_id,
          r.full_name,
          r.email,
          r.currency,
          String(r.amount_kopecks),
          decimalAmount(r.amount_kopecks),
          r.details_method,
          details && maskPayoutDetails(details),
          ...detailCells(details, access),
        ];
      }),
    );
  }

  /** The same as settle() from a file pasted as text (the console's form), checked the same. */
  async settleText(
    tenantId: string,
    runId: string,
    text: string,
    actor: Actor,
  ): Promise<SettleRunResponse> {
    return this.settle(tenantId, runId, await parseSettleText(text), actor);
  }

  /**
   * Marks every listed payout paid with its line's `reference`, all or nothing: a line naming a
   * payout not of this run, a changed amount, no reference or a payout that is no longer pending
   * fails the whole file with a 400 listing the lines (line 1 is the header; the first 50, and
   * `error_count`). `records`: the file as readSettleFile (csv-body.ts) parsed and checked it.
   */
  async settle(
    tenantId: string,
    runId: string,
    records: SettleLine[],
    actor: Actor,
  ): Promise<SettleRunResponse> {
    if (!(await this.payouts.findRun(tenantId, runId))) throw new PayoutRunNotFoundError(runId);
    return this.tx.transaction(async () => {
      const known = new Map(
        (await this.payouts.csvRows(tenantId, runId)).map((r) => [r.payout_id, r]),
      );
      const errors: FieldError[] = [];
      const seen = new Set<string>();
      for (const { line, record } of records) {
        const fail = (message: string) => errors.push({ field: `line ${line}`, message });
        const payout = known.get(record.payout_id ?? '');
        if (!payout) fail(`payout_id "${cut(record.payout_id ?? '')}" is not a payout of this run`);
        else if (seen.has(payout.payout_id)) fail(`payout ${payout.payout_id} is listed twice`);
        else if (record.amount_kopecks !== String(payout.amount_kopecks))
          fail(
            `amount_kopecks ${cut(record.amount_kopecks ?? '')} differs from ${payout.amount_kopecks}`,
          );
        else if (
          record.amount !== undefined &&
          record.amount !== decimalAmount(payout.amount_kopecks)
        )
          fail(`amount ${cut(record.amount)} differs from ${decimalAmount(payout.amount_kopecks)}`);
        else if (!record.reference?.trim() || record.reference.length > 200)
          fail('reference must be 1 to 200 characters');
        else if (payout.status !== 'pending')
          fail(`payout ${payout.payout_id} is ${payout.status}`);
        if (payout) seen.add(payout.payout_id);
      }
      if (errors.length)
        throw new ValidationFailedError(
          errors,
          `${errors.length} line(s) of the file are refused; nothing was marked paid.`,
        );
      for (const { record } of records) {
        await this.service.markPaidInTransaction(
          tenantId,
          record.payout_id!,
          record.reference!.trim(),
          actor,
        );
      }
      return { run_id: runId, paid_count: records.length };
    });
  }
}

/** `holder`, `iban`, `account`, `bik`, `paypal_email`: filled for `full` access only. */
function detailCells(details: PayoutDetails | null, access: DetailsAccess): (string | null)[] {
  if (!details || access !== 'full') return [null, null, null, null, null];
  if (details.method === 'paypal') return [null, null, null, null, details.email];
  return 'iban' in details
    ? [details.holder, details.iban, null, null, null]
    : [details.holder, null, details.account, details.bik, null];
}
