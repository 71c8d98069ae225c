import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import type { ErrorHeaders } from '../common/errors/problem.filter';
import { credentialsOf } from './credentials';
import { ALLOW_ORIGIN, EmbedOriginPolicy } from './embed-origin';

/**
 * CORS for the Embed APIs (docs/embedding.md §3): `Vary: Origin` on every answer, errors included,
 * and the preflight answered here (204 for an allowed origin, the same 403 as the request would get
 * otherwise). Credentials are never allowed. The actual request's origin check is AccessService's.
 */
@Injectable()
export class EmbedCorsMiddleware implements NestMiddleware {
  constructor(private readonly policy: EmbedOriginPolicy) {}

  use(req: Request, res: Response, next: NextFunction): void {
    res.vary('Origin');
    if (req.method !== 'OPTIONS') return next();
    const { tenant, origin, secFetchSite } = credentialsOf(req);
    this.policy.check(tenant, origin, secFetchSite).then(({ origin }) => {
      res.setHeader(ALLOW_ORIGIN, origin);
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST');
      res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type');
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
    }, next);
  }
}

/**
 * docs/embedding.md §3: every Embed answer to an allowed Origin carries CORS, errors included, so a
 * page can read the code and Retry-After. Errors raised before the guard (body parsing, the request
 * target) have not been through the Origin gate yet: ProblemFilter asks here (ERROR_HEADERS).
 */
@Injectable()
export class EmbedErrorCors implements ErrorHeaders {
  constructor(private readonly policy: EmbedOriginPolicy) {}

  of(req: Request, res: Response): Promise<Record<string, string>> | undefined {
    if (!req.path.startsWith('/embed/') || res.getHeader(ALLOW_ORIGIN) !== undefined) {
      return undefined;
    }
    res.vary('Origin');
    const { tenant, origin, secFetchSite } = credentialsOf(req);
    return this.policy
      .check(tenant, origin, secFetchSite)
      .then((gate) => ({ [ALLOW_ORIGIN]: gate.origin }));
  }
}
