import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { type INestApplication, Injectable, Logger, type Type } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { PinoLogger } from 'nestjs-pino';
import { type HttpLogger, pinoHttp } from 'pino-http';
import proxyaddr from 'proxy-addr';
import { putOnRequest } from '../access/access.guard';
import { AccessService } from '../access/access.service';
import { credentialsOf } from '../access/credentials';
import type { Principal } from '../access/principal';
import { requestTargetProblem } from '../common/http/hostile-input';
import { httpLogOptions } from '../common/http/http-log';
import { REQUEST_ID_HEADER, requestIdFrom } from '../common/http/request-id';
import { countRequest } from '../common/metrics/http-metrics';
import { isPageResult } from '../common/pages/page';
import { pageAnswer } from '../common/pages/send';
import { parseQuery } from '../common/http/query';
import { AppConfig } from '../config/app-config';
import { trustProxyFn } from '../config/trust-proxy';
import { FAST_LANE } from './fast-lane.decorator';
import {
  type LaneRequest,
  type LaneRoute,
  laneRoute,
  type LaneValidation,
  resolveArgs,
} from './lane-route';

/** What the lanes take from the pipeline that app.setup.ts builds. */
export interface PipelineParts {
  /** The global ValidationPipe, the one instance the pipeline runs, and its options. */
  validation: LaneValidation;
  /** The constant headers the security middleware (helmet) gives an answer on `path`. */
  securityHeaders: (path: string) => Readonly<Record<string, string>>;
}

/** An answer: its status, headers as a flat list (`name, value, …`), names to omit, body. */
type Answer = { status: number; headers: string[]; omit: string[]; body: string };

/** One request on its way through a lane. */
interface LaneCall {
  route: LaneRoute;
  req: IncomingMessage;
  res: ServerResponse;
  start: bigint;
  lane: LaneRequest;
  args: unknown[];
}

const logger = new Logger('FastLanes');

/**
 * The routes marked `@FastLane()`, answered on the HTTP server ahead of Express and the Nest
 * pipeline (docs/architecture.md, "Fast lanes"), from the routes' own definitions read at
 * start-up: the path (route metadata), the query DTO and the parameters (through the pipeline's
 * ValidationPipe), the access policy and rate limits (AccessService), the status and headers
 * (`@HttpCode`, `@Header`, the page results), and the handler itself. Every answer carries what
 * the pipeline's middleware adds: the security headers, `X-Request-Id`, the HTTP metrics under
 * the route pattern and the access-log line (the same pino-http options). Whatever the lane does
 * not take (another method, a body, an unparsed path) and whatever the access, the validation or
 * the handler refuses goes on to the pipeline untouched, which answers it.
 */
@Injectable()
export class FastLanes {
  private routes: LaneRoute[] = [];
  private parts: PipelineParts;
  private trustProxy: Parameters<typeof proxyaddr>[1];
  private accessLog?: HttpLogger<IncomingMessage, ServerResponse>;
  private readonly baseHeaders = new Map<LaneRoute, { flat: string[]; lower: Set<string> }>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly access: AccessService,
    private readonly config: AppConfig,
  ) {}

  /** The routes the lanes answer, `GET /express/:pattern` each. */
  get patterns(): string[] {
    return this.routes.map((route) => `GET ${route.pattern}`);
  }

  /** Puts the lanes in front of the application's request listener (Express). */
  install(app: INestApplication, parts: PipelineParts): void {
    this.parts = parts;
    // Whom req.ip names and what req.query holds, from what app.setup.ts gives Express through
    // its documented settings (`trust proxy`, `query parser`): the same config and function.
    this.trustProxy = trustProxyFn(this.config.trustProxy);
    this.routes = this.discover();
    const server = app.getHttpServer() as Server;
    const listeners = server.listeners('request');
    if (listeners.length !== 1) throw new Error('expected one request listener (Express)');
    const pipeline = listeners[0] as (req: IncomingMessage, res: ServerResponse) => void;
    server.removeListener('request', pipeline);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const answered = this.handle(req, res);
      if (answered === false) pipeline(req, res);
      else if (answered !== true) {
        answered.then(
          (done) => done || pipeline(req, res),
          (error: unknown) => {
            logger.warn({ err: error }, 'fast lane failed; handing the request on');
            if (!res.headersSent) pipeline(req, res);
          },
        );
      }
    });
  }

  /**
   * Answers the request (true, or a promise of true), or leaves it untouched for the pipeline
   * (false). Each step goes on at once unless it has to wait: a followed short link, answered
   * from memory, costs no promise of the lane's own.
   */
  handle(req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean> {
    const url = req.url ?? '/';
    // A body is the pipeline's to read; a hostile target its to refuse (hostile-input.ts).
    if (req.method !== 'GET' || hasBody(req) || requestTargetProblem(url)) return false;
    const queryAt = url.indexOf('?');
    const found = this.match(queryAt < 0 ? url : url.slice(0, queryAt));
    if (!found) return false;
    const call: LaneCall = {
      route: found.route,
      req,
      res,
      start: process.hrtime.bigint(),
      args: [],
      lane: new LaneRequestOf(req, url, queryAt, found.params, this.trustProxy),
    };
    let answered: true | Promise<true>;
    try {
      answered = this.parse(call);
    } catch {
      return res.headersSent; // refused or failed: the pipeline answers it
    }
    return answered === true ? true : answered.catch(() => res.headersSent);
  }

  // The steps of a lane, in the pipeline's order but for one thing: the parameters and the query
  // are checked before access, so that a request they refuse does not count a rate limit.

  private parse(call: LaneCall): true | Promise<true> {
    const parsed = resolveArgs(call.route, call.lane, this.parts.validation, false, call.args);
    return parsed ? parsed.then(() => this.authorize(call)) : this.authorize(call);
  }

  private authorize(call: LaneCall): true | Promise<true> {
    const { access } = call.route;
    const principal =
      this.access.needsNothing(access) ?? this.access.authorize(access, credentialsOf(call.lane));
    return principal instanceof Promise
      ? principal.then((known) => this.run(call, known))
      : this.run(call, principal);
  }

  private run(call: LaneCall, principal: Principal): true | Promise<true> {
    putOnRequest(call.lane, principal);
    const { route, lane, args } = call;
    const resolved = resolveArgs(route, lane, this.parts.validation, true, args);
    const result = resolved
      ? resolved.then(() => route.handler.apply(route.instance, args))
      : route.handler.apply(route.instance, args);
    return result instanceof Promise
      ? result.then((value) => this.reply(call, this.answerOf(route, value, principal)))
      : this.reply(call, this.answerOf(route, result, principal));
  }

  /** The handler's result as the pipeline sends it: a page result, or JSON. */
  private answerOf(route: LaneRoute, result: unknown, principal: Principal): Answer {
    const headers = route.headers.slice();
    const extra = principal.headers;
    if (extra) for (const name in extra) headers.push(name, extra[name]);
    if (!route.pages) {
      if (typeof result !== 'object' || result === null) throw new Error('not a JSON answer');
      headers.push('Content-Type', 'application/json; charset=utf-8');
      return { status: route.status, headers, omit: [], body: JSON.stringify(result) };
    }
    if (!isPageResult(result)) throw new Error('not a page');
    const page = pageAnswer(result);
    for (const [name, value] of page.headers) headers.push(name, value);
    return { status: page.status, headers, omit: page.omit, body: page.body ?? '' };
  }

  /**
   * Writes the answer with the pipeline's security headers for the route (those the answer sets
   * itself or omits left out, as a later setHeader or removeHeader does), the request id, the
   * metrics and the log line. Headers go to Node as a flat list, which costs no object per answer.
   */
  private reply(call: LaneCall, answer: Answer): true {
    const { route, req, res } = call;
    const id = requestIdFrom(req.headers['x-request-id']);
    const own = answer.headers;
    const base = this.securityHeaders(route);
    // The answer's own headers replace the security headers of the same name (a page's CSP).
    const replaced = answer.omit.map((name) => name.toLowerCase());
    for (let i = 0; i < own.length; i += 2) {
      const name = own[i].toLowerCase();
      if (base.lower.has(name)) replaced.push(name);
    }
    const headers = replaced.length ? without(base.flat, replaced) : base.flat.slice();
    headers.push(REQUEST_ID_HEADER, id, ...own);
    headers.push('Content-Length', String(Buffer.byteLength(answer.body)));
    if (this.log(call, id)) {
      // The log line shows the answer's headers as the pipeline's does: set one by one.
      for (let i = 0; i < headers.length; i += 2) res.appendHeader(headers[i], headers[i + 1]);
      res.writeHead(answer.status);
    } else res.writeHead(answer.status, headers);
    res.end(answer.body);
    const labels = { method: 'GET', route: route.pattern, status_code: String(answer.status) };
    countRequest(labels, call.start);
    return true;
  }

  /** The route's security headers as a flat list, and their names in lower case, once a route. */
  private securityHeaders(route: LaneRoute): { flat: string[]; lower: Set<string> } {
    let known = this.baseHeaders.get(route);
    if (!known) {
      const entries = Object.entries(this.parts.securityHeaders(route.pattern));
      known = { flat: entries.flat(), lower: new Set(entries.map(([n]) => n.toLowerCase())) };
      this.baseHeaders.set(route, known);
    }
    return known;
  }

  /** The pipeline's access-log line, by pino-http with the same options (none when silent). */
  private log({ req, res, lane }: LaneCall, id: string): boolean {
    const root = PinoLogger.root;
    if (!root?.isLevelEnabled('info')) return false;
    // What the pipeline's request has when its logger middleware reads it: the id (request-id
    // middleware), the parsed query and the parameters.
    Object.assign(req, { id, query: lane.query, params: lane.params });
    this.accessLog ??= pinoHttp<IncomingMessage, ServerResponse>({
      ...httpLogOptions(this.config),
      logger: root,
    });
    this.accessLog(req, res);
    return true;
  }

  private match(path: string): { route: LaneRoute; params: Record<string, string> } | undefined {
    const segments = path.slice(1).split('/');
    next: for (const route of this.routes) {
      if (route.segments.length !== segments.length) continue;
      const params: Record<string, string> = {};
      for (let i = 0; i < segments.length; i++) {
        const expected = route.segments[i];
        if (typeof expected === 'string') {
          if (expected !== segments[i]) continue next;
        } else {
          // As Express decodes a parameter; one it cannot decode is its 400 to answer.
          const value = segments[i] === '' ? undefined : decode(segments[i]);
          if (value === undefined) continue next;
          params[expected.param] = value;
        }
      }
      return { route, params };
    }
    return undefined;
  }

  /** Every `@FastLane()` route of every controller. */
  private discover(): LaneRoute[] {
    const routes: LaneRoute[] = [];
    for (const { metatype, instance } of this.discovery.getControllers()) {
      if (!metatype || !instance) continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name] as (...args: unknown[]) => unknown;
        if (Reflect.getMetadata(FAST_LANE, handler) !== true) continue;
        routes.push(laneRoute(metatype as Type<unknown>, instance as object, handler));
      }
    }
    return routes;
  }
}

/**
 * The request as the lane's steps read it. The query and the client's address are worked out
 * only when a step reads them (a short link needs neither). A class, not an object literal with
 * getters: a literal's getters are new closures on every request, and with them V8 kept each
 * request's objects past two scavenges (bench/README.md, "redirects").
 */
class LaneRequestOf implements LaneRequest {
  readonly method = 'GET';
  readonly headers: IncomingMessage['headers'];
  private parsedQuery?: Record<string, unknown>;
  private address?: string;

  constructor(
    private readonly req: IncomingMessage,
    readonly url: string,
    private readonly queryAt: number,
    readonly params: Record<string, string>,
    private readonly trustProxy: Parameters<typeof proxyaddr>[1],
  ) {
    this.headers = req.headers;
  }

  get query(): Record<string, unknown> {
    return (this.parsedQuery ??= parseQuery(
      this.queryAt < 0 ? '' : this.url.slice(this.queryAt + 1),
    ));
  }

  get ip(): string {
    return (this.address ??= proxyaddr(this.req, this.trustProxy));
  }
}

/** `flat` (`name, value, …`) without the headers `names` (lower case) name. */
function without(flat: readonly string[], names: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < flat.length; i += 2) {
    if (!names.includes(flat[i].toLowerCase())) kept.push(flat[i], flat[i + 1]);
  }
  return kept;
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
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
