import {
  type ArgumentMetadata,
  type ExecutionContext,
  RequestMethod,
  type Type,
  type ValidationPipe,
  type ValidationPipeOptions,
} from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import type { AuthenticatedRequest } from '../access/principal';
import { routeAccess, type RouteAccess } from '../access/route-access';
import { type RouteArg, routeArgs, routeMetadata } from '../common/http/route-metadata';
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

/**
 * The pipeline's global ValidationPipe, and the options it was made with (app.setup.ts): the lane
 * hands a DTO to the pipe itself, through its public `transform`, so the options, the DTO's rules
 * and what the pipe does before them are the pipeline's own.
 */
export interface LaneValidation {
  pipe: Pick<ValidationPipe, 'transform'>;
  options: ValidationPipeOptions;
}

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
  if (routeMetadata<RequestMethod>('method', handler) !== RequestMethod.GET) {
    throw refuse('not a GET route');
  }
  const interceptors = [controller, handler].flatMap(
    (t) => routeMetadata<unknown[]>('interceptors', t) ?? [],
  );
  if (interceptors.some((interceptor) => interceptor !== PageInterceptor)) {
    throw refuse('an interceptor of its own');
  }
  for (const [key, what] of [
    ['guards', '@UseGuards()'],
    ['pipes', '@UsePipes()'],
  ] as const) {
    if ([controller, handler].some((t) => routeMetadata<unknown[]>(key, t)?.length)) {
      throw refuse(`${what} of its own`);
    }
  }
  const pattern = joinPath(
    routeMetadata('path', controller),
    routeMetadata('path', handler),
    refuse,
  );
  const declared = routeMetadata<{ name: string; value: string }[]>('headers', handler) ?? [];
  const headers = declared.flatMap(({ name: header, value }) => [header, value]);
  return {
    pattern,
    segments: pattern
      .slice(1)
      .split('/')
      .map((segment) => (segment.startsWith(':') ? { param: segment.slice(1) } : segment)),
    access: routeAccess(controller, handler),
    status: routeMetadata<number>('httpCode', handler) ?? 200,
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
  // The parameter types TypeScript records (emitDecoratorMetadata), as Nest reads them.
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype, handler.name) ??
    []) as Type<unknown>[];
  return routeArgs(controller, handler.name).map((arg) => {
    const { index, kind, data, pipes, factory } = arg;
    if (pipes.length) throw refuse(`argument ${index} has pipes of its own`);
    const metatype = types[index];
    if (kind === 'custom' && factory) {
      return {
        index,
        piped: { type: 'custom', metatype, data: data as string | undefined },
        value: (_: LaneRequest, context: ExecutionContext) => factory(data, context),
        afterAccess: true,
      };
    }
    if (kind !== 'param' && kind !== 'query' && kind !== 'ip') {
      throw refuse(`argument ${index} is not a parameter, query or IP`);
    }
    return {
      index,
      piped: kind === 'ip' ? undefined : { type: kind, metatype, data: data as string | undefined },
      value: extract(arg),
      afterAccess: false,
      byQuery: kind === 'query' && data === undefined ? new Map() : undefined,
    };
  });
}

/** What `@Param(data)`, `@Query(data)` and `@Ip()` give the handler, as Nest's router reads them. */
function extract({ kind, data }: RouteArg): (req: LaneRequest) => unknown {
  const key = data as string | undefined;
  switch (kind) {
    case 'param':
      return key ? (req) => req.params[key] : (req) => req.params;
    case 'query':
      return key ? (req) => req.query[key] : (req) => req.query;
    default:
      return (req) => req.ip;
  }
}

/**
 * Resolves the handler's arguments as Nest's router does: extracted, then through the pipe; now
 * where the pipe need not wait (see `piping`), else in a promise.
 */
export function resolveArgs(
  route: LaneRoute,
  req: LaneRequest,
  validation: LaneValidation,
  afterAccess: boolean,
  into: unknown[],
): void | Promise<void> {
  let context: ExecutionContext | undefined;
  let pending: Promise<void>[] | undefined;
  for (const arg of route.args) {
    if (arg.afterAccess !== afterAccess) continue;
    // Only a custom decorator reads the execution context.
    if (arg.afterAccess) context ??= new LaneContext(req, route.controller, route.handler);
    const value = arg.value(req, context!);
    const piped = arg.byQuery
      ? remembered(arg.byQuery, req.url, () => piping(validation, arg.piped!)(value))
      : arg.piped
        ? piping(validation, arg.piped)(value)
        : value;
    if (piped instanceof Promise) {
      (pending ??= []).push(piped.then((v) => void (into[arg.index] = v)));
    } else into[arg.index] = piped;
  }
  if (pending) return Promise.all(pending).then(() => undefined);
}

/**
 * The ExecutionContext a custom argument decorator (`@CurrentTenant()`) is given: the request of
 * an HTTP call, its controller and handler, as Nest gives them (its own class is internal).
 */
class LaneContext implements ExecutionContext {
  private readonly args: [LaneRequest, null, null];

  constructor(
    req: LaneRequest,
    private readonly controller: Type<unknown>,
    private readonly handler: (...args: unknown[]) => unknown,
  ) {
    this.args = [req, null, null];
  }

  getClass<T>(): Type<T> {
    return this.controller as Type<T>;
  }
  getHandler(): (...args: unknown[]) => unknown {
    return this.handler;
  }
  getArgs<T extends unknown[]>(): T {
    return this.args as unknown as T;
  }
  getArgByIndex<T>(index: number): T {
    return this.args[index] as T;
  }
  getType<T extends string>(): T {
    return 'http' as T;
  }
  switchToHttp(): ReturnType<ExecutionContext['switchToHttp']> {
    const [req, res, next] = this.args;
    return {
      getRequest: <T>() => req as T,
      getResponse: <T>() => res as T,
      getNext: <T>() => next as T,
    };
  }
  switchToRpc(): ReturnType<ExecutionContext['switchToRpc']> {
    const [data, context] = this.args;
    return { getData: <T>() => data as T, getContext: <T>() => context as T };
  }
  switchToWs(): ReturnType<ExecutionContext['switchToWs']> {
    const [client, data] = this.args;
    return {
      getClient: <T>() => client as T,
      getData: <T>() => data as T,
      getPattern: () => '',
    };
  }
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
 * The pipe's `transform` for an argument, decided once per argument. A value with a DTO class goes
 * to the pipe itself (a promise). A value the pipe does not validate (a string path parameter, a
 * custom decorator's value) it answers at once by a fixed rule, `primitive` below, which the lane
 * applies without the promise of `transform`: on the hottest lane that promise costs more than the
 * rest of the arguments. The rule is the pipe's for primitives under `transform: true` (a named
 * path or query parameter typed Number, Boolean or String converted, anything else as it is), and
 * lane-route.spec.ts checks it against the pipe's own `transform` for generated values; pipe options that change it (`expectedType`, `validateCustomDecorators`,
 * `transform` off) send every argument to the pipe.
 */
export function piping(
  { pipe, options }: LaneValidation,
  metadata: ArgumentMetadata,
): (value: unknown) => unknown {
  let run = quick.get(metadata);
  if (!run) {
    const plain =
      options.transform === true && !options.expectedType && !options.validateCustomDecorators;
    const cheap = plain ? primitive(metadata) : undefined;
    run = cheap ?? ((value) => pipe.transform(value, metadata) as unknown);
    quick.set(metadata, run);
  }
  return run;
}

/** What the pipe (with `transform: true`) does with a value it does not validate; or none. */
function primitive({
  type,
  metatype,
  data,
}: ArgumentMetadata): ((v: unknown) => unknown) | undefined {
  const same = (value: unknown) => value;
  if (type === 'custom') return same; // not validated: custom decorators are trusted
  if (metatype && !UNVALIDATED.includes(metatype)) return undefined; // a DTO: the pipe's
  if (!data || (type !== 'param' && type !== 'query')) return same; // the whole query or params
  if (metatype === Boolean) return (v) => (v === undefined ? v : v === true || v === 'true');
  if (metatype === Number) return (v) => (v === undefined ? v : +(v as number));
  // As the pipe does: an array becomes `a,b`, an object whatever String() makes of it.
  if (metatype === String) return (v) => (v === undefined ? v : `${v as string}`);
  return same;
}

/** The types the ValidationPipe does not validate (nor does it any argument without a type). */
const UNVALIDATED: unknown[] = [String, Boolean, Number, Array, Object, Buffer, Date];

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
