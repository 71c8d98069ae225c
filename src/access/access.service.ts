import { Injectable } from '@nestjs/common';
import { parse as parseCookies } from 'cookie';
import { createHash, timingSafeEqual } from 'node:crypto';
import { DomainError, ForbiddenError, UnauthorizedError } from '../common/errors/domain-error';
import { sameSecret } from '../common/http/page-security';
import { RateLimiter } from '../common/http/rate-limiter';
import { sha256Hex } from '../common/ids';
import { AppConfig } from '../config/app-config';
import type { StaffTokenEntity } from '../tenants/staff-token.entity';
import type { TenantEntity } from '../tenants/tenant.entity';
import { TenantsService } from '../tenants/tenants.service';
import {
  InvalidAdminTokenError,
  NoAdminSessionError,
  OtherTenantError,
  RoleTooLowError,
  StaleFormError,
  TenantNotFoundError,
} from './access.errors';
import { AdminSessionsService } from './admin-sessions.service';
import { ADMIN_COOKIE, bearerToken, type Credentials } from './credentials';
import { ALLOW_ORIGIN, EmbedOriginPolicy } from './embed-origin';
import { EmbedTokenService } from './embed-token.service';
import { type Actor, roleAllows, type StaffRole } from '../common/access/actor';
import { type Principal } from './principal';
import { RATE_LIMITS, type RateLimitName } from './rate-limits';
import type { RouteAccess } from './route-access';

/** An admin credential: the platform admin token, or a live staff token with its tenant. */
type AdminIdentity =
  | { type: 'platform' }
  | { type: 'staff'; staff: { token: StaffTokenEntity; tenant: TenantEntity } };

/** An admin pages session's principal and the CSRF token its forms carry. */
export type AdminSessionPrincipal = Principal & { actor: Actor; csrf: string };

const PLATFORM: Actor = { type: 'platform', name: 'platform-admin' };
const PUBLIC: Principal = Object.freeze({});

/**
 * Every credential of the service, resolved in one place from plain inputs (docs/architecture.md,
 * "Access"): the tenant key, the platform admin token, staff tokens, the admin pages' session
 * cookie (an organisation's pages, with their forms' CSRF token), the Embed APIs' `?tenant=` +
 * Origin gate and the popup's bearer JWT. Each answer is a Principal or a DomainError. The global
 * guard, the fast lanes, the admin pages' sign-in and the popup all call it, so a credential
 * means the same on every road; `authorize` also counts the route's rate limits.
 */
@Injectable()
export class AccessService {
  private readonly adminDigest: Buffer;

  constructor(
    private readonly tenants: TenantsService,
    private readonly origins: EmbedOriginPolicy,
    private readonly tokens: EmbedTokenService,
    private readonly sessions: AdminSessionsService,
    private readonly limiter: RateLimiter,
    config: AppConfig,
  ) {
    this.adminDigest = digest(config.adminToken);
  }

  /**
   * The principal of a request to a route with these declarations, or the refusal: the route's
   * policy decides which credential counts (none declared: 403, default deny), then its rate
   * limits are counted. An embed request admitted by its Origin carries its CORS headers on any
   * later refusal too, so a page can read a 401 or a 429.
   */
  async authorize(route: RouteAccess, credentials: Credentials): Promise<Principal> {
    const { policy } = route;
    const ip = credentials.ip;
    switch (policy?.kind) {
      case undefined:
        throw new ForbiddenError('This route is not open to any credential.');
      case 'public':
        await this.count(route.limits, undefined, ip);
        return this.needsNothing(route) ?? PUBLIC;
      case 'tenant-key': {
        const principal = await this.tenantKey(credentials.tenantKey);
        await this.count(route.limits, principal.tenant?.id, ip);
        return principal;
      }
      case 'admin': {
        const { authorization, slug } = credentials;
        const principal = await this.adminToken(authorization, slug, policy.role);
        await this.count(route.limits, principal.tenant?.id, ip);
        return principal;
      }
      case 'org-page': {
        const principal = await this.orgPage(credentials, policy.role);
        await this.count(route.limits, principal.tenant?.id, ip);
        return principal;
      }
      case 'embed-origin':
      case 'embed-bearer': {
        const allowOwn = policy.kind === 'embed-origin' && policy.allowOwnOrigin === true;
        const { tenant, origin, secFetchSite } = credentials;
        const gate = await this.origins.check(tenant, origin, secFetchSite, allowOwn);
        try {
          await this.count(route.limits, gate.tenant.id, ip);
          const memberId =
            policy.kind === 'embed-bearer'
              ? this.embedBearer(credentials.authorization, gate.tenant)
              : this.tokenGatedRead(credentials, gate.tenant);
          return { tenant: gate.tenant, memberId, headers: gate.headers };
        } catch (error) {
          throw withHeaders(error, { [ALLOW_ORIGIN]: gate.origin });
        }
      }
    }
  }

  /**
   * The principal of a route that takes no credential and counts no limit (a public page), known
   * before any request: a fast lane answers it without the promise of `authorize`. Undefined for
   * every other route.
   */
  needsNothing(route: RouteAccess): Principal | undefined {
    return route.policy?.kind === 'public' && route.limits.length === 0 ? PUBLIC : undefined;
  }

  /** `X-Service-Tenant-Key`: an active key decides the tenant; else `401 invalid_tenant_key`. */
  async tenantKey(key: string | undefined): Promise<Principal> {
    const found = key ? await this.tenants.tenantByKeyHash(sha256Hex(key)) : null;
    if (!found) {
      throw new UnauthorizedError(
        'invalid_tenant_key',
        'X-Service-Tenant-Key is missing, unknown or revoked.',
      );
    }
    const { tenant, keyId, keyName } = found;
    return {
      tenant,
      actor: { type: 'tenant_key', id: keyId, name: keyName ?? keyId, tenantId: tenant.id },
    };
  }

  /**
   * `Authorization: Bearer <admin token | stf_…>` on the tenant `slug` (undefined: a route of no
   * tenant) with at least `required`: the platform admin anywhere (an unknown slug is 404), a
   * staff token on its own tenant only (another slug is 403 whether it exists or not).
   */
  async adminToken(
    authorization: string | undefined,
    slug: string | undefined,
    required: StaffRole | 'platform',
  ): Promise<Principal> {
    const token = bearerToken(authorization);
    const who = token ? await this.adminIdentity(token) : undefined;
    if (!who) throw new InvalidAdminTokenError();
    return this.adminOn(who, slug, required);
  }

  /**
   * The admin pages' sign-in: a session token (for cookie `svc_admin`) in exchange for the admin
   * token or a live staff token, or undefined for anything else.
   */
  async adminSignIn(credential: string): Promise<string | undefined> {
    const who = await this.adminIdentity(credential);
    if (!who) return undefined;
    return this.sessions.create(who.type === 'platform' ? null : who.staff.token.tokenHash);
  }

  /**
   * Who holds this admin pages session now, with its CSRF token; on `on.slug` with `on.role` or
   * higher when given (the Admin API's rules). The staff token behind a session is read again
   * each time, so revoking it ends the session at once. No live session: NoAdminSessionError.
   */
  async adminSession(
    cookie: string | undefined,
    on?: { slug: string; role: StaffRole },
  ): Promise<AdminSessionPrincipal> {
    const session = cookie ? await this.sessions.find(cookie) : null;
    let who: AdminIdentity | undefined;
    if (session?.actorType === 'platform') who = { type: 'platform' };
    else if (session?.staffTokenHash) {
      const staff = await this.tenants.staffByTokenHash(session.staffTokenHash);
      who = staff ? { type: 'staff', staff } : undefined;
    }
    if (!session || !who) throw new NoAdminSessionError();
    const principal = on
      ? await this.adminOn(who, on.slug, on.role)
      : who.type === 'platform'
        ? { actor: PLATFORM }
        : { actor: staffActor(who.staff), tenant: who.staff.tenant };
    return { ...principal, actor: principal.actor ?? PLATFORM, csrf: session.csrf };
  }

  /**
   * An organisation's page (`:slug`) for `role` or higher: the admin pages' session of its cookie
   * (`adminSession`), and on any request but a GET the session's `_csrf` from the posted form,
   * whatever the body (one that was not a form has none): else StaleFormError, 403.
   */
  private async orgPage(credentials: Credentials, role: StaffRole): Promise<AdminSessionPrincipal> {
    const { slug, cookie, method, csrf } = credentials;
    if (slug === undefined) throw new Error('an organisation page without its :slug');
    const session = cookie ? parseCookies(cookie)[ADMIN_COOKIE] : undefined;
    const principal = await this.adminSession(session, { slug, role });
    if (method !== 'GET' && !sameSecret(csrf, principal.csrf)) throw new StaleFormError();
    return principal;
  }

  /** Ends an admin pages session. */
  adminSignOut(cookie: string): Promise<void> {
    return this.sessions.delete(cookie);
  }

  /** The popup's bearer JWT for a member who consented (docs/embedding.md); `embedBearer` checks it. */
  issueEmbedToken(tenantId: string, memberId: string): { token: string; expiresAt: number } {
    return this.tokens.issue(tenantId, memberId);
  }

  /**
   * `Authorization: Bearer <popup JWT>` of `tenant`: its member, or `401 invalid_token` /
   * `token_expired`, or `403 tenant_mismatch` for a token of another tenant.
   */
  embedBearer(authorization: string | undefined, tenant: TenantEntity): string {
    const claims = this.tokens.verify(bearerToken(authorization) ?? '');
    if (claims.tid !== tenant.id) {
      throw new ForbiddenError('This token was issued for another tenant.', 'tenant_mismatch');
    }
    return claims.sub;
  }

  /**
   * An Embed Data read of a tenant with `embed_auth: token` (docs/embedding.md §3): the popup JWT
   * of the very member the read names (`:user_id`), else 401 / 403 `tenant_mismatch` /
   * 403 `forbidden`. A tenant gated by Origin alone, the writes admitted by Origin (the lead
   * form) and a read that names no member (the application form's questions, read by people who
   * are not partners yet) need nothing more.
   */
  private tokenGatedRead(credentials: Credentials, tenant: TenantEntity): string | undefined {
    if (tenant.embedAuth !== 'token' || credentials.method !== 'GET') return undefined;
    if (credentials.userId === undefined) return undefined;
    const memberId = this.embedBearer(credentials.authorization, tenant);
    if (memberId !== credentials.userId) {
      throw new ForbiddenError("This token is another member's: a partner reads only their own.");
    }
    return memberId;
  }

  private async adminIdentity(token: string): Promise<AdminIdentity | undefined> {
    if (timingSafeEqual(digest(token), this.adminDigest)) return { type: 'platform' };
    const staff = token.startsWith('stf_')
      ? await this.tenants.staffByTokenHash(sha256Hex(token))
      : null;
    return staff ? { type: 'staff', staff } : undefined;
  }

  private async adminOn(
    who: AdminIdentity,
    slug: string | undefined,
    required: StaffRole | 'platform',
  ): Promise<Principal> {
    if (who.type === 'platform') {
      if (slug === undefined) return { actor: PLATFORM };
      const tenant = await this.tenants.tenantBySlug(slug);
      if (!tenant) throw new TenantNotFoundError(slug);
      return { actor: PLATFORM, tenant };
    }
    const { tenant, token } = who.staff;
    // A staff token never learns whether another tenant exists: a foreign slug is 403 either way.
    if (required === 'platform' || slug === undefined || tenant.slug !== slug) {
      throw new OtherTenantError();
    }
    if (!roleAllows(token.role, required)) throw new RoleTooLowError(required);
    return { tenant, actor: staffActor(who.staff) };
  }

  /** Counts the request against each of `names`, keyed as each limit says; past one, 429. */
  private async count(
    names: readonly RateLimitName[],
    tenantId: string | undefined,
    ip: string,
  ): Promise<void> {
    for (const name of names) {
      const { limit, windowSeconds, per } = RATE_LIMITS[name];
      const key = per === 'ip' ? ip : per === 'tenant' ? tenantId : tenantId && `${tenantId}:${ip}`;
      if (key === undefined) throw new Error(`rate limit ${name} needs a tenant`);
      await this.limiter.consume(name, key, limit, windowSeconds);
    }
  }
}

function staffActor({ token, tenant }: { token: StaffTokenEntity; tenant: TenantEntity }): Actor {
  return { type: 'staff', id: token.id, name: token.name, role: token.role, tenantId: tenant.id };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** The refusal, also carrying `headers` (those it has already win). */
function withHeaders(error: unknown, headers: Record<string, string>): unknown {
  if (error instanceof DomainError) {
    Object.assign(error, { headers: { ...headers, ...error.headers } });
  }
  return error;
}
