import { type PipeTransform, RequestMethod, type Type, ValidationPipe } from '@nestjs/common';
import {
  CUSTOM_ROUTE_ARGS_METADATA,
  GUARDS_METADATA,
  HEADERS_METADATA,
  HTTP_CODE_METADATA,
  INTERCEPTORS_METADATA,
  METHOD_METADATA,
  PARAMTYPES_METADATA,
  PATH_METADATA,
  PIPES_METADATA,
  ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { ArgumentMetadata, ExecutionContext } from '@nestjs/common/interfaces';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { RouteParamsFactory } from '@nestjs/core/router/route-params-factory';
import type { IncomingHttpHeaders } from 'node:http';
import type { AuthenticatedRequest } from '../access/principal';
import { routeAccess, type RouteAccess } from '../access/route-access';
import { PageInterceptor } from '../common/pages/page.interceptor';

/** The request a lane hands the route's argument decorators: the parts Nest's own read. */
export interface LaneRequest extends AuthenticatedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  params: Record<string, string>;
  query: Record<string, unknown>;
  ip: string;
  id?: string;
}

/** One argument of the handler, resolved as Nest's router resolves it. */
interface LaneArg {
  index: number;
  /** What the global pipe (the ValidationPipe) is told of it, as Nest tells it; none: not piped. */
  piped: ArgumentMetadata | undefined;
  value(req: LaneRequest, context: ExecutionContext): unknown;
  /** A custom decorator (`@CurrentTenant()`) reads what access put on the request: after it. */
  afterAccess: boolean;
  /** `@Query()` as a whole: what the pipe made of each query string, kept (see `remembered`). */
  byQuery?: Map<string, unknown>;
}

/** Query strings whose DTO a route's lane keeps; the oldest goes first. */
const QUERIES_KEPT = 1000;

/** A controller route as a lane answers it, read from the route's decorators at start-up. */
export interface LaneRoute {
  /** The Express pattern, `/embed/v1/data/cabinet/:user_id` (also the metrics label). */
  readonly pattern: string;
  /** Each path segment: a literal, or the name of a parameter. */
  readonly segments: readonly (string | { param: string })[];
  readonly access: RouteAccess;
  /** `@HttpCode()` or 200, and `@Header()`s (`name, value, …`): what Nest sets before a handler. */
  readonly status: number;
  readonly headers: readonly string[];
  /** `@Pages()`: the handler returns an HtmlPage or a Redirect (PageInterceptor's results). */
  readonly pages: boolean;
  readonly args: readonly LaneArg[];
  readonly controller: Type<unknown>;
  readonly handler: (...args: unknown[]) => unknown;
  readonly instance: object;
}

const SUPPORTED = new Set([RouteParamtypes.PARAM, RouteParamtypes.QUERY, RouteParamtypes.IP]);
const params = new RouteParamsFactory();

/**
 * `handler` of `controller` as a lane route. Anything the lane could not do exactly as the
 * pipeline does (another method, a guard, pipe or interceptor of the route's own, an argument
 * other than a path parameter, the query, the client address or a custom decorator) fails the
 * start, naming the route, rather than answer differently.
 */
export function laneRoute(
  controller: Type<unknown>,
  instance: object,
  handler: (...args: unknown[]) => unknown,
): LaneRoute {
  const name = `${controller.name}.${handler.name}`;
  const refuse = (why: string) => new Error(`${name} cannot be a fast lane: ${why}`);
  const meta = <T>(key: string, target: object): T | undefined =>
    Reflect.getMetadata(key, target) as T | undefined;
  if (meta<RequestMethod>(METHOD_METADATA, handler) !== RequestMethod.GET) {
    throw refuse('not a GET route');
  }
  const interceptors = [controller, handler].flatMap(
    (t) => meta<unknown[]>(INTERCEPTORS_METADATA, t) ?? [],
  );
  if (interceptors.some((interceptor) => interceptor !== PageInterceptor)) {
    throw refuse('an interceptor of its own');
  }
  for (const key of [GUARDS_METADATA, PIPES_METADATA]) {
    if ([controller, handler].some((t) => meta<unknown[]>(key, t)?.length)) {
      throw refuse(`${key} of its own`);
    }
  }
  const pattern = joinPath(meta(PATH_METADATA, controller), meta(PATH_METADATA, handler), refuse);
  const declared = meta<{ name: string; value: string }[]>(HEADERS_METADATA, handler) ?? [];
  const headers = declared.flatMap(({ name: header, value }) => [header, value]);
  return {
    pattern,
    segments: pattern
      .slice(1)
      .split('/')
      .map((segment) => (segment.startsWith(':') ? { param: segment.slice(1) } : segment)),
    access: routeAccess(controller, handler),
    status: meta<number>(HTTP_CODE_METADATA, handler) ?? 200,
    headers,
    pages: interceptors.includes(PageInterceptor),
    args: argsOf(controller, handler, refuse),
    controller,
    handler,
    instance,
  };
}

/** The handler's arguments from `@Param()`, `@Query()`, `@Ip()` and custom decorators. */
function argsOf(
  controller: Type<unknown>,
  handler: (...args: unknown[]) => unknown,
  refuse: (why: string) => Error,
): LaneArg[] {
  const declared = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler.name) ??
    {}) as Record<string, { index: number; data?: string; pipes?: unknown[]; factory?: Factory }>;
  const types = (Reflect.getMetadata(PARAMTYPES_METADATA, controller.prototype, handler.name) ??
    []) as Type<unknown>[];
  return Object.entries(declared).map(([key, { index, data, pipes, factory }]) => {
    if (pipes?.length) throw refuse(`argument ${index} has pipes of its own`);
    const metatype = types[index];
    if (key.includes(CUSTOM_ROUTE_ARGS_METADATA) && factory) {
      return {
        index,
        piped: { type: 'custom', metatype, data },
        value: (_: LaneRequest, context: ExecutionContext) => factory(data, context),
        afterAccess: true,
      };
    }
    const type = Number(key.split(':')[0]) as RouteParamtypes;
    if (!SUPPORTED.has(type)) throw refuse(`argument ${index} is not a parameter, query or IP`);
    const piped: ArgumentMetadata | undefined =
      type === RouteParamtypes.IP
        ? undefined
        : { type: type === RouteParamtypes.PARAM ? 'param' : 'query', metatype, data };
    return {
      index,
      piped,
      value: (req: LaneRequest) =>
        params.exchangeKeyForValue(type, data as string, { req, res: null, next: () => undefined }),
      afterAccess: false,
      byQuery: type === RouteParamtypes.QUERY && data === undefined ? new Map() : undefined,
    };
  });
}

type Factory = (data: unknown, context: ExecutionContext) => unknown;

/**
 * Resolves the handler's arguments as Nest's router does: extracted, then through `pipe`; now
 * where the pipe need not wait (see `piping`), else in a promise.
 */
export function resolveArgs(
  route: LaneRoute,
  req: LaneRequest,
  pipe: PipeTransform,
  afterAccess: boolean,
  into: unknown[],
): void | Promise<void> {
  let context: ExecutionContext | undefined;
  let pending: Promise<void>[] | undefined;
  for (const arg of route.args) {
    if (arg.afterAccess !== afterAccess) continue;
    // Only a custom decorator reads the execution context.
    if (arg.afterAccess) {
      context ??= new ExecutionContextHost([req, null, null], route.controller, route.handler);
    }
    const value = arg.value(req, context!);
    const piped = arg.byQuery
      ? remembered(arg.byQuery, req.url, () => piping(pipe, arg.piped!)(value))
      : arg.piped
        ? piping(pipe, arg.piped)(value)
        : value;
    if (piped instanceof Promise) {
      (pending ??= []).push(piped.then((v) => void (into[arg.index] = v)));
    } else into[arg.index] = piped;
  }
  if (pending) return Promise.all(pending).then(() => undefined);
}

/**
 * The query DTO the pipe made of this query string before, or the pipe's answer, kept frozen. The
 * pipe's answer is a function of the query string alone (the DTO's rules), and a widget asks with
 * the same few strings again and again, so the lane keeps up to QUERIES_KEPT of them per route
 * rather than run class-transformer and class-validator each time (a tenth of a widget read's own
 * CPU). Frozen: a handler that would change its query throws, and the pipeline answers instead.
 * Refusals are not kept (the pipeline answers them).
 */
function remembered(kept: Map<string, unknown>, url: string, pipe: () => unknown): unknown {
  const at = url.indexOf('?');
  const query = at < 0 ? '' : url.slice(at + 1);
  const known = kept.get(query);
  if (known !== undefined) return known;
  const keep = (dto: unknown) => {
    if (kept.size >= QUERIES_KEPT) kept.delete(kept.keys().next().value as string);
    kept.set(query, Object.freeze(dto));
    return dto;
  };
  const made = pipe();
  return made instanceof Promise ? made.then(keep) : keep(made);
}

const quick = new WeakMap<ArgumentMetadata, (value: unknown) => unknown>();

/**
 * `pipe.transform` for an argument. The ValidationPipe answers a value it does not validate (a
 * string path parameter, a custom decorator's value) with its own `transformPrimitive` at once;
 * that step is called here without the promise of `transform`, which on the hottest lane costs
 * more than the rest of the arguments.
 */
function piping(pipe: PipeTransform, metadata: ArgumentMetadata): (value: unknown) => unknown {
  let run = quick.get(metadata);
  if (!run) {
    const own = pipe as unknown as {
      toValidate(metadata: ArgumentMetadata): boolean;
      transformPrimitive(value: unknown, metadata: ArgumentMetadata): unknown;
      isTransformEnabled: boolean;
      expectedType?: unknown;
    };
    const cheap = pipe instanceof ValidationPipe && !own.expectedType && !own.toValidate(metadata);
    run = cheap
      ? own.isTransformEnabled
        ? (value) => own.transformPrimitive(value, metadata)
        : (value) => value
      : (value) => pipe.transform(value, metadata) as unknown;
    quick.set(metadata, run);
  }
  return run;
}

/** `/<controller path>/<method path>` as Nest registers it with Express. */
function joinPath(controller: unknown, method: unknown, refuse: (why: string) => Error): string {
  if (typeof controller !== 'string' || typeof method !== 'string') {
    throw refuse('a path that is not one string');
  }
  const path = `/${[controller, method]
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;
  if (/[*?()[\]{}]/.test(path)) throw refuse('a wildcard or optional segment');
  return path;
}
