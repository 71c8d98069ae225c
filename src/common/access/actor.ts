/**
 * Who calls a route and with which staff role: the part of the access contract that the routes,
 * the services that audit their changes and the audit log itself share. It lives in common/ (with
 * the route decorators) because tenants/ and audit/, which access/ builds on, use it too
 * (docs/architecture.md, "Module boundaries"); AccessService (access/) resolves it.
 */
export const STAFF_ROLES = ['owner', 'manager', 'viewer'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

/** Who is calling; written into the audit log as `{type, name}`. */
export type Actor =
  | { type: 'platform'; name: string }
  | { type: 'staff'; id: string; name: string; role: StaffRole; tenantId: string }
  | { type: 'tenant_key'; id: string; name: string; tenantId: string };

/** The service itself, acting with no caller: the payout schedule, the webhook engine. */
export type SystemActor = { type: 'system'; name: string };

/** A partner acting for themselves (the partner portal: their payout details); `id` is `mbr_…`. */
export type PartnerActor = { type: 'partner'; id: string; name: string };

/** Whoever an audit entry and the changes that write one name: a caller, a partner or the service. */
export type AuditActor = Actor | SystemActor | PartnerActor;

export const systemActor = (name: string): SystemActor => ({ type: 'system', name });

/** The partner `memberId` (`mbr_…`) as the audit log names them. */
export const partnerActor = (memberId: string): PartnerActor => ({
  type: 'partner',
  id: memberId,
  name: `partner ${memberId}`,
});

/**
 * What the guard (or a fast lane) leaves on the request for the route decorators to read; the
 * tenant is access's TenantEntity (AuthenticatedRequest of access/principal.ts).
 */
export interface RequestPrincipal {
  tenant?: object;
  actor?: Actor;
  /** The member an embed bearer token was issued to (`sub`). */
  memberId?: string;
  /** The CSRF token of an admin pages session, which the page's forms carry. */
  csrf?: string;
}

const RANK: Record<StaffRole, number> = { viewer: 1, manager: 2, owner: 3 };

/** Whether a staff role may do what `required` allows (owner ⊃ manager ⊃ viewer). */
export function roleAllows(role: StaffRole, required: StaffRole): boolean {
  return RANK[role] >= RANK[required];
}
