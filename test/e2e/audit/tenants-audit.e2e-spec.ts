/**
 * A tenant's audit log over the Admin API (every admin action, newest first, paged and filtered)
 * and deactivating and activating members. Setup: tenants-suite.
 */
import {
  createStaffToken,
  createTenant,
  type TestTenant,
  uniqueSlug,
} from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import {
  tenantsSuite,
  ISO_MS,
  ULID,
  sleep,
  expectProblem,
  expectFieldError,
  expectNoSecret,
} from '../../utils/tenants-suite';

describe('Admin API: audit log and members', () => {
  const s = tenantsSuite();

  describe('GET /admin/v1/tenants/:slug/audit-log', () => {
    interface Entry {
      id: string;
      at: string;
      actor: { type: string; name: string };
      action: string;
      target_type: string;
      target_id: string;
      details: Record<string, unknown>;
    }
    let tenant: TestTenant;
    let secondKeyId: string;
    let staffTokenId: string;
    let memberId: string;
    let entries: Entry[];

    beforeAll(async () => {
      tenant = await createTenant(s.t);
      // Each step is its own request, so the entries get distinct, increasing times.
      const step = async <T>(fn: () => Promise<T>) => {
        const result = await fn();
        await sleep(3);
        return result;
      };
      await sleep(3);
      secondKeyId = (await step(() => s.createKey(tenant.slug, { name: 'ci' }))).body.key_id;
      await step(() => s.revokeKey(tenant.slug, secondKeyId));
      const staff = await step(() =>
        s.admin().createStaffToken(tenant.slug, { name: 'Alice (finance)', role: 'manager' }),
      );
      staffTokenId = staff.body.token_id;
      await step(() => s.patchTenant(tenant.slug, { display_name: 'Audited', locale: 'en' }));
      memberId = (await step(() => upsertUser(s.t, tenant.key))).memberId;
      await s
        .admin(staff.body.token)
        .raw('post', `/admin/v1/tenants/${tenant.slug}/users/${memberId}/deactivate`, {});
      const res = await s.auditLog(tenant.slug);
      expect(res.status).toBe(200);
      entries = res.body.items;
    });

    it('records every admin action with who did it, newest first', () => {
      const platform = { type: 'platform', name: expect.any(String) };
      expect(entries).toEqual([
        {
          id: expect.any(String),
          at: expect.stringMatching(ISO_MS),
          actor: { type: 'staff', name: 'Alice (finance)' },
          action: 'user.deactivated',
          target_type: 'user',
          target_id: memberId,
          details: expect.any(Object),
        },
        expect.objectContaining({
          actor: platform,
          action: 'tenant.updated',
          target_type: 'tenant',
          target_id: tenant.orgId,
        }),
        expect.objectContaining({
          actor: platform,
          action: 'staff_token.created',
          target_type: 'staff_token',
          target_id: staffTokenId,
        }),
        expect.objectContaining({
          actor: platform,
          action: 'tenant_key.revoked',
          target_type: 'tenant_key',
          target_id: secondKeyId,
        }),
        expect.objectContaining({
          actor: platform,
          action: 'tenant_key.created',
          target_type: 'tenant_key',
          target_id: secondKeyId,
        }),
        expect.objectContaining({ actor: platform, action: 'tenant_key.created' }),
        expect.objectContaining({
          actor: platform,
          action: 'tenant.created',
          target_type: 'tenant',
          target_id: tenant.orgId,
        }),
      ]);
      for (const entry of entries) {
        expect(Object.keys(entry).sort()).toEqual(
          ['action', 'actor', 'at', 'details', 'id', 'target_id', 'target_type'].sort(),
        );
        expect(entry.id).toMatch(new RegExp(`^aud_${ULID}$`));
        expect(entry.at).toMatch(ISO_MS);
        expect(typeof entry.details).toBe('object');
      }
      expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
      const times = entries.map((e) => Date.parse(e.at));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
      // The audit log names secrets' ids, never the secrets.
      expectNoSecret(entries, tenant.key);
    });

    it('orders entries written in one transaction newest first too (tenant creation)', async () => {
      // tenant.created and its initial tenant_key.created are written in one transaction, possibly
      // within one millisecond: the order must still be the order they happened in.
      const created = await Promise.all(Array.from({ length: 12 }, () => createTenant(s.t)));
      for (const c of created) {
        const res = await s.auditLog(c.slug);
        expect(res.body.items.map((e: Entry) => e.action)).toEqual([
          'tenant_key.created',
          'tenant.created',
        ]);
      }
    });

    it('paginates as {items, pagination} and the pages add up to the whole log', async () => {
      const pages: Entry[] = [];
      for (let page = 1; page <= 4; page++) {
        const res = await s.auditLog(tenant.slug, { page, page_size: 2 });
        expect(res.status).toBe(200);
        expect(res.body.pagination).toEqual({
          page,
          page_size: 2,
          total: entries.length,
          total_pages: Math.ceil(entries.length / 2),
        });
        expect(res.body.items).toHaveLength(page < 4 ? 2 : entries.length - 6);
        pages.push(...res.body.items);
      }
      expect(pages).toEqual(entries);
      const past = await s.auditLog(tenant.slug, { page: 5, page_size: 2 });
      expect(past.status).toBe(200);
      expect(past.body.items).toEqual([]);
      const defaults = await s.auditLog(tenant.slug);
      expect(defaults.body.pagination).toEqual({
        page: 1,
        page_size: 20,
        total: entries.length,
        total_pages: 1,
      });
    });

    it('filters by action', async () => {
      const res = await s.auditLog(tenant.slug, { action: 'tenant_key.created' });
      expect(res.status).toBe(200);
      expect(res.body.items).toHaveLength(2);
      expect(res.body.items.every((e: Entry) => e.action === 'tenant_key.created')).toBe(true);
      expect(res.body.pagination).toMatchObject({ total: 2, total_pages: 1 });
      const none = await s.auditLog(tenant.slug, { action: 'bonus.approved' });
      expect(none.body).toEqual({
        items: [],
        pagination: { page: 1, page_size: 20, total: 0, total_pages: 0 },
      });
    });

    it('shows only this tenant’s entries', async () => {
      const other = await createTenant(s.t);
      const res = await s.auditLog(other.slug);
      expect(res.body.items.map((e: Entry) => e.target_id)).not.toContain(tenant.orgId);
      expect(res.body.pagination.total).toBe(2);
    });

    it.each([
      ['page_size 101', { page_size: 101 }, 'page_size'],
      ['page_size 0', { page_size: 0 }, 'page_size'],
      ['page 0', { page: 0 }, 'page'],
      ['page -1', { page: -1 }, 'page'],
      ['page=abc', { page: 'abc' }, 'page'],
      ['page 1.5', { page: '1.5' }, 'page'],
      ['a malformed action', { action: 'DROP TABLE' }, 'action'],
      ['an unknown parameter', { sort: 'asc' }, 'sort'],
    ])('refuses %s with 400', async (_label, query, field) => {
      expectFieldError(await s.auditLog(tenant.slug, query), field);
    });
  });

  describe('members: deactivate and activate', () => {
    it('deactivates and activates a member, answering {user_id, service_user_id, is_active}', async () => {
      const tenant = await createTenant(s.t);
      const member = await upsertUser(s.t, tenant.key);
      const base = `/admin/v1/tenants/${tenant.slug}/users/${member.memberId}`;
      const off = await s.admin().raw('post', `${base}/deactivate`, {});
      expect(off.status).toBe(200);
      expect(off.body).toEqual({
        user_id: member.memberId,
        service_user_id: member.serviceUserId,
        is_active: false,
        erased: false,
      });
      const offAgain = await s.admin().raw('post', `${base}/deactivate`, {});
      expect(offAgain.status).toBe(200);
      expect(offAgain.body.is_active).toBe(false);
      const on = await s.admin().raw('post', `${base}/activate`, {});
      expect(on.status).toBe(200);
      expect(on.body).toEqual({ ...off.body, is_active: true });

      const actions = (await s.auditLog(tenant.slug)).body.items.map(
        (e: { action: string }) => e.action,
      );
      expect(actions.slice(0, 3)).toEqual([
        'user.activated',
        'user.deactivated',
        'user.deactivated',
      ]);
    });

    it.each(['deactivate', 'activate'])(
      "answers 404 user_not_found to %s an unknown user or another tenant's member",
      async (verb) => {
        const tenant = await createTenant(s.t);
        const other = await createTenant(s.t);
        const stranger = await upsertUser(s.t, other.key);
        for (const id of [
          'mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T',
          stranger.serviceUserId,
          stranger.memberId,
          'nonsense',
        ]) {
          const res = await s
            .admin()
            .raw('post', `/admin/v1/tenants/${tenant.slug}/users/${id}/${verb}`, {});
          expectProblem(res, 404, 'user_not_found');
        }
      },
    );

    it('answers 404 tenant_not_found on an unknown slug', async () => {
      const res = await s
        .admin()
        .raw(
          'post',
          `/admin/v1/tenants/${uniqueSlug('missing')}/users/mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T/deactivate`,
          {},
        );
      expectProblem(res, 404, 'tenant_not_found');
    });

    it('lets a manager staff token deactivate', async () => {
      const tenant = await createTenant(s.t);
      const member = await upsertUser(s.t, tenant.key);
      const manager = await createStaffToken(s.t, tenant.slug, 'manager');
      const res = await s
        .admin(manager)
        .raw('post', `/admin/v1/tenants/${tenant.slug}/users/${member.memberId}/deactivate`, {});
      expect(res.status).toBe(200);
      expect(res.body.is_active).toBe(false);
    });

    it('accepts a POST without a body (Content-Length: 0), as curl -X POST sends it', async () => {
      // These actions take no body; an empty body is no body, not a body of the wrong type.
      const tenant = await createTenant(s.t);
      const member = await upsertUser(s.t, tenant.key);
      const base = `/admin/v1/tenants/${tenant.slug}/users/${member.memberId}`;
      const off = await s
        .admin()
        .raw('post', `${base}/deactivate`, undefined, { 'Content-Length': '0' });
      expect({ status: off.status, body: off.body }).toEqual({
        status: 200,
        body: {
          user_id: member.memberId,
          service_user_id: member.serviceUserId,
          is_active: false,
          erased: false,
        },
      });
      const key = await s
        .admin()
        .raw('post', `/admin/v1/tenants/${tenant.slug}/keys`, undefined, { 'Content-Length': '0' });
      expect(key.status).toBe(201);
    });
  });
});
