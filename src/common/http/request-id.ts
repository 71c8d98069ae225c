import type { NextFunction, Request, Response } from 'express';
import { ulid } from 'ulid';

const VALID = /^[A-Za-z0-9._:-]{1,128}$/;
export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * Gives every request an id before anything else runs (body parsing may already fail), echoing a
 * well-formed incoming `X-Request-Id` and inventing one otherwise. The logger and the problem
 * filter read it from `req.id`.
 */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.header(REQUEST_ID_HEADER);
  const id = incoming && VALID.test(incoming) ? incoming : ulid();
  req.id = id;
  res.setHeader(REQUEST_ID_HEADER, id);
  next();
}
