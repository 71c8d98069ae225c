import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { REQUEST_ID_HEADER, requestIdFrom } from '../common/http/request-id';
import { countRequest } from '../common/metrics/http-metrics';
import { DeeplinksService } from './deeplinks.service';

const SHORT_LINK_PATH = /^\/s\/[A-Za-z0-9]{8}$/;
const LABELS = { method: 'GET', route: '/s/:code', status_code: '302' } as const;

/**
 * Answers `GET /s/:code` for links whose redirect is already in memory before Express and the
 * Nest pipeline see the request: a short link is the one public URL that is followed at
 * marketing-campaign rates, and its answer is a constant 302 (docs/architecture.md, "Short
 * links"). The click is still counted (ClickCounter) and the request still appears in the HTTP
 * metrics. Everything else (a first visit, a landing page, an unknown code, a query string, any
 * other path) goes through the full pipeline, which then fills the cache.
 */
export function serveCachedShortLinksFirst(app: INestApplication): void {
  const links = app.get(DeeplinksService);
  const server = app.getHttpServer() as Server;
  const pipeline = server.listeners('request') as RequestListener[];
  if (pipeline.length !== 1) throw new Error('expected one request listener (Express)');
  const [express] = pipeline;
  server.removeListener('request', express);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const location =
      req.method === 'GET' && req.url && SHORT_LINK_PATH.test(req.url)
        ? links.followCachedRedirect(req.url.slice(3))
        : undefined;
    if (location === undefined) return express(req, res);
    const start = process.hrtime.bigint();
    res.writeHead(302, {
      Location: location,
      'Cache-Control': 'no-store',
      'Content-Length': '0',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
      [REQUEST_ID_HEADER]: requestIdFrom(req.headers['x-request-id']),
    });
    res.end();
    countRequest(LABELS, start);
  });
}
