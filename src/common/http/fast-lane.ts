import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import proxyaddr from 'proxy-addr';
import { countRequest } from '../metrics/http-metrics';
import { requestTargetProblem } from './hostile-input';
import { REQUEST_ID_HEADER, requestIdFrom } from './request-id';

/**
 * Writes a lane's answer with what the pipeline adds to every answer: the security headers, the
 * request id, the HTTP metrics under the route pattern, and the access-log line.
 */
export type LaneReply = (
  status: number,
  route: string,
  headers: Record<string, string>,
  body?: string,
) => void;

/**
 * A handler that answers some requests on the HTTP server itself, ahead of Express and the Nest
 * pipeline: the hottest public reads, and only their successful answers (docs/architecture.md,
 * "Fast lanes"). It answers through `reply` and returns `true`, or returns `false` having written
 * nothing, and the request goes on to the full pipeline untouched: a lane never writes a refusal
 * or an error, the pipeline does, with its problem documents.
 */
export interface FastLane {
  /**
   * The routes the lane answers, as `METHOD /express/:pattern`. Each is also a controller route,
   * which documents it in OpenAPI (test/e2e/openapi-routes.e2e-spec.ts checks both).
   */
  readonly routes: readonly string[];
  handle(req: IncomingMessage, lane: LaneContext): boolean | Promise<boolean>;
}

export interface LaneContext {
  reply: LaneReply;
  /** The client address exactly as Express's `req.ip` gives it (its `trust proxy` setting). */
  clientIp(): string;
}

const logger = new Logger('FastLane');

/**
 * Puts `lanes` in front of the application's request listener (Express), tried in order.
 * `securityHeaders` are the pipeline's constant response headers (helmet's, see headersSetBy).
 */
export function installFastLanes(
  app: INestApplication,
  lanes: FastLane[],
  securityHeaders: Record<string, string>,
): void {
  const server = app.getHttpServer() as Server;
  const listeners = server.listeners('request') as RequestListener[];
  if (listeners.length !== 1) throw new Error('expected one request listener (Express)');
  const [pipeline] = listeners;
  server.removeListener('request', pipeline);
  const trustProxy = (app.getHttpAdapter().getInstance() as { get(name: string): unknown }).get(
    'trust proxy fn',
  ) as Parameters<typeof proxyaddr>[1];

  const replyTo =
    (req: IncomingMessage, res: ServerResponse, start: bigint): LaneReply =>
    (status, route, headers, body = '') => {
      const reqId = requestIdFrom(req.headers['x-request-id']);
      res.writeHead(status, {
        ...securityHeaders,
        ...headers,
        'Content-Length': String(Buffer.byteLength(body)),
        [REQUEST_ID_HEADER]: reqId,
      });
      res.end(body);
      countRequest({ method: req.method ?? 'GET', route, status_code: String(status) }, start);
      const log = PinoLogger.root;
      if (log?.isLevelEnabled('info')) {
        log.info(
          { reqId, req: { method: req.method, url: req.url }, res: { statusCode: status } },
          'request completed',
        );
      }
    };

  const failed = (error: unknown) =>
    // Not expected (lanes hand on every refusal): the pipeline answers instead.
    logger.warn({ err: error }, 'fast lane failed; handing the request on');

  /** Tries lanes `from`… in order, then the pipeline; synchronous lanes cost no microtask. */
  const dispatch = (req: IncomingMessage, res: ServerResponse, from: number, start: bigint) => {
    for (let i = from; i < lanes.length; i++) {
      let answered: boolean | Promise<boolean>;
      try {
        answered = lanes[i].handle(req, {
          reply: replyTo(req, res, start),
          clientIp: () => proxyaddr(req, trustProxy),
        });
      } catch (error) {
        failed(error);
        if (res.headersSent) return;
        continue;
      }
      if (answered === true) return;
      if (answered !== false) {
        answered.then(
          (done) => done || dispatch(req, res, i + 1, start),
          (error: unknown) => {
            failed(error);
            if (!res.headersSent) dispatch(req, res, i + 1, start);
          },
        );
        return;
      }
    }
    pipeline(req, res);
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) =>
    // A hostile request target is never a lane's: the pipeline refuses it (hostile-input.ts).
    requestTargetProblem(req.url ?? '/')
      ? pipeline(req, res)
      : dispatch(req, res, 0, process.hrtime.bigint()),
  );
}

type HeaderMiddleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/** The constant headers a header-only middleware (helmet) sets, captured once at start. */
export function headersSetBy(middleware: HeaderMiddleware): Record<string, string> {
  const headers: Record<string, string> = {};
  const res = {
    setHeader: (name: string, value: unknown) => (headers[name] = String(value)),
    removeHeader: () => undefined,
    getHeader: () => undefined,
  };
  middleware(
    { method: 'GET', url: '/', headers: {} } as IncomingMessage,
    res as unknown as ServerResponse,
    () => undefined,
  );
  return headers;
}
