import express, { NextFunction, Request, Response } from 'express';
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import typeis from 'type-is';
import { DomainError, ValidationFailedError } from '../errors/domain-error';
import { bodyProblem } from './hostile-input';

export const BODY_LIMIT = '64kb';
const JSON_TYPES = ['application/json', 'application/*+json'];
/** The JSON APIs; HTML pages (popup, admin pages) parse their own forms. */
export const JSON_API = /^\/(admin|federation|embed)\//;

/** Routes that read their own body as a stream: the member import (docs/import-export.md). */
const STREAMED_BODY = /^\/admin\/v1\/tenants\/[^/]+\/imports\/?$/;

/** Routes that read a text/csv body themselves: a payout run's settle file (docs/payouts.md). */
export const CSV_BODY = /^\/admin\/v1\/tenants\/[^/]+\/payouts\/runs\/[^/]+\/settle\/?$/;

const UNREADABLE_BODY =
  'The body could not be read: its Content-Encoding does not match its bytes, or it is cut short.';

/** body-parser names its failures in `error.type`. */
const PARSER_ERRORS: Record<string, { status: number; code: string; detail: string }> = {
  'entity.parse.failed': {
    status: 400,
    code: 'invalid_json',
    detail: 'The body is not valid JSON.',
  },
  'entity.too.large': {
    status: 413,
    code: 'payload_too_large',
    detail: 'The body is larger than 64 KiB.',
  },
  'encoding.unsupported': {
    status: 415,
    code: 'unsupported_media_type',
    detail: 'The body encoding is not supported.',
  },
  'charset.unsupported': {
    status: 415,
    code: 'unsupported_media_type',
    detail: 'The body charset is not supported.',
  },
  'request.aborted': {
    status: 400,
    code: 'validation_failed',
    detail: 'The body could not be read.',
  },
  'request.size.invalid': {
    status: 400,
    code: 'validation_failed',
    detail: 'The body could not be read.',
  },
};

/**
 * JSON bodies only on the JSON APIs (README.md, "API overview"): a body of another type is 415, one
 * over 64 KiB is 413 (raised by the parser, mapped by the problem filter), and the top level must
 * be UTF-8 and an object whose keys and strings pass bodyProblem (hostile-input.ts: depth,
 * reserved keys, control characters, unpaired surrogates).
 */
export function jsonBodyMiddlewares() {
  // The decoder would turn bytes that are not UTF-8 into U+FFFD, stored as if sent: refused
  // instead, as a settle file's are (hostile-input.ts, one rule of text for every route).
  const notUtf8 = new WeakSet<IncomingMessage>();
  const parse = express.json({
    limit: BODY_LIMIT,
    type: JSON_TYPES,
    strict: true,
    verify: (req: IncomingMessage, _res: unknown, bytes: Buffer) => {
      if (!isUtf8(bytes)) notUtf8.add(req);
    },
  });
  return [
    (req: Request, _res: Response, next: NextFunction) => {
      // `Content-Length: 0` (curl -X POST) is no body at all.
      const hasBody = typeis.hasBody(req) && req.headers['content-length'] !== '0';
      // A member import streams its CSV or NDJSON body itself (src/transfer/).
      if (req.method === 'POST' && STREAMED_BODY.test(req.path)) return next();
      if (req.method === 'POST' && CSV_BODY.test(req.path) && typeis(req, ['text/csv'])) {
        return next();
      }
      if (JSON_API.test(req.path) && hasBody && !typeis(req, JSON_TYPES)) {
        return next(
          new DomainError(415, 'unsupported_media_type', 'Send the body as application/json.'),
        );
      }
      next();
    },
    parse,
    // Nest would turn the parser's errors into bare HTTP exceptions; name them here instead.
    (error: unknown, _req: Request, _res: Response, next: NextFunction) => {
      if (error instanceof DomainError) return next(error); // refused before the parser
      const { type, status } = (error ?? {}) as { type?: unknown; status?: unknown };
      const known = PARSER_ERRORS[typeof type === 'string' ? type : ''];
      if (known) return next(new DomainError(known.status, known.code, known.detail));
      // Anything else the parser refuses is the client's body too, never a 500: above all a
      // `Content-Encoding` (gzip, deflate, br, zstd) whose bytes do not decompress.
      if (typeof status === 'number' && status >= 400 && status < 500) {
        return next(new DomainError(400, 'invalid_json', UNREADABLE_BODY));
      }
      next(error);
    },
    (req: Request, _res: Response, next: NextFunction) => {
      if (notUtf8.has(req)) {
        return next(new ValidationFailedError([{ field: 'body', message: 'must be valid UTF-8' }]));
      }
      if (req.body !== undefined && (typeof req.body !== 'object' || Array.isArray(req.body))) {
        return next(new DomainError(400, 'validation_failed', 'The body must be a JSON object.'));
      }
      const problem = req.body === undefined ? undefined : bodyProblem(req.body);
      if (problem) return next(new ValidationFailedError([problem]));
      next();
    },
  ];
}
