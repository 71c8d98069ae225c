/**
 * The partner groups specs' shared setup (test/e2e/groups/*.e2e-spec.ts): one app per file, a
 * fresh tenant with an owner, a manager and a viewer before every test, and the group calls
 * (docs/partners.md) through the Admin API. Fields of the returned object are set by the hooks:
 * read them inside a test.
 */
import { createStaffToken, createTenant, type TestTenant } from '../factories/tenants.factory';
import { adminApi, federationApi } from './api-client';
import { createTestApp, type TestApp } from './create-test-app';

export const GROUP_ID = /^grp_[0-9A-HJKMNP-TV-Z]{26}$/;

export interface Group {
  group_id: string;
  slug: string;
  name: string;
  program: Record<string, unknown> | null;
  signup: { enabled: boolean; auto_approve: boolean; fields: Record<string, unknown>[] };
  promote_to: Record<string, unknown> | null;
  members_count: number;
  created_at: string;
}

export function groupsSuite(
  tenantOverrides: Record<string, unknown> = {},
  env: Record<string, string> = {},
) {
  const s = {} as {
    t: TestApp;
    tenant: TestTenant;
    owner: string;
    manager: string;
    viewer: string;
  };
  beforeAll(async () => {
    s.t = await createTestApp(env);
  });
  afterAll(() => s.t.close());
  beforeEach(async () => {
    s.tenant = await createTenant(s.t, tenantOverrides);
    [s.owner, s.manager, s.viewer] = await Promise.all([
      createStaffToken(s.t, s.tenant.slug, 'owner'),
      createStaffToken(s.t, s.tenant.slug, 'manager'),
      createStaffToken(s.t, s.tenant.slug, 'viewer'),
    ]);
  });

  const base = (slug = s.tenant.slug) => `/admin/v1/tenants/${slug}`;
  const as = (token = s.manager) => adminApi(s.t, token).raw;
  return Object.assign(s, {
    fed: (key = s.tenant.key) => federationApi(s.t, key),
    createGroup: (body: unknown, token = s.manager, slug?: string) =>
      as(token)('post', `${base(slug)}/groups`, body),
    listGroups: (query = '', token = s.manager, slug?: string) =>
      as(token)('get', `${base(slug)}/groups${query}`),
    getGroup: (groupId: string, token = s.manager, slug?: string) =>
      as(token)('get', `${base(slug)}/groups/${groupId}`),
    updateGroup: (groupId: string, body: unknown, token = s.manager, slug?: string) =>
      as(token)('patch', `${base(slug)}/groups/${groupId}`, body),
    moveMember: (userId: string, groupId: unknown, token = s.manager, slug?: string) =>
      as(token)('post', `${base(slug)}/users/${userId}/group`, { group_id: groupId }),
    /** Creates a group (201 or the test fails) and answers it. */
    async group(body: Record<string, unknown>): Promise<Group> {
      const res = await as(s.manager)('post', `${base()}/groups`, { name: 'Group', ...body });
      if (res.status !== 201) throw new Error(`group: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as Group;
    },
    /** The tenant's default group. */
    async defaultGroup(orgId = s.tenant.orgId): Promise<{ id: string; slug: string }> {
      const [row] = await s.t.db.query(
        `SELECT id, slug FROM groups WHERE tenant_id = $1 AND slug = 'default'`,
        [orgId],
      );
      return row;
    },
    async groupOf(memberId: string, orgId = s.tenant.orgId): Promise<string> {
      const [row] = await s.t.db.query(
        `SELECT group_id FROM members WHERE tenant_id = $1 AND id = $2`,
        [orgId, memberId],
      );
      return row.group_id;
    },
  });
}
