import { parse as parseCsv } from 'csv-parse';
import type { Request } from 'express';
import { isUtf8 } from 'node:buffer';
import { Readable } from 'node:stream';
import { restoreCsvCell } from '../common/csv/csv';
import {
  DomainError,
  type FieldError,
  MAX_LISTED_ERRORS,
  ValidationFailedError,
} from '../common/errors/domain-error';
import { textProblem } from '../common/http/hostile-input';
import { detachableBody } from '../common/http/request-body';

/** A settle file may list a whole run: 16 MiB is ~150,000 lines. */
export const CSV_BODY_LIMIT = 16 * 1024 * 1024;
/** docs/payouts.md §5: a settle file's record is at most 64 KiB… */
export const MAX_SETTLE_RECORD = 64 * 1024;
/** …and it has at most 100 columns (the run file has 8 to 10, and the `reference`). */
export const MAX_SETTLE_COLUMNS = 100;
/** csv-parse is fed at most this much at a time, so that its fields are counted often. */
const PIECE = 16 * 1024;

/** The columns settling reads; the file may have others, which are checked and ignored. */
export interface SettleRecord {
  payout_id?: string;
  amount_kopecks?: string;
  amount?: string;
  reference?: string;
}
export interface SettleLine {
  /** The line the record starts on (line 1 is the header). */
  line: number;
  record: SettleRecord;
}
const READ = ['payout_id', 'amount_kopecks', 'amount', 'reference'] as const;

/**
 * The settle file of a `text/csv` request (the JSON body parser leaves it unread on the settle
 * route, src/common/http/json-body.ts), parsed as it arrives: 415 for another type, 413 beyond
 * 16 MiB, and 400 `validation_failed` for a file that is not the run CSV with a `reference`
 * column, or breaks the one rule of text every route has (common/http/hostile-input.ts): bytes
 * that are not UTF-8, control characters, in any cell or column name. A record over 64 KiB or of
 * more than 100 fields stops the parse there. The answer waits until the body is read (drained),
 * so that a client still sending sees it.
 */
export async function readSettleFile(req: Request): Promise<SettleLine[]> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'text/csv')
    throw new DomainError(415, 'unsupported_media_type', 'Send the file as text/csv.');
  const body = detachableBody(req, 2 * CSV_BODY_LIMIT);
  try {
    return await parseSettleFile(body.stream);
  } catch (error) {
    body.stream.destroy();
    await body.drain();
    throw error;
  }
}

/** Refuses the file at once (no more of it is read). */
class Refusal extends Error {
  constructor(readonly error: DomainError) {
    super(error.detail);
  }
}

const notCsv = (line: number, message: string) =>
  new Refusal(
    new ValidationFailedError(
      [{ field: `line ${line}`, message: message.slice(0, 300) }],
      'The body is not a readable CSV file.',
    ),
  );

/** A settle file pasted as text (the console's form, itself at most 64 KiB), checked the same. */
export function parseSettleText(text: string): Promise<SettleLine[]> {
  return parseSettleFile(Readable.from([Buffer.from(text, 'utf8')]));
}

/** The settle file read from `stream`, or the problem (a DomainError) that refuses it. */
export async function parseSettleFile(stream: Readable): Promise<SettleLine[]> {
  const parser = parseCsv({
    bom: true,
    relax_column_count: true,
    max_record_size: MAX_SETTLE_RECORD,
  });
  const lines: SettleLine[] = [];
  const errors: FieldError[] = [];
  let errorCount = 0;
  const fail = (line: number, message: string) => {
    errorCount++;
    if (errors.length < MAX_LISTED_ERRORS) errors.push({ field: `line ${line}`, message });
  };
  let header: string[] | undefined;
  let at: Partial<Record<(typeof READ)[number], number>> = {};
  let nextLine = 1;
  let refused: Refusal | undefined;

  parser.on('data', (record: string[]) => {
    if (refused) return;
    const line = nextLine;
    nextLine++;
    for (const field of record) if (field.includes('\n')) nextLine += field.split('\n').length - 1;
    if (record.length === 1 && record[0] === '') return; // a blank line
    if (record.length > MAX_SETTLE_COLUMNS) {
      refused = notCsv(line, `has more than ${MAX_SETTLE_COLUMNS} fields`);
      return;
    }
    if (!header) {
      header = record;
      at = Object.fromEntries(
        READ.map((name) => [name, header!.indexOf(name)]).filter(([, i]) => i !== -1),
      );
      header.forEach((name, i) => {
        const problem = textProblem(name);
        if (problem) fail(line, `column ${i + 1} ${problem}`);
      });
      return;
    }
    if (record.length !== header.length) {
      fail(line, `has ${record.length} fields, the header ${header.length}`);
      return;
    }
    let clean = true;
    for (let i = 0; i < record.length && clean; i++) {
      const problem = textProblem(record[i]);
      if (problem) {
        fail(line, `${cut(header[i]) || `column ${i + 1}`} ${problem}`);
        clean = false;
      }
    }
    if (!clean) return;
    const values: SettleRecord = {};
    for (const name of READ)
      if (at[name] !== undefined) values[name] = restoreCsvCell(record[at[name]]);
    lines.push({ line, record: values });
  });
  const ended = new Promise<void>((resolve, reject) => {
    parser.once('end', resolve);
    parser.on('error', (error: Error & { code?: string }) => {
      refused ??=
        error.code === 'CSV_MAX_RECORD_SIZE'
          ? notCsv(nextLine, `is longer than ${MAX_SETTLE_RECORD / 1024} KiB`)
          : notCsv(nextLine, error.message);
      reject(refused);
    });
  });
  ended.catch(() => undefined);

  const stopped = () => refused !== undefined || parser.destroyed;
  let size = 0;
  const utf8 = new Utf8Lines();
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > CSV_BODY_LIMIT)
      throw new DomainError(413, 'payload_too_large', 'The file is larger than 16 MiB.');
    const bad = utf8.check(chunk);
    if (bad !== undefined) {
      throw new ValidationFailedError([{ field: `line ${bad}`, message: 'must be valid UTF-8' }]);
    }
    for (let from = 0; from < chunk.length && !stopped(); from += PIECE) {
      const flowing = parser.write(chunk.subarray(from, from + PIECE));
      // A parser that failed is destroyed (its error comes on the next tick) and never drains.
      if (!flowing && !stopped()) {
        await new Promise((resolve) => {
          parser.once('drain', resolve);
          parser.once('close', resolve);
        });
      }
      if (!stopped() && csvFieldsSoFar(parser) > MAX_SETTLE_COLUMNS) {
        refused = notCsv(nextLine, `has more than ${MAX_SETTLE_COLUMNS} fields`);
      }
    }
    if (stopped()) {
      if (!refused) await ended.catch(() => undefined); // the parser's error sets it
      throw refused!.error;
    }
  }
  const last = utf8.end();
  if (last !== undefined) {
    throw new ValidationFailedError([{ field: `line ${last}`, message: 'must be valid UTF-8' }]);
  }
  parser.end();
  try {
    await ended;
  } catch {
    throw refused!.error;
  }
  if (refused) throw refused.error;

  const missing = header
    ? ['payout_id', 'amount_kopecks', 'reference'].filter((c) => !header!.includes(c))
    : [];
  if (!header || missing.length || (!lines.length && !errorCount))
    throw new ValidationFailedError(
      missing.length
        ? missing.map((c) => ({ field: 'line 1', message: `column ${c} is missing` }))
        : [{ field: 'body', message: 'the file lists no payout' }],
      'The file must be the run CSV with a reference column.',
    );
  if (errorCount)
    throw new ValidationFailedError(
      errors,
      `${errorCount} line(s) of the file are refused; nothing was marked paid.`,
      errorCount,
    );
  return lines;
}

/** A value quoted in an error message: at most 64 characters of it. */
export function cut(value: string): string {
  return value.length > 64 ? `${value.slice(0, 64)}…` : value;
}

/** The fields of the record csv-parse is in the middle of (see transfer/import-rows.ts). */
function csvFieldsSoFar(parser: object): number {
  return (parser as { state: { record: unknown[] } }).state.record.length;
}

/**
 * Checks a body chunk by chunk for bytes that are not UTF-8 (node:buffer's isUtf8: overlong
 * forms, surrogates and bytes no character starts with are refused), carrying a character cut
 * between two chunks over, and counts lines so that the first bad byte's line can be named.
 */
export class Utf8Lines {
  private carry = Buffer.alloc(0);
  private line = 1;

  /** The line of the first byte that is not UTF-8, or undefined. */
  check(chunk: Buffer): number | undefined {
    const bytes = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
    const cut = incompleteTail(bytes);
    const whole = bytes.subarray(0, bytes.length - cut);
    if (!isUtf8(whole)) return this.line + newlines(whole, firstInvalid(whole));
    this.line += newlines(whole, whole.length);
    this.carry = Buffer.from(bytes.subarray(bytes.length - cut));
    return undefined;
  }

  /** At the end of the body: the line of a character left unfinished, or undefined. */
  end(): number | undefined {
    return this.carry.length ? this.line : undefined;
  }
}

/** How many bytes at the end of `bytes` start a character that the next chunk may finish. */
function incompleteTail(bytes: Buffer): number {
  for (let back = 1; back <= 3 && back <= bytes.length; back++) {
    const byte = bytes[bytes.length - back];
    if (byte < 0x80) return 0;
    if (byte >= 0xc0) {
      const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      return length > back ? back : 0;
    }
  }
  return 0;
}

function newlines(bytes: Buffer, end: number): number {
  let count = 0;
  for (let i = bytes.indexOf(10); i !== -1 && i < end; i = bytes.indexOf(10, i + 1)) count++;
  return count;
}

/** The offset of the first byte of `bytes` (not UTF-8 as a whole) that breaks it. */
function firstInvalid(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length) {
    const next = characterEnd(bytes, i);
    if (next === -1) return i;
    i = next;
  }
  return bytes.length;
}

function characterEnd(bytes: Buffer, i: number): number {
  const b = bytes[i];
  if (b < 0x80) return i + 1;
  // The length of the character `b` starts, and the range of its second byte (RFC 3629 §4).
  const [length, lowest, highest] =
    b >= 0xc2 && b <= 0xdf
      ? [2, 0x80, 0xbf]
      : b === 0xe0
        ? [3, 0xa0, 0xbf]
        : b === 0xed
          ? [3, 0x80, 0x9f]
          : b >= 0xe1 && b <= 0xef
            ? [3, 0x80, 0xbf]
            : b === 0xf0
              ? [4, 0x90, 0xbf]
              : b === 0xf4
                ? [4, 0x80, 0x8f]
                : b >= 0xf1 && b <= 0xf3
                  ? [4, 0x80, 0xbf]
                  : [0, 0, 0];
  if (!length || i + length > bytes.length) return -1;
  if (bytes[i + 1] < lowest || bytes[i + 1] > highest) return -1;
  for (let k = 2; k < length; k++) if ((bytes[i + k] & 0xc0) !== 0x80) return -1;
  return i + length;
}
