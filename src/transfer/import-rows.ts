import { parse as parseCsv } from 'csv-parse';
import { isEmail } from 'class-validator';
import { Transform, type TransformCallback } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { restoreCsvCell } from '../common/csv/csv';
import { textProblem } from '../common/http/hostile-input';
import { newId } from '../common/ids';
import { MEMBER_ROLES } from '../members/member.entity';

/** The columns (CSV) or keys (NDJSON) an import reads (docs/import-export.md). */
export const IMPORT_COLUMNS = [
  'external_id',
  'full_name',
  'email',
  'role',
  'referrer_external_id',
  'joined_at',
] as const;
/** What a members export adds after the import columns: accepted and ignored. */
export const EXPORT_ONLY_COLUMNS = [
  'service_user_id',
  'tenant_service_id',
  'depth',
  'downline_count',
] as const;
const KNOWN = new Set<string>([...IMPORT_COLUMNS, ...EXPORT_ONLY_COLUMNS]);

export type ImportFormat = 'csv' | 'ndjson';
export type ImportErrorCode =
  | 'validation_failed'
  | 'duplicate_external_id'
  | 'referrer_not_found'
  | 'referral_cycle'
  | 'referrer_conflict'
  // Not of a line (`line` 0): the import stopped as a whole (docs/import-export.md, "If the process stops").
  | 'import_interrupted'
  | 'import_failed';

export interface ImportError {
  line: number;
  code: ImportErrorCode;
  message: string;
}

/** The file's header (or an NDJSON object) names a column the import does not know: a 400. */
export class UnknownColumnsError extends Error {
  constructor(
    readonly columns: string[],
    readonly line: number,
  ) {
    super(`unknown column(s): ${columns.join(', ')}`);
  }
}

/** The staging table's columns, in COPY order. */
export const STAGING_COLUMNS = ['line', 'member_id', 'service_user_id', ...IMPORT_COLUMNS] as const;

const ISO_8601 =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const ROLES = new Set<string>(MEMBER_ROLES);
const LIMITS: Record<string, number> = {
  external_id: 128,
  full_name: 200,
  email: 254,
  referrer_external_id: 128,
};

/** COPY text format: backslash, tab, newline and carriage return escaped; null as \N. */
function copyText(value: string | null): string {
  if (value === null) return '\\N';
  if (!/[\\\t\n\r]/.test(value)) return value;
  return value
    .replace(/\\/g, '\\\\')
    .replace(/\t/g, '\\t')
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r');
}

export interface ParseStats {
  rows: number;
  bytes: number;
  errors: ImportError[];
  errorCount: number;
}

/**
 * Turns one parsed record (line number, column → text) into a staging line in COPY text format,
 * or records its validation errors. Empty cells are absent values (they change nothing).
 */
export class RowChecker {
  readonly stats: ParseStats = { rows: 0, bytes: 0, errors: [], errorCount: 0 };

  constructor(private readonly maxErrors: number) {}

  error(line: number, code: ImportErrorCode, message: string): void {
    this.stats.errorCount++;
    if (this.stats.errors.length < this.maxErrors) this.stats.errors.push({ line, code, message });
  }

  /** The staging line for a record, or '' when the record cannot be staged at all. */
  stage(line: number, record: Record<string, unknown>): string {
    this.stats.rows++;
    const values: Record<string, string | null> = {};
    const problems: string[] = [];
    for (const column of IMPORT_COLUMNS) {
      const raw = record[column];
      if (raw === undefined || raw === null || raw === '') {
        values[column] = null;
        continue;
      }
      if (typeof raw !== 'string') {
        problems.push(`${column} must be a string`);
        values[column] = null;
        continue;
      }
      const value = raw.trim();
      const text = value.includes('\0') ? 'must not contain NUL bytes' : textProblem(value);
      const limit = LIMITS[column];
      if (text) problems.push(`${column} ${text}`);
      else if (limit && value.length > limit) {
        problems.push(`${column} must be at most ${limit} characters`);
      }
      values[column] = text ? null : value || null;
    }
    const externalId = values.external_id;
    if (!externalId && !problems.some((p) => p.startsWith('external_id'))) {
      problems.push('external_id is required');
    }
    if (values.email && !isEmail(values.email)) problems.push('email must be an email');
    if (values.role && !ROLES.has(values.role)) {
      problems.push(`role must be one of ${MEMBER_ROLES.join(', ')}`);
    }
    if (values.joined_at) {
      const at = ISO_8601.test(values.joined_at) ? Date.parse(values.joined_at) : NaN;
      if (Number.isNaN(at)) problems.push('joined_at must be an ISO 8601 date-time');
      else values.joined_at = new Date(at).toISOString();
    }
    if (problems.length) {
      this.error(line, 'validation_failed', problems.join('; '));
      // Still staged by its external id (when it has a usable one), so that duplicates and
      // referrers are reported too; the import fails anyway.
      if (!externalId || externalId.length > 128) return '';
      return stagingLine(line, { external_id: externalId });
    }
    return stagingLine(line, values);
  }
}

function stagingLine(line: number, values: Record<string, string | null>): string {
  return (
    `${line}\t${newId('member')}\t${newId('serviceUser')}\t${copyText(values.external_id ?? null)}\t` +
    `${copyText(values.full_name ?? null)}\t${copyText(values.email ?? null)}\t` +
    `${copyText(values.role ?? null)}\t${copyText(values.referrer_external_id ?? null)}\t` +
    `${copyText(values.joined_at ?? null)}\n`
  );
}

/** Batches staging lines into chunks of about 256 KiB, for fewer, larger COPY writes. */
class Batcher {
  private parts: string[] = [];
  private size = 0;
  constructor(private readonly push: (chunk: string) => void) {}
  add(text: string): void {
    if (!text) return;
    this.parts.push(text);
    this.size += text.length;
    if (this.size >= 262144) this.flush();
  }
  flush(): void {
    if (!this.parts.length) return;
    this.push(this.parts.join(''));
    this.parts = [];
    this.size = 0;
  }
}

/**
 * A CSV file (header row first; `line` counts it as line 1) to staging lines. The header is checked
 * before any row: a missing `external_id` or an unknown column throws UnknownColumnsError.
 */
export function csvToStaging(checker: RowChecker): Transform {
  let header: string[] | undefined;
  let failed = false;
  let finish: (() => void) | undefined;
  // Lines are counted here rather than with csv-parse's `info` (a fifth of the parse time): a
  // record starts on the line after the previous one ends, and spans one more line per line
  // break inside its quoted fields; a blank line is a record of one empty field, skipped.
  let nextLine = 1;
  const parser = parseCsv({ bom: true, relax_column_count: true });
  const out = new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      checker.stats.bytes += chunk.length;
      // After a syntax error the rest of the body is read and dropped: the import has failed.
      if (failed || parser.write(chunk)) callback();
      else parser.once('drain', () => callback());
    },
    flush(callback: TransformCallback) {
      finish = () => {
        finish = undefined;
        batch.flush();
        callback();
      };
      if (failed) finish();
      else parser.end();
    },
  });
  const batch = new Batcher((chunk) => out.push(chunk));
  parser.on('end', () => finish?.());
  parser.on('data', (record: string[]) => {
    const line = nextLine;
    nextLine++;
    for (const field of record) if (field.includes('\n')) nextLine += field.split('\n').length - 1;
    if (record.length === 1 && record[0] === '') return;
    if (!header) {
      header = record.map((name) => name.trim());
      const unknown = header.filter((name) => !KNOWN.has(name));
      if (!header.includes('external_id')) unknown.push('(missing external_id)');
      const seen = new Set<string>();
      for (const name of header) {
        if (seen.has(name)) unknown.push(`${name} (twice)`);
        seen.add(name);
      }
      if (unknown.length) out.destroy(new UnknownColumnsError(unknown, line));
      return;
    }
    if (record.length !== header.length) {
      checker.stats.rows++;
      const message = `expected ${header.length} fields, got ${record.length}`;
      checker.error(line, 'validation_failed', message);
      return;
    }
    const row: Record<string, string> = {};
    // A cell an export quoted against formulas is read as the value it stands for: one leading
    // `'` off before a formula character (common/csv/csv.ts; docs/import-export.md).
    for (let i = 0; i < header.length; i++) row[header[i]] = restoreCsvCell(record[i]);
    batch.add(checker.stage(line, row));
  });
  parser.on('error', (error: Error) => {
    // Not CSV past some point (an unclosed quote…): that line fails the import.
    failed = true;
    checker.error(nextLine, 'validation_failed', error.message);
    finish?.();
  });
  return out;
}

/** NDJSON (one JSON object per line; blank lines skipped) to staging lines. */
export function ndjsonToStaging(checker: RowChecker): Transform {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let line = 0;
  const batch = new Batcher((chunk) => out.push(chunk));
  const take = (text: string): void => {
    line++;
    const trimmed = text.trim();
    if (!trimmed) return;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      checker.stats.rows++;
      checker.error(line, 'validation_failed', 'the line is not valid JSON');
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      checker.stats.rows++;
      checker.error(line, 'validation_failed', 'the line must be a JSON object');
      return;
    }
    const unknown = Object.keys(value).filter((key) => !KNOWN.has(key));
    if (unknown.length) throw new UnknownColumnsError(unknown, line);
    batch.add(checker.stage(line, value as Record<string, unknown>));
  };
  const out = new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      checker.stats.bytes += chunk.length;
      try {
        const lines = (pending + decoder.write(chunk)).split('\n');
        pending = lines.pop()!;
        for (const text of lines) take(text);
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
    flush(callback: TransformCallback) {
      try {
        const rest = pending + decoder.end();
        if (rest.trim()) take(rest);
        batch.flush();
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
  });
  return out;
}
