import {
  applyDecorators,
  createParamDecorator,
  ExecutionContext,
  SetMetadata,
} from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiQuery, ApiSecurity } from '@nestjs/swagger';
import type { Request } from 'express';
import type { RequestPrincipal, StaffRole } from './actor';

/**
 * What a route declares about access (docs/architecture.md, "Auth policies"): every controller uses
 * these, tenants' and the audit log's included, so they live in common/ and import no feature.
 * AccessGuard and the fast lanes (access/route-access.ts) read the policy; AccessService decides.
 */
export type AuthPolicy =
  | { kind: 'public' }
  | { kind: 'tenant-key' }
  /** Embed Data API: `?tenant=` and an allowed `Origin` (docs/embedding.md §3). */
  | { kind: 'embed-origin'; allowOwnOrigin?: boolean }
  /** Embed Action API: the Origin gate plus the popup's bearer JWT of the same tenant. */
  | { kind: 'embed-bearer' }
  /** `platform`: the platform admin token only; a staff role: that role or higher, or platform. */
  | { kind: 'admin'; role: StaffRole | 'platform' };

export const AUTH_POLICY = 'auth:policy';

/** No credential: health, metrics, docs. */
export const Public = () => SetMetadata(AUTH_POLICY, { kind: 'public' } satisfies AuthPolicy);

/** Federation API: `X-Service-Tenant-Key`; the key decides the tenant. */
export const TenantKey = () =>
  applyDecorators(
    SetMetadata(AUTH_POLICY, { kind: 'tenant-key' } satisfies AuthPolicy),
    ApiSecurity('tenant-key'),
  );

/** Embed Data API: gated by `?tenant=` and the request's Origin; no credential. */
export const EmbedOrigin = (options: { allowOwnOrigin?: boolean } = {}) =>
  applyDecorators(
    SetMetadata(AUTH_POLICY, { kind: 'embed-origin', ...options } satisfies AuthPolicy),
    ApiQuery({ name: 'tenant', required: true, description: 'The tenant slug', example: 'acme' }),
    ApiHeader({
      name: 'Origin',
      required: true,
      description: "One of the tenant's allowed_origins",
    }),
  );

/** Embed Action API: an allowed Origin and `Authorization: Bearer <popup JWT>` (embedding.md §4). */
export const EmbedBearer = () =>
  applyDecorators(
    SetMetadata(AUTH_POLICY, { kind: 'embed-bearer' } satisfies AuthPolicy),
    ApiBearerAuth('embed'),
    ApiQuery({ name: 'tenant', required: true, description: 'The tenant slug', example: 'acme' }),
    ApiHeader({
      name: 'Origin',
      required: true,
      description: "One of the tenant's allowed_origins",
    }),
  );

/** The member the embed bearer token was issued to (`sub`). */
export const CurrentMemberId = createParamDecorator((_: unknown, ctx: ExecutionContext) => {
  const memberId = ctx.switchToHttp().getRequest<Request & RequestPrincipal>().memberId;
  if (!memberId) throw new Error('CurrentMemberId used on a route without @EmbedBearer()');
  return memberId;
});

/**
 * Admin API: the platform admin token, or a staff token of the tenant named by `:slug` whose role
 * is at least `role`.
 */
export const Admin = (role: StaffRole | 'platform') =>
  applyDecorators(
    SetMetadata(AUTH_POLICY, { kind: 'admin', role } satisfies AuthPolicy),
    ApiBearerAuth('admin'),
  );

/** The tenant the guard resolved for this request. */
export const CurrentTenant = createParamDecorator((_: unknown, ctx: ExecutionContext) => {
  const tenant = ctx.switchToHttp().getRequest<Request & RequestPrincipal>().tenant;
  if (!tenant) throw new Error('CurrentTenant used on a route whose guard resolves no tenant');
  return tenant;
});

/** The credential's owner, for the audit log. */
export const CurrentActor = createParamDecorator((_: unknown, ctx: ExecutionContext) => {
  const actor = ctx.switchToHttp().getRequest<Request & RequestPrincipal>().actor;
  if (!actor) throw new Error('CurrentActor used on a route whose guard resolves no actor');
  return actor;
});
