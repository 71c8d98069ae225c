import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { ALLOW_ORIGIN, EmbedOriginPolicy } from './embed-origin';

/**
 * CORS for the Embed APIs (SPEC 4): `Vary: Origin` on every answer, errors included, and the
 * preflight answered here (204 for an allowed origin, the same 403 as the request would get
 * otherwise). Credentials are never allowed. The actual request's origin check is the guard's.
 */
@Injectable()
export class EmbedCorsMiddleware implements NestMiddleware {
  constructor(private readonly policy: EmbedOriginPolicy) {}

  use(req: Request, res: Response, next: NextFunction): void {
    res.vary('Origin');
    if (req.method !== 'OPTIONS') return next();
    this.policy.resolve(req).then(({ origin }) => {
      res.setHeader(ALLOW_ORIGIN, origin);
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST');
      res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type');
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
    }, next);
  }
}
