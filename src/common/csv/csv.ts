/**
 * The one place that writes CSV cells. Every CSV the service answers (the Admin API exports, the
 * console's CSV links, a payout run's mass-payout file) is written here, as RFC 4180 (UTF-8,
 * CRLF, a header row, quotes where needed), with the formula rule below applied to every text
 * cell (docs/security.md, "CSV formula injection").
 *
 * The formula rule (OWASP "CSV Injection", ASVS 5.0 1.2.10): a spreadsheet evaluates a cell that
 * starts with `=`, `+`, `-` or `@` (Excel also their full-width forms `＝ ＋ － ＠`, and after
 * leading whitespace), or with TAB, CR or NUL. Such a text cell is written with a single quote
 * `'` before it, which makes the spreadsheet read it as text (hidden or shown, as the program
 * and its import settings have it). So that the rule can be undone exactly, a cell that is such
 * a cell behind one or more quotes (`'=1`) gets one more quote too; `restoreCsvCell` (the CSV
 * importers) takes exactly one off again.
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

/** A cell's value: text (under the rule), a number, or nothing (an empty cell). */
export type CsvValue = string | number | bigint | null | undefined;

/** A field that RFC 4180 quotes: it holds a separator, a quote or a line break. */
const NEEDS_QUOTES = /[",\r\n]/;

function field(cell: string): string {
  return NEEDS_QUOTES.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
}

/** A writer of one file's lines: the header line, and a row's line (cells under the rule). */
export class CsvLines {
  private readonly numeric: boolean[];
  readonly header: string;

  constructor(spec: CsvSpec) {
    const numeric = new Set(spec.numeric ?? []);
    this.numeric = spec.columns.map((c) => numeric.has(c));
    this.header = `${spec.columns.map(field).join(',')}\r\n`;
  }

  /** A row's line, CRLF ended: null and undefined are empty cells, numbers written as they are. */
  line(row: readonly CsvValue[]): string {
    let out = '';
    for (let i = 0; i < row.length; i++) {
      const value = row[i];
      let cell: string;
      if (value === null || value === undefined) cell = '';
      else if (typeof value !== 'string') cell = String(value);
      else cell = this.numeric[i] && NUMBER.test(value) ? value : field(textCell(value));
      out += i === 0 ? cell : `,${cell}`;
    }
    return `${out}\r\n`;
  }
}

/** A whole CSV file of `rows` (arrays in the order of `spec.columns`), header first. */
export function csvText(spec: CsvSpec, rows: readonly (readonly CsvValue[])[]): string {
  const lines = new CsvLines(spec);
  let out = lines.header;
  for (const row of rows) out += lines.line(row);
  return out;
}
