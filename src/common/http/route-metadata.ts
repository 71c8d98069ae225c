import {
  Body,
  Controller,
  createParamDecorator,
  Get,
  Header,
  HttpCode,
  Ip,
  Param,
  Query,
  RawBody,
  Req,
  RequestMethod,
  UseGuards,
  UseInterceptors,
  UsePipes,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { isDeepStrictEqual } from 'node:util';

/**
 * What a controller's decorators declare, read the way Nest's router reads it, through public
 * APIs only: Nest does not export where its decorators keep their metadata (the keys live in
 * `@nestjs/common/constants`, an internal path the lint forbids, eslint.config.mjs). So the keys
 * are found here by applying Nest's own public decorators to a probe class and looking for what
 * they wrote, once at load. A Nest release that keeps them differently fails the start here,
 * naming what it could not find, instead of a route being read wrongly.
 */

class ProbeGuard {}
class ProbePipe {}
class ProbeInterceptor {}
const ProbeArg = createParamDecorator(() => undefined);

@Controller('probe-controller')
class Probe {
  @Get('probe-path')
  @HttpCode(299)
  @Header('X-Probe', 'probe')
  @UseGuards(ProbeGuard)
  @UsePipes(ProbePipe)
  @UseInterceptors(ProbeInterceptor)
  handler(
    @Query() _query: unknown,
    @Param() _param: unknown,
    @Ip() _ip: unknown,
    @Body() _body: unknown,
    @RawBody() _rawBody: unknown,
    @Req() _req: unknown,
    @ProbeArg() _custom: unknown,
  ): void {}
}

/** The one metadata key of `target` (or of its `property`) that holds `value`. */
function keyHolding(what: string, value: unknown, target: object, property?: string): string {
  const keys = (
    property === undefined
      ? Reflect.getOwnMetadataKeys(target)
      : Reflect.getOwnMetadataKeys(target, property)
  ) as unknown[];
  const found = keys.filter(
    (key): key is string =>
      typeof key === 'string' &&
      isDeepStrictEqual(
        property === undefined
          ? Reflect.getOwnMetadata(key, target)
          : Reflect.getOwnMetadata(key, target, property),
        value,
      ),
  );
  if (found.length !== 1) throw new Error(`cannot tell where Nest keeps ${what}`);
  return found[0];
}

const handler = Probe.prototype.handler;

/** Nest's metadata keys of a route handler (and of its controller, for path and enhancers). */
export const ROUTE_METADATA = {
  path: keyHolding('the path of a route', 'probe-path', handler),
  method: keyHolding('the method of a route', RequestMethod.GET, handler),
  httpCode: keyHolding('@HttpCode()', 299, handler),
  headers: keyHolding('@Header()', [{ name: 'X-Probe', value: 'probe' }], handler),
  guards: keyHolding('@UseGuards()', [ProbeGuard], handler),
  pipes: keyHolding('@UsePipes()', [ProbePipe], handler),
  interceptors: keyHolding('@UseInterceptors()', [ProbeInterceptor], handler),
} as const;

/** One declared argument of a handler: what it is, as Nest's router tells them apart. */
export interface RouteArg {
  index: number;
  /** A built-in decorator's kind, or `custom` (a `createParamDecorator` one, with `factory`). */
  kind: 'query' | 'param' | 'ip' | 'body' | 'raw-body' | 'req' | 'custom' | 'other';
  /** The decorator's argument: `@Query('page')` → `'page'`. */
  data: unknown;
  pipes: readonly unknown[];
  factory?: (data: unknown, context: unknown) => unknown;
}

type Declared = { index: number; data?: unknown; pipes?: unknown[]; factory?: RouteArg['factory'] };

/** Where the argument decorators keep their declarations (on the controller, by method name). */
const ARGS_KEY = (() => {
  const keys = Reflect.getOwnMetadataKeys(Probe, 'handler') as unknown[];
  if (keys.length !== 1 || typeof keys[0] !== 'string') {
    throw new Error("cannot tell where Nest keeps a handler's arguments");
  }
  return keys[0];
})();

function declared(controller: object, name: string): [string, Declared][] {
  return Object.entries(
    (Reflect.getMetadata(ARGS_KEY, controller, name) ?? {}) as Record<string, Declared>,
  );
}

/** The kind of each built-in argument decorator, by the type number Nest gives it. */
const KINDS = (() => {
  const order: RouteArg['kind'][] = ['query', 'param', 'ip', 'body', 'raw-body', 'req', 'custom'];
  const kinds = new Map<string, RouteArg['kind']>();
  for (const [key, { index, factory }] of declared(Probe, 'handler')) {
    const kind = order[index];
    if ((kind === 'custom') !== (typeof factory === 'function')) {
      throw new Error("cannot tell Nest's argument decorators apart");
    }
    if (kind !== 'custom') kinds.set(key.split(':')[0], kind);
  }
  if (kinds.size !== order.length - 1)
    throw new Error("cannot tell Nest's argument decorators apart");
  return kinds;
})();

/** The arguments `controller.prototype[name]` declares with Nest's decorators. */
export function routeArgs(controller: object, name: string): RouteArg[] {
  return declared(controller, name).map(([key, { index, data, pipes, factory }]) => ({
    index,
    kind: typeof factory === 'function' ? 'custom' : (KINDS.get(key.split(':')[0]) ?? 'other'),
    data,
    pipes: pipes ?? [],
    factory,
  }));
}

const reflector = new Reflector();

/** What `key` of ROUTE_METADATA holds on `target` (a handler or a controller class). */
export function routeMetadata<T>(key: keyof typeof ROUTE_METADATA, target: object): T | undefined {
  return reflector.get<T | undefined>(ROUTE_METADATA[key], target as () => unknown);
}
