/**
 * docs/security.md: the tenant keys on the integration page (/org/<slug>/integration) are for
 * owners only, as in the Admin API (GET/POST/DELETE …/keys are owner-only). Viewers and managers
 * see neither the list nor its actions, and the actions are refused on the server.
 */
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { createTestApp, type TestApp } from '../../utils/create-test-app';
import { orgCsrf, orgSignIn } from '../../utils/pages-http';

type Who = 'viewer' | 'manager' | 'owner' | 'platform';

const SEES_KEYS: Record<Who, boolean> = {
  viewer: false,
  manager: false,
  owner: true,
  platform: true,
};

describe('integration page: tenant keys are for owners only (docs/security.md)', () => {
  let t: TestApp;
  let org: TestTenant;
  const tokens = {} as Record<Who, string>;

  beforeAll(async () => {
    t = await createTestApp();
    // An English tenant: the page's words below are its English ones (the console's languages).
    org = await createTenant(t, { locale: 'en-US' });
    for (const role of ['viewer', 'manager', 'owner'] as const)
      tokens[role] = await createStaffToken(t, org.slug, role);
    tokens.platform = t.adminToken;
  });
  afterAll(() => t.close());

  const keys = async () =>
    (
      await t
        .http()
        .get(`/admin/v1/tenants/${org.slug}/keys`)
        .set('Authorization', `Bearer ${t.adminToken}`)
    ).body.items as {
      key_id: string;
      key_hint: string;
      name: string | null;
      revoked_at: string | null;
    }[];
  const auditCount = async () =>
    (
      await t.db.query(`SELECT count(*)::int AS n FROM audit_log WHERE tenant_id = $1`, [org.orgId])
    )[0].n as number;

  it.each(Object.keys(SEES_KEYS) as Who[])('%s', async (who) => {
    const cookie = await orgSignIn(t.http, tokens[who]);
    const csrf = await orgCsrf(t.http, cookie, org.slug);
    const [key] = (await keys()).filter((k) => k.revoked_at === null);
    expect(key).toBeDefined();

    // The page shows the list and its actions exactly to those the Admin API lets list keys.
    const page = await t.http().get(`/org/${org.slug}/integration`).set('Cookie', cookie);
    expect(page.status).toBe(200);
    const shown = {
      heading: page.text.includes('Tenant keys'),
      hint: page.text.includes(key.key_hint),
      revoke: page.text.includes(`/integration/keys/${key.key_id}/revoke`),
      create: page.text.includes('data-form="create-key"'),
    };
    const sees = SEES_KEYS[who];
    expect(shown).toEqual({ heading: sees, hint: sees, revoke: sees, create: sees });
    // Everyone still sees the rest of the page (origins, webhook, deliveries).
    expect(page.text).toContain('data-form="settings"');
    expect(page.text).toContain('Recent deliveries');

    const api = await t
      .http()
      .get(`/admin/v1/tenants/${org.slug}/keys`)
      .set('Authorization', `Bearer ${tokens[who]}`);
    expect(api.status).toBe(sees ? 200 : 403);

    // The actions, posted with the session's own valid token.
    const before = { keys: await keys(), audit: await auditCount() };
    const post = (path: string, fields: Record<string, string>) =>
      t
        .http()
        .post(`/org/${org.slug}/integration/${path}`)
        .set('Cookie', cookie)
        .type('form')
        .send({ _csrf: csrf, ...fields });
    const create = await post('keys', { name: `by-${who}` });
    const revoke = await post(`keys/${key.key_id}/revoke`, {});
    if (sees) {
      expect(create.status).toBe(200);
      expect(create.text).toMatch(/tk_[A-Za-z0-9_-]{32,}/);
      expect(revoke.status).toBe(303);
      const after = await keys();
      expect(after.find((k) => k.name === `by-${who}`)?.revoked_at).toBeNull();
      expect(after.find((k) => k.key_id === key.key_id)?.revoked_at).not.toBeNull();
      // Leave one active key for the next role (a tenant has at most two).
      return;
    }
    for (const res of [create, revoke]) {
      expect(res.status).toBe(403);
      expect(res.text).toContain('This needs the owner role or higher.');
      expect(res.text).not.toContain(key.key_hint);
    }
    expect({ keys: await keys(), audit: await auditCount() }).toEqual(before);
  });
});
