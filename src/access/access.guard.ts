import { CanActivate, ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { AppConfig } from '../config/app-config';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../common/errors/domain-error';
import { sha256Hex } from '../common/ids';
import { AuthenticatedRequest, roleAllows, StaffRole } from './principal';
import { AUTH_POLICY, AuthPolicy } from './access.decorators';
import { AUTH_LOOKUP, AuthLookup } from './auth-lookup';
import { ALLOW_ORIGIN, EmbedOriginPolicy } from './embed-origin';
import { EmbedTokenService } from './embed-token.service';
import { RateLimiter } from '../common/http/rate-limiter';

export const TENANT_KEY_HEADER = 'x-service-tenant-key';
/** SPEC 7: per tenant for the Federation API, per IP and tenant for the Embed APIs. */
export const FEDERATION_LIMIT_PER_MINUTE = 6000;
export const EMBED_LIMIT_PER_MINUTE = 600;

/**
 * Registered globally; default deny. A route states its policy with `@Public()`,
 * `@TenantKey()` or `@Admin(role)`; a route that states none is refused. The guard resolves the
 * tenant and the actor and leaves them on the request for `@CurrentTenant()`/`@CurrentActor()`.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly logger = new Logger(AuthGuard.name);
  private readonly adminTokenDigest: Buffer;

  constructor(
    private readonly reflector: Reflector,
    @Inject(AUTH_LOOKUP) private readonly lookup: AuthLookup,
    private readonly embedOrigin: EmbedOriginPolicy,
    private readonly embedTokens: EmbedTokenService,
    private readonly limiter: RateLimiter,
    config: AppConfig,
  ) {
    this.adminTokenDigest = digest(config.adminToken);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const policy = this.reflector.getAllAndOverride<AuthPolicy | undefined>(AUTH_POLICY, [
      context.getHandler(),
      context.getClass(),
    ]);
    const req = context.switchToHttp().getRequest<Request & AuthenticatedRequest>();
    if (!policy) {
      this.logger.error(`Route ${req.method} ${req.path} declares no access policy; refused`);
      throw new ForbiddenError('This route is not open to any credential.');
    }
    switch (policy.kind) {
      case 'public':
        return true;
      case 'tenant-key':
        await this.authenticateTenantKey(req);
        return true;
      case 'embed-origin':
      case 'embed-bearer': {
        const allowOwn = policy.kind === 'embed-origin' && policy.allowOwnOrigin === true;
        const { tenant, origin } = await this.embedOrigin.resolve(req, allowOwn);
        // CORS first, so that a page can read a 429's code and Retry-After (SPEC 4).
        context.switchToHttp().getResponse<Response>().setHeader(ALLOW_ORIGIN, origin);
        await this.limiter.consume('embed', `${tenant.id}:${req.ip}`, EMBED_LIMIT_PER_MINUTE, 60);
        req.tenant = tenant;
        if (policy.kind === 'embed-bearer') {
          const claims = this.embedTokens.verify(bearer(req) ?? '');
          if (claims.tid !== tenant.id) {
            throw new ForbiddenError(
              'This token was issued for another tenant.',
              'tenant_mismatch',
            );
          }
          req.memberId = claims.sub;
        }
        return true;
      }
      case 'admin':
        await this.authenticateAdmin(req, policy.role);
        return true;
    }
  }

  private async authenticateTenantKey(req: Request & AuthenticatedRequest): Promise<void> {
    const key = req.header(TENANT_KEY_HEADER);
    const found = key ? await this.lookup.tenantByKeyHash(sha256Hex(key)) : null;
    if (!found) {
      throw new UnauthorizedError(
        'invalid_tenant_key',
        'X-Service-Tenant-Key is missing, unknown or revoked.',
      );
    }
    await this.limiter.consume('federation', found.tenant.id, FEDERATION_LIMIT_PER_MINUTE, 60);
    req.tenant = found.tenant;
    req.actor = {
      type: 'tenant_key',
      id: found.keyId,
      name: found.keyName ?? found.keyId,
      tenantId: found.tenant.id,
    };
  }

  private async authenticateAdmin(
    req: Request & AuthenticatedRequest,
    required: StaffRole | 'platform',
  ): Promise<void> {
    const token = bearer(req);
    if (!token) throw invalidAdminToken();
    const slug = typeof req.params.slug === 'string' ? req.params.slug : undefined;

    if (timingSafeEqual(digest(token), this.adminTokenDigest)) {
      req.actor = { type: 'platform', name: 'platform-admin' };
      if (slug !== undefined) req.tenant = await this.tenantOr404(slug);
      return;
    }

    const staff = token.startsWith('stf_')
      ? await this.lookup.staffByTokenHash(sha256Hex(token))
      : null;
    if (!staff) throw invalidAdminToken();
    // A staff token never learns whether another tenant exists: a foreign slug is 403 either way.
    if (required === 'platform' || slug === undefined || staff.tenant.slug !== slug) {
      throw new ForbiddenError('This token may not act on this tenant.');
    }
    if (!roleAllows(staff.token.role, required)) {
      throw new ForbiddenError(`This action needs the ${required} role or higher.`);
    }
    req.tenant = staff.tenant;
    req.actor = {
      type: 'staff',
      id: staff.token.id,
      name: staff.token.name,
      role: staff.token.role,
      tenantId: staff.tenant.id,
    };
  }

  private async tenantOr404(slug: string) {
    const tenant = await this.lookup.tenantBySlug(slug);
    if (!tenant) throw new NotFoundError('tenant_not_found', `No tenant with slug "${slug}".`);
    return tenant;
  }
}

function bearer(req: Request): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.header('authorization') ?? '');
  return match?.[1];
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function invalidAdminToken() {
  return new UnauthorizedError(
    'invalid_admin_token',
    'The bearer token is missing, unknown or revoked.',
  );
}
