import { Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AppConfig } from '../config/app-config';
import type { TenantEntity } from '../tenants/tenant.entity';
import { DomainError, NotFoundError, ValidationFailedError } from '../common/errors/domain-error';
import { AUTH_LOOKUP, AuthLookup } from './auth-lookup';

export const ALLOW_ORIGIN = 'Access-Control-Allow-Origin';

/**
 * The Embed APIs' gate (SPEC 4): `?tenant=` names the tenant, and the request's `Origin` must be
 * one of its `allowed_origins` exactly (scheme, host and port). A missing or `null` Origin is
 * refused, except a same-origin request (`Sec-Fetch-Site: same-origin`), which is taken to come
 * from the service's own origin and checked like any other. Refusals carry an empty
 * Access-Control-Allow-Origin. Origin gating is not authentication.
 */
@Injectable()
export class EmbedOriginPolicy {
  private readonly ownOrigin: string;

  constructor(
    @Inject(AUTH_LOOKUP) private readonly lookup: AuthLookup,
    config: AppConfig,
  ) {
    this.ownOrigin = new URL(config.publicBaseUrl).origin;
  }

  /** `allowOwnOrigin`: the service's own pages (the landing page's lead form) may call too. */
  resolve(req: Request, allowOwnOrigin = false): Promise<{ tenant: TenantEntity; origin: string }> {
    return this.check(
      req.query.tenant,
      req.header('origin'),
      req.header('sec-fetch-site'),
      allowOwnOrigin,
    );
  }

  /** The same gate from the request's parts (the embed read lane has no Express request). */
  async check(
    slug: unknown,
    originHeader: string | undefined,
    secFetchSite: string | undefined,
    allowOwnOrigin = false,
  ): Promise<{ tenant: TenantEntity; origin: string }> {
    if (typeof slug !== 'string' || slug.length === 0) {
      throw new ValidationFailedError([
        { field: 'tenant', message: 'is required (the tenant slug)' },
      ]);
    }
    const tenant = await this.lookup.tenantBySlug(slug);
    if (!tenant) throw new NotFoundError('tenant_not_found', `No tenant with slug "${slug}".`);
    const origin = this.originOf(originHeader, secFetchSite);
    const allowed =
      origin &&
      (tenant.allowedOrigins.includes(origin) || (allowOwnOrigin && origin === this.ownOrigin));
    if (!allowed) {
      throw new DomainError(
        403,
        'origin_not_allowed',
        origin
          ? `Origin ${origin} is not in the allowed_origins of tenant "${slug}".`
          : 'The request has no usable Origin header.',
        undefined,
        { [ALLOW_ORIGIN]: '' },
      );
    }
    return { tenant, origin: origin };
  }

  private originOf(
    origin: string | undefined,
    secFetchSite: string | undefined,
  ): string | undefined {
    if (origin && origin !== 'null') return origin;
    if (!origin && secFetchSite === 'same-origin') return this.ownOrigin;
    return undefined;
  }
}
