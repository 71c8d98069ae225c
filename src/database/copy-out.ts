import { escapeLiteral, type Pool } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { Readable } from 'node:stream';
import type { DataSource } from 'typeorm';
import { checkOut } from './checkout';

/**
 * `COPY … TO STDOUT` streamed from a pooled connection of its own (never the whole result in
 * memory; one snapshot, so the file is consistent). The connection goes back to the pool when
 * the stream ends; a failed copy, or one whose reader went away (the stream destroyed before its
 * end), discards it, since it is still mid-COPY.
 */
export async function copyOut(dataSource: DataSource, sql: string): Promise<Readable> {
  const pool = (dataSource.driver as unknown as { master: Pool }).master;
  const client = await checkOut(pool);
  const stream = client.query(copyTo(sql));
  let released = false;
  const release = (error?: Error) => {
    if (released) return;
    released = true;
    client.release(error ?? false);
  };
  stream.on('end', () => release());
  stream.on('error', (error: Error) => release(error));
  stream.on('close', () => release(released ? undefined : new Error('copy abandoned')));
  return stream;
}

/**
 * `sql` with its `$n` placeholders replaced by `values` as quoted literals: COPY takes no
 * parameters.
 */
export function withLiterals(sql: string, values: readonly unknown[]): string {
  return sql.replace(/\$(\d+)/g, (_, i: string) => escapeLiteral(String(values[Number(i) - 1])));
}
