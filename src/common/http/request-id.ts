import type { NextFunction, Request, Response } from 'express';
import { newUlid } from '../ids';

const VALID = /^[A-Za-z0-9._:-]{1,128}$/;
export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * Gives every request an id before anything else runs (body parsing may already fail), echoing a
 * well-formed incoming `X-Request-Id` and inventing one otherwise. The logger and the problem
 * filter read it from `req.id`.
 */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const id = requestIdFrom(req.headers['x-request-id']);
  req.id = id;
  res.setHeader(REQUEST_ID_HEADER, id);
  next();
}

/** A well-formed incoming `X-Request-Id`, or a new id. */
export function requestIdFrom(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && VALID.test(incoming) ? incoming : newUlid();
}
