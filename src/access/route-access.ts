import type { Type } from '@nestjs/common';
import { AUTH_POLICY, type AuthPolicy } from '../common/access/access.decorators';
import { RATE_LIMIT_METADATA, type RateLimitName } from './rate-limits';

/** What a route declares about access: its policy and its rate limits, handler over controller. */
export interface RouteAccess {
  /** Undefined: the route declares none and is refused (default deny). */
  readonly policy?: AuthPolicy;
  readonly limits: readonly RateLimitName[];
}

/**
 * The limits README.md "Configuration" requires of every route of a policy; a route without them
 * fails to start.
 */
const REQUIRED_LIMIT: Partial<Record<AuthPolicy['kind'], RateLimitName>> = {
  'tenant-key': 'federation',
  'embed-origin': 'embed',
  'embed-bearer': 'embed',
};

const cache = new WeakMap<object, RouteAccess>();

/**
 * The access declarations of `handler` of `controller`, read from the decorators once and kept:
 * the global guard and the fast lanes both read them here, so a route is checked the same way
 * whichever road its request takes.
 */
export function routeAccess(controller: Type<unknown>, handler: object): RouteAccess {
  let access = cache.get(handler);
  if (!access) {
    const read = <T>(key: string): T | undefined =>
      (Reflect.getMetadata(key, handler) as T | undefined) ??
      (Reflect.getMetadata(key, controller) as T | undefined);
    access = {
      policy: read<AuthPolicy>(AUTH_POLICY),
      limits: read<RateLimitName[]>(RATE_LIMIT_METADATA) ?? [],
    };
    const required = access.policy && REQUIRED_LIMIT[access.policy.kind];
    if (required && !access.limits.includes(required)) {
      const name = `${controller.name}.${(handler as { name?: string }).name ?? '?'}`;
      throw new Error(`${name}: a ${access.policy?.kind} route needs @RateLimit('${required}')`);
    }
    cache.set(handler, access);
  }
  return access;
}
