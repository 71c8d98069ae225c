import type { Request } from 'express';
import { DomainError } from '../common/errors/domain-error';

/** A settle file may list a whole run: 16 MiB is ~150,000 lines. */
export const CSV_BODY_LIMIT = 16 * 1024 * 1024;

/**
 * The body of a `text/csv` request as UTF-8 text (the JSON body parser leaves it unread on the
 * settle route, src/common/http/json-body.ts): 415 for another type, 413 beyond the limit.
 */
export async function readCsvBody(req: Request): Promise<string> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'text/csv')
    throw new DomainError(415, 'unsupported_media_type', 'Send the file as text/csv.');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > CSV_BODY_LIMIT)
      throw new DomainError(413, 'payload_too_large', 'The file is larger than 16 MiB.');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
