import { randomBytes } from 'node:crypto';
import type { Response, Test } from 'supertest';
import {
  createStaffToken,
  createTenant,
  TestTenant,
  uniqueSlug,
} from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

type Role = 'owner' | 'manager' | 'viewer';
type Credential =
  | 'platform'
  | 'owner'
  | 'manager'
  | 'viewer'
  | "another tenant's owner"
  | 'revoked staff token'
  | 'garbage bearer'
  | 'none';

const CREDENTIALS: Credential[] = [
  'platform',
  'owner',
  'manager',
  'viewer',
  "another tenant's owner",
  'revoked staff token',
  'garbage bearer',
  'none',
];

/**
 * One admin route: how to set up what it acts on, how to call it, what success looks like, and
 * (for a change) how to see that a refused call changed nothing.
 */
interface Route<P = unknown> {
  name: string;
  /** The staff roles README.md lets through; the platform token always passes, nothing else does. */
  staff: Role[];
  ok: number;
  prepare: (slug: string) => Promise<P>;
  call: (slug: string, prepared: P, authorize: (test: Test) => Test) => Test;
  unchanged?: (slug: string, prepared: P) => Promise<void>;
}

const ALL: Role[] = ['owner', 'manager', 'viewer'];

/** Erases a route's prepared-value type so that routes of all kinds fit in one table. */
const route = <P>(r: Route<P>) => r as unknown as Route;

function withoutRequestId(body: Record<string, unknown>) {
  const { request_id: _r, ...rest } = body;
  return rest;
}

/** A problem body with every id-like token of the detail replaced, to compare shapes. */
function shapeOf(body: Record<string, unknown>) {
  const rest = withoutRequestId(body);
  return {
    ...rest,
    detail: String(rest.detail).replace(/\b(usr|mbr|key|stt|org)_[0-9A-Za-z]+/g, '<id>'),
  };
}

function expectProblem(res: Response, status: number, code: string) {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
}

describe('Admin API: who may do what (README.md)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  const tokens = {} as Record<Credential, string | undefined>;

  const admin = () => ({ Authorization: `Bearer ${t.adminToken}` });
  const keysOf = async (slug: string) =>
    (await t.http().get(`/admin/v1/tenants/${slug}/keys`).set(admin())).body.items as {
      key_id: string;
      name: string | null;
      revoked_at: string | null;
    }[];
  const staffTokensOf = async (slug: string) =>
    (await t.http().get(`/admin/v1/tenants/${slug}/staff-tokens`).set(admin())).body.items as {
      token_id: string;
      revoked_at: string | null;
    }[];
  const auditActions = async (slug: string, action: string) =>
    (
      await t.http().get(`/admin/v1/tenants/${slug}/audit-log`).query({ action }).set(admin())
    ).body.items.map((e: { target_id: string }) => e.target_id) as string[];

  /** Revokes every key but the initial one, so that one more can be created. */
  const makeRoomForKey = async (slug: string) => {
    for (const key of await keysOf(slug)) {
      if (key.revoked_at === null && key.name !== 'initial') {
        await t.http().delete(`/admin/v1/tenants/${slug}/keys/${key.key_id}`).set(admin());
      }
    }
  };

  const ROUTES: Route[] = [
    route({
      name: 'GET tenant',
      staff: ALL,
      ok: 200,
      prepare: async () => undefined,
      call: (slug, _p, authorize) => authorize(t.http().get(`/admin/v1/tenants/${slug}`)),
    }),
    route({
      name: 'PATCH tenant',
      staff: ['owner'],
      ok: 200,
      prepare: async () => `Renamed ${randomBytes(4).toString('hex')}`,
      call: (slug, name, authorize) =>
        authorize(t.http().patch(`/admin/v1/tenants/${slug}`)).send({ display_name: name }),
      unchanged: async (slug, name) => {
        const got = await t.http().get(`/admin/v1/tenants/${slug}`).set(admin());
        expect(got.body.display_name).not.toBe(name);
      },
    }),
    route({
      name: 'POST keys',
      staff: ['owner'],
      ok: 201,
      prepare: async (slug) => {
        await makeRoomForKey(slug);
        return (await keysOf(slug)).length;
      },
      call: (slug, _count, authorize) =>
        authorize(t.http().post(`/admin/v1/tenants/${slug}/keys`)).send({ name: 'matrix' }),
      unchanged: async (slug, count) => expect(await keysOf(slug)).toHaveLength(count),
    }),
    route({
      name: 'GET keys',
      staff: ['owner'],
      ok: 200,
      prepare: async () => undefined,
      call: (slug, _p, authorize) => authorize(t.http().get(`/admin/v1/tenants/${slug}/keys`)),
    }),
    route({
      name: 'DELETE key',
      staff: ['owner'],
      ok: 204,
      prepare: async (slug) => {
        await makeRoomForKey(slug);
        const res = await t.http().post(`/admin/v1/tenants/${slug}/keys`).set(admin()).send({});
        expect(res.status).toBe(201);
        return res.body as { key_id: string; tenant_key: string };
      },
      call: (slug, key, authorize) =>
        authorize(t.http().delete(`/admin/v1/tenants/${slug}/keys/${key.key_id}`)),
      unchanged: async (_slug, key) => {
        const res = await t
          .http()
          .post('/federation/v1/users/upsert')
          .set('X-Service-Tenant-Key', key.tenant_key)
          .send({ external_id: 'still-works' });
        expect(res.status).toBe(200);
      },
    }),
    route({
      name: 'POST staff-tokens',
      staff: ['owner'],
      ok: 201,
      prepare: async (slug) => (await staffTokensOf(slug)).length,
      call: (slug, _count, authorize) =>
        authorize(t.http().post(`/admin/v1/tenants/${slug}/staff-tokens`)).send({
          name: 'Escalation attempt',
          role: 'owner',
        }),
      unchanged: async (slug, count) => expect(await staffTokensOf(slug)).toHaveLength(count),
    }),
    route({
      name: 'GET staff-tokens',
      staff: ['owner'],
      ok: 200,
      prepare: async () => undefined,
      call: (slug, _p, authorize) =>
        authorize(t.http().get(`/admin/v1/tenants/${slug}/staff-tokens`)),
    }),
    route({
      name: 'DELETE staff-token',
      staff: ['owner'],
      ok: 204,
      prepare: async (slug) => {
        const res = await t
          .http()
          .post(`/admin/v1/tenants/${slug}/staff-tokens`)
          .set(admin())
          .send({ name: 'to revoke', role: 'viewer' });
        expect(res.status).toBe(201);
        return res.body as { token_id: string; token: string };
      },
      call: (slug, token, authorize) =>
        authorize(t.http().delete(`/admin/v1/tenants/${slug}/staff-tokens/${token.token_id}`)),
      unchanged: async (slug, token) => {
        const res = await t
          .http()
          .get(`/admin/v1/tenants/${slug}`)
          .set('Authorization', `Bearer ${token.token}`);
        expect(res.status).toBe(200);
      },
    }),
    route({
      name: 'GET audit-log',
      staff: ALL,
      ok: 200,
      prepare: async () => undefined,
      call: (slug, _p, authorize) => authorize(t.http().get(`/admin/v1/tenants/${slug}/audit-log`)),
    }),
    route({
      name: 'POST users/:id/deactivate',
      staff: ['owner', 'manager'],
      ok: 200,
      prepare: async (slug) => (await upsertUser(t, keyOf(slug))).memberId,
      call: (slug, memberId, authorize) =>
        authorize(t.http().post(`/admin/v1/tenants/${slug}/users/${memberId}/deactivate`)).send({}),
      unchanged: async (slug, memberId) =>
        expect(await auditActions(slug, 'user.deactivated')).not.toContain(memberId),
    }),
    route({
      name: 'POST users/:id/activate',
      staff: ['owner', 'manager'],
      ok: 200,
      prepare: async (slug) => (await upsertUser(t, keyOf(slug))).memberId,
      call: (slug, memberId, authorize) =>
        authorize(t.http().post(`/admin/v1/tenants/${slug}/users/${memberId}/activate`)).send({}),
      unchanged: async (slug, memberId) =>
        expect(await auditActions(slug, 'user.activated')).not.toContain(memberId),
    }),
  ];

  const keyOf = (slug: string) => (slug === tenant.slug ? tenant.key : other.key);

  /** Sets the credential's Authorization header, or none. */
  const authorizeAs = (credential: Credential) => (test: Test) => {
    const token = tokens[credential];
    return token === undefined ? test : test.set('Authorization', `Bearer ${token}`);
  };

  function expected(route: Route, credential: Credential): { status: number; code?: string } {
    switch (credential) {
      case 'platform':
        return { status: route.ok };
      case 'owner':
      case 'manager':
      case 'viewer':
        return route.staff.includes(credential)
          ? { status: route.ok }
          : { status: 403, code: 'forbidden' };
      case "another tenant's owner":
        return { status: 403, code: 'forbidden' };
      case 'revoked staff token':
      case 'garbage bearer':
      case 'none':
        return { status: 401, code: 'invalid_admin_token' };
    }
  }

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    other = await createTenant(t);
    tokens.platform = t.adminToken;
    tokens.owner = await createStaffToken(t, tenant.slug, 'owner');
    tokens.manager = await createStaffToken(t, tenant.slug, 'manager');
    tokens.viewer = await createStaffToken(t, tenant.slug, 'viewer');
    tokens["another tenant's owner"] = await createStaffToken(t, other.slug, 'owner');
    const revoked = await t
      .http()
      .post(`/admin/v1/tenants/${tenant.slug}/staff-tokens`)
      .set(admin())
      .send({ name: 'leaver', role: 'owner' });
    expect(
      (
        await t
          .http()
          .get(`/admin/v1/tenants/${tenant.slug}`)
          .set('Authorization', `Bearer ${revoked.body.token}`)
      ).status,
    ).toBe(200);
    expect(
      (
        await t
          .http()
          .delete(`/admin/v1/tenants/${tenant.slug}/staff-tokens/${revoked.body.token_id}`)
          .set(admin())
      ).status,
    ).toBe(204);
    tokens['revoked staff token'] = revoked.body.token;
    tokens['garbage bearer'] = `stf_${randomBytes(32).toString('base64url')}`;
    tokens.none = undefined;
  });
  afterAll(() => t.close());

  describe.each(CREDENTIALS)('as %s', (credential) => {
    it.each(ROUTES.map((route) => [route.name, route] as const))('%s', async (_name, route) => {
      const want = expected(route, credential);
      const prepared = await route.prepare(tenant.slug);
      const res = await route.call(tenant.slug, prepared, authorizeAs(credential));
      if (want.code) {
        expectProblem(res, want.status, want.code);
        expect(res.body.status).toBe(want.status);
        if (route.unchanged) await route.unchanged(tenant.slug, prepared);
      } else {
        expect({ status: res.status, body: res.body }).toEqual({
          status: want.status,
          body: expect.anything(),
        });
      }
    });
  });

  describe('POST /admin/v1/tenants', () => {
    const create = (credential: Credential) => {
      const slug = uniqueSlug('auth');
      return {
        slug,
        res: authorizeAs(credential)(t.http().post('/admin/v1/tenants')).send({
          slug,
          display_name: 'New',
          allowed_origins: ['https://new.example'],
        }),
      };
    };

    it('is open to the platform token', async () => {
      const { res } = create('platform');
      expect((await res).status).toBe(201);
    });

    it.each([
      ['owner', 403, 'forbidden'],
      ['manager', 403, 'forbidden'],
      ['viewer', 403, 'forbidden'],
      ["another tenant's owner", 403, 'forbidden'],
      ['revoked staff token', 401, 'invalid_admin_token'],
      ['garbage bearer', 401, 'invalid_admin_token'],
      ['none', 401, 'invalid_admin_token'],
    ] as [Credential, number, string][])(
      'is refused to %s (%i %s) and creates nothing',
      async (credential, status, code) => {
        const { slug, res } = create(credential);
        expectProblem(await res, status, code);
        const got = await t.http().get(`/admin/v1/tenants/${slug}`).set(admin());
        expectProblem(got, 404, 'tenant_not_found');
      },
    );
  });

  describe('slugs that are not the token’s tenant', () => {
    it.each(ROUTES.map((route) => [route.name, route] as const))(
      '%s: a staff token gets the same 403 for another existing tenant and for a missing slug',
      async (_name, route) => {
        const missing = uniqueSlug('nowhere');
        for (const credential of ['owner', 'viewer'] as const) {
          const authorize = authorizeAs(credential);
          const prepared = await route.prepare(other.slug);
          const onOther = await route.call(other.slug, prepared, authorize);
          const onMissing = await route.call(missing, prepared, authorize);
          expectProblem(onOther, 403, 'forbidden');
          expectProblem(onMissing, 403, 'forbidden');
          expect(withoutRequestId(onMissing.body)).toEqual(withoutRequestId(onOther.body));
          if (route.unchanged) await route.unchanged(other.slug, prepared);
        }
      },
    );

    it.each(ROUTES.map((route) => [route.name, route] as const))(
      '%s: the platform token gets 404 tenant_not_found for a missing slug',
      async (_name, route) => {
        const prepared = await route.prepare(tenant.slug);
        const res = await route.call(uniqueSlug('nowhere'), prepared, authorizeAs('platform'));
        expectProblem(res, 404, 'tenant_not_found');
      },
    );
  });

  describe('credentials in the wrong form', () => {
    it.each([
      ['an empty bearer', 'Bearer '],
      ['a bare token without scheme', `${'x'}`],
      ['the admin token under Basic', () => `Basic ${t.adminToken}`],
      ['a prefix of the admin token', () => `Bearer ${t.adminToken.slice(0, -1)}`],
      ['the admin token with a suffix', () => `Bearer ${t.adminToken}x`],
      ['a tenant key as bearer', () => `Bearer ${tenant.key}`],
      ['two tokens', () => `Bearer ${String(tokens.owner)} ${String(tokens.owner)}`],
    ])('refuses %s with 401 invalid_admin_token', async (_label, header) => {
      const value = typeof header === 'function' ? header() : header;
      const res = await t
        .http()
        .get(`/admin/v1/tenants/${tenant.slug}`)
        .set('Authorization', value);
      expectProblem(res, 401, 'invalid_admin_token');
    });

    it('refuses a staff token or the admin token as a tenant key', async () => {
      for (const key of [tokens.owner!, t.adminToken]) {
        const res = await t
          .http()
          .post('/federation/v1/users/upsert')
          .set('X-Service-Tenant-Key', key)
          .send({ external_id: 'x' });
        expectProblem(res, 401, 'invalid_tenant_key');
      }
    });

    it('stops a staff token on the very next request once it is revoked', async () => {
      const owner = await t
        .http()
        .post(`/admin/v1/tenants/${tenant.slug}/staff-tokens`)
        .set(admin())
        .send({ name: 'temp', role: 'owner' });
      const get = () =>
        t
          .http()
          .get(`/admin/v1/tenants/${tenant.slug}/audit-log`)
          .set('Authorization', `Bearer ${owner.body.token}`);
      expect((await get()).status).toBe(200);
      // An owner may revoke its own token.
      const revoke = await t
        .http()
        .delete(`/admin/v1/tenants/${tenant.slug}/staff-tokens/${owner.body.token_id}`)
        .set('Authorization', `Bearer ${owner.body.token}`);
      expect(revoke.status).toBe(204);
      expectProblem(await get(), 401, 'invalid_admin_token');
    });
  });

  describe('tenant isolation on the Federation API', () => {
    it("upserting tenant B's external_id with tenant A's key creates A's own member", async () => {
      const a = await createTenant(t);
      const b = await createTenant(t);
      const inB = await upsertUser(t, b.key, { external_id: 'shared-ext', full_name: 'In B' });
      const res = await t
        .http()
        .post('/federation/v1/users/upsert')
        .set('X-Service-Tenant-Key', a.key)
        .send({ external_id: 'shared-ext', full_name: 'In A' });
      expect(res.status).toBe(200);
      expect(res.body.action).toBe('created');
      expect(res.body.tenant_service_id).not.toBe(inB.memberId);
      expect(res.body.service_user_id).not.toBe(inB.serviceUserId);
      // B's member is untouched: the same upsert in B is still "unchanged".
      const again = await upsertUser(t, b.key, { external_id: 'shared-ext', full_name: 'In B' });
      expect(again.body).toMatchObject({ action: 'unchanged', tenant_service_id: inB.memberId });
    });

    it("a referrer who is a member only of tenant B is 404 referrer_not_found for A's key, like a never-existing id", async () => {
      const a = await createTenant(t);
      const b = await createTenant(t);
      const inB = await upsertUser(t, b.key);
      const upsertInA = (referrer: string) =>
        t
          .http()
          .post('/federation/v1/users/upsert')
          .set('X-Service-Tenant-Key', a.key)
          .send({ external_id: `e-${randomBytes(4).toString('hex')}`, referrer_user_id: referrer });
      const foreign = await upsertInA(inB.serviceUserId);
      const missing = await upsertInA('usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T');
      expectProblem(foreign, 404, 'referrer_not_found');
      expectProblem(missing, 404, 'referrer_not_found');
      expect(Object.keys(foreign.body).sort()).toEqual(Object.keys(missing.body).sort());
      expect(shapeOf(foreign.body)).toEqual(shapeOf(missing.body));
      expect(foreign.headers['content-type']).toBe(missing.headers['content-type']);
    });

    it("deactivating tenant B's member through tenant A's slug is 404 user_not_found, like a missing id", async () => {
      const a = await createTenant(t);
      const b = await createTenant(t);
      const inB = await upsertUser(t, b.key);
      const deactivateInA = (memberId: string) =>
        t
          .http()
          .post(`/admin/v1/tenants/${a.slug}/users/${memberId}/deactivate`)
          .set(admin())
          .send({});
      const foreign = await deactivateInA(inB.memberId);
      const missing = await deactivateInA('mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T');
      expectProblem(foreign, 404, 'user_not_found');
      expectProblem(missing, 404, 'user_not_found');
      expect(shapeOf(foreign.body)).toEqual(shapeOf(missing.body));
      // Nothing happened to B's member, in either tenant's log.
      expect(await auditActions(b.slug, 'user.deactivated')).toEqual([]);
      expect(await auditActions(a.slug, 'user.deactivated')).toEqual([]);

      // A's owner token cannot reach it through B's slug either.
      const aOwner = await createStaffToken(t, a.slug, 'owner');
      const viaB = await t
        .http()
        .post(`/admin/v1/tenants/${b.slug}/users/${inB.memberId}/deactivate`)
        .set('Authorization', `Bearer ${aOwner}`)
        .send({});
      expectProblem(viaB, 403, 'forbidden');
      expect(await auditActions(b.slug, 'user.deactivated')).toEqual([]);
    });

    it("revoking tenant B's key through tenant A's slug is 404 and B's key keeps working", async () => {
      const a = await createTenant(t);
      const b = await createTenant(t);
      const bKey = (await keysOf(b.slug))[0].key_id;
      const res = await t.http().delete(`/admin/v1/tenants/${a.slug}/keys/${bKey}`).set(admin());
      expect(res.status).toBe(404);
      const works = await t
        .http()
        .post('/federation/v1/users/upsert')
        .set('X-Service-Tenant-Key', b.key)
        .send({ external_id: 'x' });
      expect(works.status).toBe(200);
    });
  });
});
