import { randomBytes } from 'node:crypto';
import type { TestApp } from '../utils/create-test-app';

export interface TestTenant {
  slug: string;
  orgId: string;
  key: string;
  body: Record<string, unknown>;
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
  const res = await t
    .http()
    .post('/admin/v1/tenants')
    .set('Authorization', `Bearer ${t.adminToken}`)
    .send({
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
  const res = await t
    .http()
    .post(`/admin/v1/tenants/${slug}/staff-tokens`)
    .set('Authorization', `Bearer ${t.adminToken}`)
    .send({ name: `${role} of ${slug}`, role });
  if (res.status !== 201)
    throw new Error(`createStaffToken: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.token;
}
