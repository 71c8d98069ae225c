/**
 * The tenant Admin API specs' shared setup (test/e2e/tenants/tenants-*.e2e-spec.ts,
 * test/e2e/audit/tenants-audit.e2e-spec.ts): one app per file, the platform admin's calls through
 * the typed client, and the checks on problem documents and secrets the specs share. The app is
 * set by the hooks: read it inside a test.
 */
import { uniqueSlug } from '../factories/tenants.factory';
import { adminApi, federationApi } from './api-client';
import { createTestApp, type TestApp } from './create-test-app';
import { expectProblem } from './problem';

export { expectProblem };

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const ULID = '[0-9A-HJKMNP-TV-Z]{26}';
export const ORG_ID = new RegExp(`^org_${ULID}$`);
/** 192 bits or more of base64url after the prefix (README.md). */
export const TENANT_KEY = /^tk_[A-Za-z0-9_-]{32,}$/;
export const DEFAULT_PROGRAM = {
  lead_bonus_kopecks: 0,
  tiers: [
    { tier: 'referrer', percent_bp: 1000 },
    { tier: 'upline_1', percent_bp: 300 },
  ],
  grace_period_hours: 336,
};

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `count` tiers in chain order, each paying `percent_bp`. */
export function tiers(count: number, percent_bp = 100) {
  return Array.from({ length: count }, (_, i) => ({
    tier: i === 0 ? 'referrer' : `upline_${i}`,
    percent_bp,
  }));
}

type Answer = Parameters<typeof expectProblem>[0];

export function expectFieldError(res: Answer & { body: { errors?: unknown } }, field: string) {
  expectProblem(res, 400, 'validation_failed');
  expect(res.body.errors).toEqual(expect.arrayContaining([{ field, message: expect.any(String) }]));
}

/** A response body that shows no secret of any kind. */
export function expectNoSecret(body: unknown, ...secrets: string[]) {
  const text = JSON.stringify(body);
  for (const secret of secrets) expect(text).not.toContain(secret);
  expect(text).not.toMatch(/"tk_[A-Za-z0-9_-]{20,}/);
  expect(text).not.toMatch(/"stf_[A-Za-z0-9_-]{20,}/);
  expect(text).not.toMatch(/[0-9a-f]{64}/i);
  // No field that names a secret or a hash of one.
  expect(text).not.toMatch(/"[a-z_]*(hash|secret)[a-z_]*":|"(tenant_key|token)":/i);
}

export function tenantsSuite() {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  /** The Admin API with the platform admin token (or another). */
  const admin = (token = t.adminToken) => adminApi(t, token);
  return {
    get t() {
      return t;
    },
    admin,
    createRaw: (body: Record<string, unknown>, token?: string) => admin(token).createTenant(body),
    getTenant: (slug: string, token?: string) => admin(token).getTenant(slug),
    patchTenant: (slug: string, body: Record<string, unknown>, token?: string) =>
      admin(token).updateTenant(slug, body),
    createKey: (slug: string, body: Record<string, unknown> = {}, token?: string) =>
      admin(token).createTenantKey(slug, body),
    listKeys: (slug: string, token?: string) => admin(token).listTenantKeys(slug),
    revokeKey: (slug: string, keyId: string, token?: string) =>
      admin(token).revokeTenantKey(slug, keyId),
    auditLog: (slug: string, query: Record<string, string | number> = {}, token?: string) =>
      admin(token).auditLog(slug, query),
    federationUpsert: (key: string, body: Record<string, unknown>) =>
      federationApi(t, key).upsertUser(body),
    validBody: (slug = uniqueSlug('v')) => ({
      slug,
      display_name: `Tenant ${slug}`,
      allowed_origins: [`https://${slug}.example`],
    }),
  };
}
