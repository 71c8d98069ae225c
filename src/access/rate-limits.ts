import { SetMetadata } from '@nestjs/common';

/**
 * Every request limit of the service, by name (README.md, "Configuration", and docs/security.md), counted
 * in fixed windows in Redis (RateLimiter) under `rl:<name>:<key>`. A route takes its limits with
 * `@RateLimit(name…)`; AccessService counts them for the guard and the fast lanes alike, once the
 * credential has named the tenant and before an embed bearer token is checked.
 */
export const RATE_LIMITS = {
  /** The Federation API, 6000 a minute per tenant (counted once the key is checked). */
  federation: { limit: 6000, windowSeconds: 60, per: 'tenant' },
  /** The Embed APIs, 600 a minute per client IP and tenant (after the Origin gate). */
  embed: { limit: 600, windowSeconds: 60, per: 'tenant-ip' },
  /** The lead form (the widget and the landing page share it), 20 a minute per IP. */
  lead_form: { limit: 20, windowSeconds: 60, per: 'ip' },
  /** Partner applications (the Embed endpoint and the hosted join pages), 20 a minute per IP. */
  application_form: { limit: 20, windowSeconds: 60, per: 'ip' },
  /** docs/security.md: codes requested in the popup, 20 per client IP in 10 minutes, across tenants. */
  signin_email: { limit: 20, windowSeconds: 600, per: 'ip' },
  /** docs/security.md: codes tried in the popup, 30 per client IP in 10 minutes, across tenants. */
  signin_code: { limit: 30, windowSeconds: 600, per: 'ip' },
} as const satisfies Record<
  string,
  { limit: number; windowSeconds: number; per: 'tenant' | 'tenant-ip' | 'ip' }
>;

export type RateLimitName = keyof typeof RATE_LIMITS;

export const RATE_LIMIT_METADATA = 'access:rate-limits';

/**
 * Counts every request of the route (or of the controller's routes) against these limits; past
 * one, `429 rate_limited` with `Retry-After`. A handler's own list replaces its controller's.
 */
export const RateLimit = (...names: RateLimitName[]) => SetMetadata(RATE_LIMIT_METADATA, names);
