import { stringify } from 'csv-stringify';
import { stringify as stringifySync } from 'csv-stringify/sync';
import type { Transform } from 'node:stream';

/**
 * The one place that writes CSV cells. Every CSV the service answers (the Admin API exports, the
 * console's CSV links, a payout run's mass-payout file) is written here, as RFC 4180 (UTF-8,
 * CRLF, a header row, quotes where needed), with the formula rule below applied to every text
 * cell (docs/security.md, "CSV formula injection").
 *
 * The formula rule (OWASP "CSV Injection", ASVS 5.0 1.2.10): a spreadsheet evaluates a cell that
 * starts with `=`, `+`, `-` or `@` (Excel also their full-width forms `＝ ＋ － ＠`, and after
 * leading whitespace), or with TAB, CR or NUL. Such a text cell is written with a single quote
 * `'` before it, which the spreadsheet takes as "this is text" and does not show. So that the
 * rule can be undone exactly, a cell that is such a cell behind one or more quotes (`'=1`) gets
 * one more quote too; `restoreCsvCell` (the CSV importers) takes exactly one off again.
 *
 * Numeric columns (amounts, counts) are not text: a numeric cell (`-500`, `-0.05`) stays as it
 * is, so the spreadsheet still reads a number. A cell of a numeric column that is not a plain
 * number is treated as text (never expected: a guard against a column declared numeric by
 * mistake).
 */

/** A CSV's columns, in order, and those of them that hold numbers (written as they are). */
export interface CsvSpec {
  readonly columns: readonly string[];
  readonly numeric?: readonly string[];
}

/** A cell a spreadsheet would evaluate, behind any number of single quotes. */
const FORMULA = /^'*(?:[\t\r\0]|[\s\0]*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20])/;
/** A plain decimal number: what a numeric column holds. */
const NUMBER = /^-?\d+(?:\.\d+)?$/;

/** A text cell as it is written: with a `'` before it when a spreadsheet would evaluate it. */
export function textCell(value: string): string {
  return FORMULA.test(value) ? `'${value}` : value;
}

/**
 * A cell read from a CSV the service may have written (a members import, a settle file) as the
 * value it stood for: one leading `'` taken off a cell that textCell quoted; any other cell as it
 * is. `restoreCsvCell(textCell(v)) === v` for every `v`.
 */
export function restoreCsvCell(value: string): string {
  return value.charCodeAt(0) === 0x27 && FORMULA.test(value.slice(1)) ? value.slice(1) : value;
}

/**
 * csv-stringify's options for `spec`: the header, CRLF, and every string cell of a row under
 * the formula rule, but a numeric column's plain numbers (JS numbers are numbers anyway).
 */
function options(spec: CsvSpec) {
  const numeric = new Set(spec.numeric ?? []);
  const mask = spec.columns.map((c) => numeric.has(c));
  return {
    header: true,
    columns: [...spec.columns],
    record_delimiter: 'windows' as const,
    cast: {
      string: (value: string, context: { index: number; header: boolean }) =>
        context.header || (mask[context.index] && NUMBER.test(value)) ? value : textCell(value),
    },
  };
}

/** A whole CSV file of `rows` (arrays in the order of `spec.columns`; null is empty), header first. */
export function csvText(spec: CsvSpec, rows: readonly (readonly unknown[])[]): string {
  return stringifySync(rows as unknown[][], options(spec));
}

/**
 * A stream writing the CSV of the rows written to it (arrays in the order of `spec.columns`,
 * object mode; null is empty), header first.
 */
export function csvWriter(spec: CsvSpec): Transform {
  return stringify(options(spec));
}
