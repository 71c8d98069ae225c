import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { DomainError, NotFoundError, ValidationFailedError } from '../common/errors/domain-error';
import type { TenantEntity } from '../tenants/tenant.entity';
import { TenantsService } from '../tenants/tenants.service';

export const ALLOW_ORIGIN = 'Access-Control-Allow-Origin';

/** The tenant an Embed API request names and the Origin it was admitted from. */
export interface EmbedGate {
  tenant: TenantEntity;
  origin: string;
  /** What every answer to an admitted request carries: its origin echoed, and `Vary: Origin`. */
  headers: Readonly<Record<string, string>>;
}

/**
 * The Embed APIs' gate (docs/embedding.md §3): `?tenant=` names the tenant, and the request's
 * `Origin` must be one of its `allowed_origins` exactly (scheme, host and port). A missing or
 * `null` Origin is refused, except a same-origin request (`Sec-Fetch-Site: same-origin`), which is
 * taken to come from the service's own origin and checked like any other. Refusals carry an empty
 * Access-Control-Allow-Origin. Origin gating is not authentication.
 */
@Injectable()
export class EmbedOriginPolicy {
  readonly ownOrigin: string;

  constructor(
    private readonly tenants: TenantsService,
    config: AppConfig,
  ) {
    this.ownOrigin = new URL(config.publicBaseUrl).origin;
  }

  /** `allowOwnOrigin`: the service's own pages (the landing page's lead form) may call too. */
  async check(
    slug: unknown,
    originHeader: string | undefined,
    secFetchSite: string | undefined,
    allowOwnOrigin = false,
  ): Promise<EmbedGate> {
    if (typeof slug !== 'string' || slug.length === 0) {
      throw new ValidationFailedError([
        { field: 'tenant', message: 'is required (the tenant slug)' },
      ]);
    }
    const tenant = await this.tenants.tenantBySlug(slug);
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
    return { tenant, origin, headers: { [ALLOW_ORIGIN]: origin, Vary: 'Origin' } };
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
