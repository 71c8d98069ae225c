import type { TenantEntity } from '../tenants/tenant.entity';

export const STAFF_ROLES = ['owner', 'manager', 'viewer'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

/** Who is calling; written into the audit log as `{type, name}`. */
export type Actor =
  | { type: 'platform'; name: string }
  | { type: 'staff'; id: string; name: string; role: StaffRole; tenantId: string }
  | { type: 'tenant_key'; id: string; name: string; tenantId: string };

/**
 * What AccessService answers for a request whose credential it accepted: the tenant it acts on,
 * who acts (for the audit log), the member of an embed bearer token, and the headers every answer
 * to the request carries (the Embed APIs' CORS). Public routes get an empty principal.
 */
export interface Principal {
  tenant?: TenantEntity;
  actor?: Actor;
  /** The member an embed bearer token was issued to (`sub`). */
  memberId?: string;
  headers?: Readonly<Record<string, string>>;
}

/** The request as the route decorators read it: the guard (or a fast lane) puts the principal on it. */
export interface AuthenticatedRequest {
  tenant?: TenantEntity;
  actor?: Actor;
  /** The member an embed bearer token was issued to. */
  memberId?: string;
}

const RANK: Record<StaffRole, number> = { viewer: 1, manager: 2, owner: 3 };

/** Whether a staff role may do what `required` allows (owner ⊃ manager ⊃ viewer). */
export function roleAllows(role: StaffRole, required: StaffRole): boolean {
  return RANK[role] >= RANK[required];
}
