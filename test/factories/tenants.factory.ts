import { randomBytes } from 'node:crypto';
import type { CreatedTenantResponse } from '../../src/tenants/dto/tenant.response';
import { adminApi } from '../utils/api-client';
import type { TestApp } from '../utils/create-test-app';

export interface TestTenant {
  slug: string;
  orgId: string;
  key: string;
  body: CreatedTenantResponse;
}

export function uniqueSlug(prefix = 't'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

/** Creates a tenant through the admin API, as a platform operator would. */
export async function createTenant(
  t: TestApp,
  overrides: Record<string, unknown> = {},
): Promise<TestTenant> {
  const slug = (overrides.slug as string) ?? uniqueSlug();
  const res = await adminApi(t, t.adminToken).createTenant({
    slug,
    display_name: `Tenant ${slug}`,
    allowed_origins: [`https://${slug}.example`],
    ...overrides,
  });
  if (res.status !== 201)
    throw new Error(`createTenant: ${res.status} ${JSON.stringify(res.body)}`);
  return { slug, orgId: res.body.org_id, key: res.body.tenant_key, body: res.body };
}

/** Creates a staff token of `role` for the tenant. */
export async function createStaffToken(
  t: TestApp,
  slug: string,
  role: 'owner' | 'manager' | 'viewer',
): Promise<string> {
  const res = await adminApi(t, t.adminToken).createStaffToken(slug, {
    name: `${role} of ${slug}`,
    role,
  });
  if (res.status !== 201)
    throw new Error(`createStaffToken: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.token;
}
