import {
  applyDecorators,
  createParamDecorator,
  ExecutionContext,
  SetMetadata,
} from '@nestjs/common';
import {
  ApiHeader,
  ApiParam,
  ApiQuery,
  ApiSecurity,
  DECORATORS,
  type OpenAPIObject,
} from '@nestjs/swagger';
import type { Request } from 'express';
import type { RequestPrincipal, StaffRole } from './actor';

/** A security scheme of the document, from the package's root exports only. */
type SecuritySchemeObject = Exclude<
  NonNullable<NonNullable<OpenAPIObject['components']>['securitySchemes']>[string],
  { $ref: string }
>;

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
  | { kind: 'admin'; role: StaffRole | 'platform' }
  /**
   * An organisation's page (`/org/:slug/…`): the admin pages' session cookie, of staff of `:slug`
   * with `role` or higher or of the platform admin, and on a form post the session's `_csrf`.
   */
  | { kind: 'org-page'; role: StaffRole };

export const AUTH_POLICY = 'auth:policy';

/**
 * The credentials a client sends, as OpenAPI security schemes (setupOpenApi declares them all):
 * the names are those of the document's `components.securitySchemes`.
 */
export const CREDENTIAL_SCHEMES = {
  'tenant-key': { type: 'apiKey', in: 'header', name: 'X-Service-Tenant-Key' },
  admin: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN or a staff token stf_…' },
  embed: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The popup JWT' },
  'admin-session': {
    type: 'apiKey',
    in: 'cookie',
    name: 'svc_admin',
    description: 'Admin pages session, from POST /org/sign-in',
  },
} as const satisfies Record<string, SecuritySchemeObject>;

export type CredentialScheme = keyof typeof CREDENTIAL_SCHEMES;

/**
 * What each policy asks a client to send, in the OpenAPI document: a scheme of
 * CREDENTIAL_SCHEMES, or none (`security: []`). One table, read by every policy decorator, so the
 * document says of each route what AccessService asks of it, and an operation without security
 * is one whose route declares no policy (Redocly's `security-defined` names it).
 */
const POLICY_SECURITY: Record<AuthPolicy['kind'], CredentialScheme | null> = {
  public: null,
  'tenant-key': 'tenant-key',
  // The Origin gate is no credential: any client can send an Origin header.
  'embed-origin': null,
  'embed-bearer': 'embed',
  admin: 'admin',
  'org-page': 'admin-session',
};

/**
 * `policy` for AccessGuard and the fast lanes, and its security in the OpenAPI document. "No
 * credential" is `security: []`: @nestjs/swagger keeps an empty list only on a controller (it
 * drops it from a handler's metadata), so on a handler it goes into the operation's own fields,
 * which the document builder copies into the operation last.
 */
function declarePolicy(policy: AuthPolicy): ClassDecorator & MethodDecorator {
  const scheme = POLICY_SECURITY[policy.kind];
  const metadata = SetMetadata(AUTH_POLICY, policy);
  return (target: object, key?: string | symbol, descriptor?: PropertyDescriptor) => {
    if (descriptor) metadata(target, key!, descriptor);
    else metadata(target as never);
    if (scheme) {
      if (descriptor) ApiSecurity(scheme)(target, key!, descriptor);
      else ApiSecurity(scheme)(target as never);
    } else if (descriptor) {
      const fields = (Reflect.getMetadata(DECORATORS.API_EXTENSION, descriptor.value) ??
        {}) as Record<string, unknown>;
      Reflect.defineMetadata(
        DECORATORS.API_EXTENSION,
        { ...fields, security: [] },
        descriptor.value as object,
      );
    } else {
      const security = (Reflect.getMetadata(DECORATORS.API_SECURITY, target) ?? []) as unknown[];
      Reflect.defineMetadata(DECORATORS.API_SECURITY, security, target);
    }
    return descriptor as never;
  };
}

/** No credential: health, metrics, docs. */
export const Public = () => declarePolicy({ kind: 'public' });

/** Federation API: `X-Service-Tenant-Key`; the key decides the tenant. */
export const TenantKey = () => declarePolicy({ kind: 'tenant-key' });

/** Embed Data API: gated by `?tenant=` and the request's Origin; no credential. */
export const EmbedOrigin = (options: { allowOwnOrigin?: boolean } = {}) =>
  applyDecorators(
    declarePolicy({ kind: 'embed-origin', ...options }),
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
    declarePolicy({ kind: 'embed-bearer' }),
    ApiQuery({ name: 'tenant', required: true, description: 'The tenant slug', example: 'acme' }),
    ApiHeader({
      name: 'Origin',
      required: true,
      description: "One of the tenant's allowed_origins",
    }),
  );

/**
 * An organisation's page for staff of `:slug` with `role` or higher (or the platform admin),
 * signed in to the admin pages: the admin pages' `@OrgView()`, `@OrgAction()` and
 * `@OrgDownload()` declare it, with how their refusals are worded as pages.
 */
export const OrgSession = (role: StaffRole) => declarePolicy({ kind: 'org-page', role });

/** The member the embed bearer token was issued to (`sub`). */
export const CurrentMemberId = createParamDecorator((_: unknown, ctx: ExecutionContext) => {
  const memberId = ctx.switchToHttp().getRequest<Request & RequestPrincipal>().memberId;
  if (!memberId) throw new Error('CurrentMemberId used on a route without @EmbedBearer()');
  return memberId;
});

/**
 * Admin API: the platform admin token, or a staff token of the tenant named by `:slug` whose role
 * is at least `role`. A staff role is always asked on a tenant, so its routes are under
 * `/admin/v1/tenants/:slug` and the `slug` path parameter is declared here, once for all of them
 * (`platform` alone is asked on routes of no tenant).
 */
export const Admin = (role: StaffRole | 'platform') =>
  role === 'platform'
    ? declarePolicy({ kind: 'admin', role })
    : applyDecorators(declarePolicy({ kind: 'admin', role }), ApiTenantSlug());

/**
 * The `{slug}` path parameter: the tenant a route under `/admin/v1/tenants/:slug` or
 * `/org/:slug` acts on. Declared on every such operation, so a generated client can call it.
 */
export const ApiTenantSlug = () =>
  ApiParam({
    name: 'slug',
    required: true,
    description: "The tenant's slug",
    example: 'acme',
    schema: { type: 'string' },
  });

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
