import type { Actor, RequestPrincipal } from '../common/access/actor';
import type { TenantEntity } from '../tenants/tenant.entity';

/**
 * What AccessService answers for a request whose credential it accepted: the tenant it acts on,
 * who acts (for the audit log), the member of an embed bearer token, the CSRF token of an admin
 * pages session, and the headers every answer
 * to the request carries (the Embed APIs' CORS). Public routes get an empty principal.
 */
export interface Principal {
  tenant?: TenantEntity;
  actor?: Actor;
  /** The member an embed bearer token was issued to (`sub`). */
  memberId?: string;
  /** The CSRF token of an admin pages session (an organisation's page), for its forms. */
  csrf?: string;
  headers?: Readonly<Record<string, string>>;
}

/** The request as the route decorators read it: the guard (or a fast lane) puts the principal on it. */
export interface AuthenticatedRequest extends RequestPrincipal {
  tenant?: TenantEntity;
}
