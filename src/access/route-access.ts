import { RequestMethod, type Type } from '@nestjs/common';
import { AUTH_POLICY, type AuthPolicy } from '../common/access/access.decorators';
import { routeMetadata } from '../common/http/route-metadata';
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

/**
 * What a page of the admin pages (a route under `/org`, where browsers send the session cookie)
 * must declare, or the route fails to start: an organisation's page (`/org/:slug/…`) its role
 * (`@OrgView()`, `@OrgDownload()`, `@OrgAction(role, back)`: the `org-page` policy), any other
 * route of `/org` (signing in and out) a policy (`@Public()`). Default deny would refuse such a
 * page anyway; this says so before the service starts.
 */
function pageRule(
  controller: Type<unknown>,
  handler: object,
  policy?: AuthPolicy,
): string | undefined {
  const paths = routePaths(controller, handler);
  if (paths.some((path) => /^\/org\/:slug(\/|$)/.test(path))) {
    if (policy?.kind === 'org-page') return undefined;
    return "an organisation's page needs its role: @OrgView(), @OrgDownload() or @OrgAction(role, back)";
  }
  if (!policy && paths.some((path) => /^\/org(\/|$)/.test(path))) {
    return 'a page of /org needs a policy (@Public() to sign in and out)';
  }
  return undefined;
}

// ---- Partner applications: the join pages (docs/partners.md, "Applications") ----------------

const JOIN_PAGE = /^\/p\/:slug\/join(\/|$)/;

/**
 * What a join page (`/p/:slug/join…`, for people who are not partners yet) must declare, or the
 * route fails to start: `@Public()` (no session exists there), and a post the `application_form`
 * limit it shares with the Embed endpoint (README.md "Configuration").
 */
function joinPageRule(
  controller: Type<unknown>,
  handler: object,
  access: RouteAccess,
): string | undefined {
  if (!routePaths(controller, handler).some((path) => JOIN_PAGE.test(path))) return undefined;
  if (access.policy?.kind !== 'public') return 'a join page is for anyone: @Public()';
  const method = routeMetadata<RequestMethod>('method', handler);
  if (method !== RequestMethod.GET && !access.limits.includes('application_form')) {
    return "a join page's post needs @RateLimit('application_form')";
  }
  return undefined;
}

// ---- end of the join pages' rules --------------------------------------------------------------

// ------------------------------------------------------------------------------------------------
// The partner portal (`/p/:slug`, SPEC 14; docs/partners.md, "The partner portal").

/** The portal's pages; the applications' hosted pages (`/p/:slug/join…`) have rules of their own. */
const PORTAL_PATH = /^\/p\/:slug(\/|$)/;

/**
 * A page of the partner portal must be `@Public()`: the portal signs its partners in itself (the
 * popup's emailed codes and sessions, portal/portal-session.ts), checks each form's single-use
 * token, and shows only the signed-in member's data. A staff or tenant credential means nothing
 * there, so a portal route declaring one (or none) fails to start.
 */
function portalRule(paths: string[], policy?: AuthPolicy): string | undefined {
  if (!paths.some((path) => PORTAL_PATH.test(path) && !JOIN_PAGE.test(path))) return undefined;
  if (policy?.kind === 'public') return undefined;
  return 'a page of the partner portal (/p/:slug) must be @Public(): it checks its own session';
}

// ------------------------------------------------------------------------------------------------

/** Every path the route is served at, as `/org/:slug/bonuses`. */
function routePaths(controller: Type<unknown>, handler: object): string[] {
  const list = (value: unknown): string[] =>
    typeof value === 'string' ? [value] : Array.isArray(value) ? (value as string[]) : [''];
  return list(routeMetadata('path', controller)).flatMap((base) =>
    list(routeMetadata('path', handler)).map((path) =>
      `/${base}/${path}`.replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1'),
    ),
  );
}

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
    const name = () => `${controller.name}.${(handler as { name?: string }).name ?? '?'}`;
    const required = access.policy && REQUIRED_LIMIT[access.policy.kind];
    if (required && !access.limits.includes(required)) {
      throw new Error(`${name()}: a ${access.policy?.kind} route needs @RateLimit('${required}')`);
    }
    const page =
      pageRule(controller, handler, access.policy) ??
      joinPageRule(controller, handler, access) ??
      portalRule(routePaths(controller, handler), access.policy);
    if (page) throw new Error(`${name()}: ${page}`);
    cache.set(handler, access);
  }
  return access;
}
