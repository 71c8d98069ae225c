import type { StaffTokenEntity } from '../tenants/staff-token.entity';
import type { TenantEntity } from '../tenants/tenant.entity';

/**
 * What the global guard needs to resolve credentials, implemented by the tenants feature. The
 * guard depends on this interface, not on the feature, so `common/` stays free of feature code.
 */
export interface AuthLookup {
  tenantBySlug(slug: string): Promise<TenantEntity | null>;
  tenantById(tenantId: string): Promise<TenantEntity | null>;
  tenantByKeyHash(
    keyHash: string,
  ): Promise<{ tenant: TenantEntity; keyId: string; keyName: string | null } | null>;
  staffByTokenHash(
    tokenHash: string,
  ): Promise<{ tenant: TenantEntity; token: StaffTokenEntity } | null>;
}

export const AUTH_LOOKUP = Symbol('AUTH_LOOKUP');
