import express, { NextFunction, Request, Response } from 'express';
import typeis from 'type-is';
import { DomainError, ValidationFailedError } from '../errors/domain-error';

export const BODY_LIMIT = '64kb';
const JSON_TYPES = ['application/json', 'application/*+json'];
/** The JSON APIs; HTML pages (popup, admin pages) parse their own forms. */
const JSON_API = /^\/(admin|federation|embed)\//;

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
 * JSON bodies only on the JSON APIs (SPEC 1): a body of another type is 415, one over 64 KiB is 413
 * (raised by the parser, mapped by the problem filter), and the top level must be an object.
 */
export function jsonBodyMiddlewares() {
  const parse = express.json({ limit: BODY_LIMIT, type: JSON_TYPES, strict: true });
  return [
    (req: Request, _res: Response, next: NextFunction) => {
      // `Content-Length: 0` (curl -X POST) is no body at all.
      const hasBody = typeis.hasBody(req) && req.headers['content-length'] !== '0';
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
      const known = PARSER_ERRORS[(error as { type?: string } | null)?.type ?? ''];
      next(known ? new DomainError(known.status, known.code, known.detail) : error);
    },
    (req: Request, _res: Response, next: NextFunction) => {
      if (req.body !== undefined && (typeof req.body !== 'object' || Array.isArray(req.body))) {
        return next(new DomainError(400, 'validation_failed', 'The body must be a JSON object.'));
      }
      const reserved = req.body === undefined ? undefined : reservedKeyPath(req.body);
      if (reserved) {
        return next(
          new ValidationFailedError([
            { field: reserved, message: 'uses a reserved key (__proto__, constructor, prototype)' },
          ]),
        );
      }
      next();
    },
  ];
}

const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The path of the first reserved key anywhere in a parsed body. Such keys cannot be carried
 * faithfully through object mapping (and are the stuff of prototype pollution), so they are
 * refused rather than silently dropped.
 */
function reservedKeyPath(value: unknown, path = ''): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  for (const key of Object.keys(value)) {
    const here = path ? `${path}.${key}` : key;
    if (RESERVED_KEYS.has(key)) return here;
    const nested = reservedKeyPath((value as Record<string, unknown>)[key], here);
    if (nested) return nested;
  }
  return undefined;
}
