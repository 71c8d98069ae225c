import { escapeLiteral } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { PassThrough, type Readable, Transform, type TransformCallback } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { DataSource } from 'typeorm';
import { CsvLines, type CsvSpec } from '../common/csv/csv';
import { checkOut } from './checkout';
import { rawPool } from './raw-pool';
import { LONG_STATEMENT_TIMEOUT } from './timeouts';

/**
 * `COPY … TO STDOUT` streamed from a pooled connection of its own (never the whole result in
 * memory; one snapshot, so the file is consistent), under LONG_STATEMENT_TIMEOUT. The connection
 * goes back to the pool before the stream ends; a failed copy, or one whose reader went away (the
 * stream destroyed before its end), discards it, since it is still mid-COPY.
 */
export async function copyOut(dataSource: DataSource, sql: string): Promise<Readable> {
  const client = await checkOut(rawPool(dataSource));
  // A big export to a slow reader is one long statement: its own timeout, in its transaction.
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL statement_timeout = '${LONG_STATEMENT_TIMEOUT}'`);
  } catch (error) {
    client.release(true);
    throw error;
  }
  const copy = client.query(copyTo(sql));
  // What the caller reads ends only once the transaction is committed and the connection is back
  // in the pool: a finished download holds no connection.
  const out = new PassThrough();
  let settled = false;
  const discard = (error: Error) => {
    if (settled) return;
    settled = true;
    client.release(error);
  };
  copy.on('error', (error: Error) => {
    discard(error);
    out.destroy(error);
  });
  copy.on('end', () => {
    client.query('COMMIT').then(
      () => {
        if (settled) return;
        settled = true;
        client.release();
        out.end();
      },
      (error: Error) => {
        discard(error);
        out.destroy(error);
      },
    );
  });
  out.on('close', () => {
    if (settled) return;
    discard(new Error('copy abandoned'));
    copy.destroy();
  });
  copy.pipe(out, { end: false });
  return out;
}

/**
 * `sql` with its `$n` placeholders replaced by `values` as quoted literals: COPY takes no
 * parameters.
 */
export function withLiterals(sql: string, values: readonly unknown[]): string {
  return sql.replace(/\$(\d+)/g, (_, i: string) => escapeLiteral(String(values[Number(i) - 1])));
}

/** One field of COPY's text format: `\N` is null, backslash escapes undone. */
function unescapeCopy(field: string): string | null {
  if (field === '\\N') return null;
  if (!field.includes('\\')) return field;
  return field.replace(/\\(.)/g, (_, c: string) =>
    c === 'n'
      ? '\n'
      : c === 't'
        ? '\t'
        : c === 'r'
          ? '\r'
          : c === 'b'
            ? '\b'
            : c === 'f'
              ? '\f'
              : c === 'v'
                ? '\v'
                : c,
  );
}

/**
 * COPY's text rows (one per `\n`, fields split by tabs) as CSV lines of `lines` (header first),
 * pushed in chunks of about 64 KiB.
 */
function copyTextToCsv(lines: CsvLines): Transform {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let out = lines.header;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      const rows = (pending + decoder.write(chunk)).split('\n');
      pending = rows.pop()!;
      for (const row of rows) out += lines.line(row.split('\t').map(unescapeCopy));
      if (out.length >= 65536) {
        this.push(out);
        out = '';
      }
      callback();
    },
    flush(callback: TransformCallback) {
      const rest = pending + decoder.end();
      if (rest) out += lines.line(rest.split('\t').map(unescapeCopy));
      if (out) this.push(out);
      callback();
    },
  });
}

/**
 * The CSV of `select`'s rows (its columns in the order of `spec.columns`), streamed: `COPY
 * (select) TO STDOUT` in COPY's text format, each row written by the one CSV writer's CsvLines
 * (common/csv/csv.ts: RFC 4180, CRLF, header row, the formula rule on text cells). Never the
 * whole result in memory; one snapshot, so the file is consistent. The reader going away before
 * the end stops the copy (and its connection is not reused); a failed copy fails the stream.
 */
export async function copyCsv(
  dataSource: DataSource,
  select: string,
  spec: CsvSpec,
): Promise<Readable> {
  const source = await copyOut(dataSource, `COPY (${select}) TO STDOUT`);
  const csv = copyTextToCsv(new CsvLines(spec));
  source.on('error', (error) => csv.destroy(error));
  csv.on('close', () => {
    if (!source.readableEnded) source.destroy();
  });
  source.pipe(csv);
  return csv;
}
