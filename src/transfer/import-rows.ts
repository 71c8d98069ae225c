import { parse as parseCsv } from 'csv-parse';
import { isEmail } from 'class-validator';
import { Transform, type TransformCallback } from 'node:stream';
import { restoreCsvCell } from '../common/csv/csv';
import { MAX_LISTED_ERRORS } from '../common/errors/domain-error';
import { textProblem } from '../common/http/hostile-input';
import { Batcher, stagingLine } from './staging-text';
import { MEMBER_ROLES } from '../members/member.entity';
import {
  ImportLineRefusedError,
  MAX_IMPORT_FIELDS,
  MAX_IMPORT_LINE_BYTES,
} from './transfer.errors';

/** The columns (CSV) or keys (NDJSON) an import reads (docs/import-export.md). */
export const IMPORT_COLUMNS = [
  'external_id',
  'full_name',
  'email',
  'role',
  'referrer_external_id',
  'joined_at',
  // docs/partners.md: the slug of the member's group.
  'group',
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
  | 'group_not_found'
  // Not of a line (`line` 0): the import stopped as a whole (docs/import-export.md, "If the process stops").
  | 'import_interrupted'
  | 'import_failed';

export interface ImportError {
  line: number;
  code: ImportErrorCode;
  message: string;
}

/**
 * The file's header (or an NDJSON object) names a column the import does not know: a 400.
 * `columns` are the first MAX_LISTED_ERRORS of them (each cut to 64 characters), `total` all.
 */
export class UnknownColumnsError extends Error {
  constructor(
    readonly columns: string[],
    readonly line: number,
    readonly total = columns.length,
  ) {
    super(`unknown column(s): ${columns.join(', ')}`);
  }
}

/** Collects names for an error list: the first MAX_LISTED_ERRORS (cut short), and a count. */
class NameList {
  readonly names: string[] = [];
  total = 0;
  add(name: string): void {
    this.total++;
    if (this.names.length < MAX_LISTED_ERRORS) {
      this.names.push(name.length > 64 ? `${name.slice(0, 64)}…` : name);
    }
  }
}

const tooLong = (line: number) =>
  new ImportLineRefusedError(
    line,
    `is longer than 1 MiB (${MAX_IMPORT_LINE_BYTES} bytes), the most an import line may be`,
  );
const tooManyFields = (line: number) =>
  new ImportLineRefusedError(
    line,
    `has more than ${MAX_IMPORT_FIELDS} fields, the most an import record may have`,
  );

/** csv-parse is fed at most this much at a time, so that its fields are counted often. */
export const CSV_PIECE = 16 * 1024;

/**
 * The fields of the record csv-parse is in the middle of. Its stream keeps its parse state as
 * `state` (untyped, "for backward compatibility"; csv-parse is pinned, and import-rows.spec.ts
 * fails if this stops counting).
 */
export function csvFieldsSoFar(parser: object): number {
  return (parser as { state: { record: unknown[] } }).state.record.length;
}

/** The staging table's columns, in COPY order (`group`, a keyword of SQL, as `group_slug`). */
export const STAGING_COLUMNS = [
  'line',
  'member_id',
  'service_user_id',
  ...IMPORT_COLUMNS.map((column) => (column === 'group' ? 'group_slug' : column)),
] as const;

const ISO_8601 =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const ROLES = new Set<string>(MEMBER_ROLES);
const LIMITS: Record<string, number> = {
  external_id: 128,
  full_name: 200,
  email: 254,
  referrer_external_id: 128,
  group: 63,
};

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
  // max_record_size counts characters, but not those of empty fields: a line of commas is a
  // record of millions of fields, each costing a microsecond, so the fields of the record being
  // read are counted after every CSV_PIECE (csvFieldsSoFar).
  const parser = parseCsv({
    bom: true,
    relax_column_count: true,
    max_record_size: MAX_IMPORT_LINE_BYTES,
  });
  const refuse = (error: Error) => {
    failed = true;
    out.destroy(error);
  };
  const out = new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      checker.stats.bytes += chunk.length;
      // After a syntax error the rest of the body is read and dropped: the import has failed.
      let flowing = true;
      for (let at = 0; at < chunk.length && !failed; at += CSV_PIECE) {
        flowing = parser.write(chunk.subarray(at, at + CSV_PIECE));
        if (csvFieldsSoFar(parser) > MAX_IMPORT_FIELDS) {
          refuse(tooManyFields(nextLine));
        }
      }
      if (failed || flowing) return callback();
      // A parser that failed is destroyed (its error comes on the next tick) and never drains.
      const go = () => {
        parser.off('drain', go);
        parser.off('close', go);
        callback();
      };
      parser.once('drain', go);
      parser.once('close', go);
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
    if (out.destroyed) return;
    const line = nextLine;
    nextLine++;
    for (const field of record) if (field.includes('\n')) nextLine += field.split('\n').length - 1;
    if (record.length > MAX_IMPORT_FIELDS) return refuse(tooManyFields(line));
    if (record.length === 1 && record[0] === '') return;
    if (!header) {
      header = record.map((name) => name.trim());
      const unknown = new NameList();
      for (const name of header) if (!KNOWN.has(name)) unknown.add(name);
      if (!header.includes('external_id')) unknown.add('(missing external_id)');
      const seen = new Set<string>();
      for (const name of header) {
        if (seen.has(name)) unknown.add(`${name} (twice)`);
        seen.add(name);
      }
      if (unknown.total) refuse(new UnknownColumnsError(unknown.names, line, unknown.total));
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
  parser.on('error', (error: Error & { code?: string }) => {
    if (out.destroyed) return;
    // A record over 1 MiB: the file is refused (400), as an NDJSON line over 1 MiB.
    if (error.code === 'CSV_MAX_RECORD_SIZE') return refuse(tooLong(nextLine));
    // Not CSV past some point (an unclosed quote…): that line fails the import.
    failed = true;
    checker.error(nextLine, 'validation_failed', error.message.slice(0, 300));
    finish?.();
  });
  return out;
}

/**
 * NDJSON (one JSON object per line; blank lines skipped) to staging lines. A line is kept as the
 * chunks it arrived in, only each new chunk is searched for its end, and it is joined and decoded
 * once, when it ends: linear in the file's size. A line over MAX_IMPORT_LINE_BYTES refuses the
 * file as soon as it passes the limit (ImportLineRefusedError, a 400 naming the line).
 */
export function ndjsonToStaging(checker: RowChecker): Transform {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
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
    const unknown = new NameList();
    for (const key of Object.keys(value)) if (!KNOWN.has(key)) unknown.add(key);
    if (unknown.total) throw new UnknownColumnsError(unknown.names, line, unknown.total);
    batch.add(checker.stage(line, value as Record<string, unknown>));
  };
  /** Adds a piece of the current line (`line + 1`); refuses the file once it is too long. */
  const add = (piece: Buffer): void => {
    if (pendingBytes + piece.length > MAX_IMPORT_LINE_BYTES) throw tooLong(line + 1);
    if (!piece.length) return;
    pending.push(piece);
    pendingBytes += piece.length;
  };
  const endLine = (): void => {
    const bytes = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    take(bytes.toString('utf8'));
  };
  const out = new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      checker.stats.bytes += chunk.length;
      try {
        let start = 0;
        // A line feed byte is never part of another UTF-8 character: lines split on bytes.
        for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
          add(chunk.subarray(start, end));
          endLine();
          start = end + 1;
        }
        add(chunk.subarray(start));
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
    flush(callback: TransformCallback) {
      try {
        if (pendingBytes) endLine();
        batch.flush();
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
  });
  return out;
}
