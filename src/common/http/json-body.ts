import express, { NextFunction, Request, Response } from 'express';
import typeis from 'type-is';
import { DomainError } from '../errors/domain-error';

export const BODY_LIMIT = '64kb';
const JSON_TYPES = ['application/json', 'application/*+json'];
/** The JSON APIs; HTML pages (popup, admin pages) parse their own forms. */
const JSON_API = /^\/(admin|federation|embed)\//;

/**
 * JSON bodies only on the JSON APIs (SPEC 1): a body of another type is 415, one over 64 KiB is 413
 * (raised by the parser, mapped by the problem filter), and the top level must be an object.
 */
export function jsonBodyMiddlewares() {
  const parse = express.json({ limit: BODY_LIMIT, type: JSON_TYPES, strict: true });
  return [
    (req: Request, _res: Response, next: NextFunction) => {
      if (JSON_API.test(req.path) && typeis.hasBody(req) && !typeis(req, JSON_TYPES)) {
        return next(
          new DomainError(415, 'unsupported_media_type', 'Send the body as application/json.'),
        );
      }
      next();
    },
    parse,
    (req: Request, _res: Response, next: NextFunction) => {
      if (req.body !== undefined && (typeof req.body !== 'object' || Array.isArray(req.body))) {
        return next(new DomainError(400, 'validation_failed', 'The body must be a JSON object.'));
      }
      next();
    },
  ];
}
