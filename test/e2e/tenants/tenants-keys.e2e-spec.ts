/**
 * Reading and changing a tenant over the Admin API (GET and PATCH /admin/v1/tenants/:slug) and
 * its tenant keys: issued once, listed without the secret, revoked at once. Setup: tenants-suite.
 */
import { createTenant, uniqueSlug } from '../../factories/tenants.factory';
import {
  tenantsSuite,
  ISO_MS,
  ULID,
  TENANT_KEY,
  DEFAULT_PROGRAM,
  sleep,
  expectProblem,
  expectFieldError,
  expectNoSecret,
} from '../../utils/tenants-suite';

describe('Admin API: a tenant and its keys', () => {
  const s = tenantsSuite();

  describe('GET /admin/v1/tenants/:slug', () => {
    it('returns the tenant and never a secret', async () => {
      const tenant = await createTenant(s.t);
      const res = await s.getTenant(tenant.slug);
      expect(res.status).toBe(200);
      const { tenant_key: _k, ...expected } = tenant.body;
      expect(res.body).toEqual(expected);
      expectNoSecret(res.body, tenant.key);
    });

    it('answers 404 tenant_not_found for an unknown slug', async () => {
      const res = await s.getTenant(uniqueSlug('missing'));
      expectProblem(res, 404, 'tenant_not_found');
    });
  });

  describe('PATCH /admin/v1/tenants/:slug', () => {
    it('changes the given fields, keeps the others, and moves updated_at', async () => {
      const tenant = await createTenant(s.t, { link_domains: ['old.example'] });
      await sleep(5);
      const changes = {
        display_name: 'Renamed',
        allowed_origins: ['https://new.example', 'https://www.new.example'],
        currency: 'USD',
        locale: 'en',
        link_templates: { partner: 'https://new.example/p/{id}' },
      };
      const res = await s.patchTenant(tenant.slug, changes);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...tenant.body,
        tenant_key: undefined,
        ...changes,
        link_domains: ['old.example'],
        updated_at: expect.stringMatching(ISO_MS),
      });
      expect(res.body).not.toHaveProperty('tenant_key');
      expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(tenant.body.updated_at));
      expect(res.body.created_at).toBe(tenant.body.created_at);

      const got = await s.getTenant(tenant.slug);
      expect(got.body).toEqual(res.body);
      expectNoSecret(res.body, tenant.key);
    });

    it('replaces the program, giving defaults for the omitted fields', async () => {
      const tenant = await createTenant(s.t, {
        program: {
          lead_bonus_kopecks: 900,
          tiers: [{ tier: 'referrer', fixed_kopecks: 7000 }],
          grace_period_hours: 1,
        },
      });
      const res = await s.patchTenant(tenant.slug, { program: { grace_period_hours: 48 } });
      expect(res.status).toBe(200);
      expect(res.body.program).toEqual({ ...DEFAULT_PROGRAM, grace_period_hours: 48 });
      expect((await s.getTenant(tenant.slug)).body.program).toEqual(res.body.program);

      const tiered = await s.patchTenant(tenant.slug, {
        program: { tiers: [{ tier: 'referrer', fixed_kopecks: 100 }] },
      });
      expect(tiered.body.program).toEqual({
        lead_bonus_kopecks: 0,
        tiers: [{ tier: 'referrer', fixed_kopecks: 100 }],
        grace_period_hours: 336,
      });
    });

    it('refuses slug in the body with 400 and changes nothing', async () => {
      const tenant = await createTenant(s.t);
      const res = await s.patchTenant(tenant.slug, {
        slug: uniqueSlug('moved'),
        display_name: 'Moved',
      });
      expectFieldError(res, 'slug');
      const got = await s.getTenant(tenant.slug);
      expect(got.body.display_name).toBe(tenant.body.display_name);
      expect(got.body.updated_at).toBe(tenant.body.updated_at);
    });

    it.each([
      ['an origin with a path', { allowed_origins: ['https://a.example/x'] }, 'allowed_origins'],
      [
        'a template without {id}',
        { link_templates: { offer: 'https://a.example/' } },
        'link_templates',
      ],
      [
        'a template with {id} in the host',
        { link_templates: { offer: 'https://a.example{id}' } },
        'link_templates',
      ],
      [
        'tiers out of order',
        {
          program: {
            tiers: [
              { tier: 'referrer', percent_bp: 1 },
              { tier: 'upline_2', percent_bp: 1 },
            ],
          },
        },
        'program.tiers',
      ],
      ['currency in lower case', { currency: 'usd' }, 'currency'],
      ['display_name null', { display_name: null }, 'display_name'],
      ['allowed_origins null', { allowed_origins: null }, 'allowed_origins'],
      ['currency null', { currency: null }, 'currency'],
    ])('refuses %s with 400 and changes nothing', async (_label, body, field) => {
      const tenant = await createTenant(s.t);
      const res = await s.patchTenant(tenant.slug, body);
      expectFieldError(res, field);
      const { tenant_key: _k, ...unchanged } = tenant.body;
      expect((await s.getTenant(tenant.slug)).body).toEqual(unchanged);
    });

    it('answers 404 tenant_not_found for an unknown slug', async () => {
      const res = await s.patchTenant(uniqueSlug('missing'), { display_name: 'x' });
      expectProblem(res, 404, 'tenant_not_found');
    });
  });

  describe('tenant keys', () => {
    it('issues a second key shown once; both keys work; a third active key is 409', async () => {
      const tenant = await createTenant(s.t);
      const res = await s.createKey(tenant.slug, { name: 'rotation' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        key_id: expect.stringMatching(new RegExp(`^key_${ULID}$`)),
        tenant_key: expect.stringMatching(TENANT_KEY),
        name: 'rotation',
        created_at: expect.stringMatching(ISO_MS),
      });
      expect(res.body.tenant_key).not.toBe(tenant.key);

      const viaOld = await s.federationUpsert(tenant.key, { external_id: 'same' });
      const viaNew = await s.federationUpsert(res.body.tenant_key, { external_id: 'same' });
      expect(viaOld.status).toBe(200);
      expect(viaNew.status).toBe(200);
      expect(viaNew.body.tenant_service_id).toBe(viaOld.body.tenant_service_id);

      const third = await s.createKey(tenant.slug, { name: 'one too many' });
      expectProblem(third, 409, 'conflict');
      expect(third.body).not.toHaveProperty('tenant_key');
      expect((await s.listKeys(tenant.slug)).body.items).toHaveLength(2);
    });

    it('leaves exactly 2 active keys after 10 concurrent creations on a tenant with one', async () => {
      const tenant = await createTenant(s.t);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => s.createKey(tenant.slug, { name: `k${i}` })),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(9);
      for (const r of results.filter((x) => x.status === 409)) expectProblem(r, 409, 'conflict');

      const keys = await s.listKeys(tenant.slug);
      expect(keys.status).toBe(200);
      expect(
        keys.body.items.filter((k: { revoked_at: unknown }) => k.revoked_at === null),
      ).toHaveLength(2);
    });

    it('lists keys by name, date and hint, never the secret', async () => {
      const tenant = await createTenant(s.t);
      const second = await s.createKey(tenant.slug, { name: 'backend' });
      const res = await s.listKeys(tenant.slug);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        items: [
          {
            key_id: expect.stringMatching(/^key_/),
            name: 'initial',
            key_hint: expect.any(String),
            created_at: expect.stringMatching(ISO_MS),
            revoked_at: null,
          },
          {
            key_id: second.body.key_id,
            name: 'backend',
            key_hint: expect.any(String),
            created_at: second.body.created_at,
            revoked_at: null,
          },
        ],
      });
      const [first, other] = res.body.items as { key_hint: string }[];
      // A hint is a short prefix: enough to tell keys apart, far too little to use.
      expect(tenant.key.startsWith(first.key_hint)).toBe(true);
      expect(String(second.body.tenant_key).startsWith(other.key_hint)).toBe(true);
      expect(first.key_hint.length).toBeLessThanOrEqual(12);
      expectNoSecret(res.body, tenant.key, second.body.tenant_key);
    });

    it('revokes a key: 204, and the very next federation request with it is 401', async () => {
      const tenant = await createTenant(s.t);
      const second = await s.createKey(tenant.slug, { name: 'to revoke' });
      expect((await s.federationUpsert(second.body.tenant_key, { external_id: 'a' })).status).toBe(
        200,
      );

      const res = await s.revokeKey(tenant.slug, second.body.key_id);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');

      const refused = await s.federationUpsert(second.body.tenant_key, { external_id: 'a' });
      expectProblem(refused, 401, 'invalid_tenant_key');
      expect((await s.federationUpsert(tenant.key, { external_id: 'a' })).status).toBe(200);

      const keys = (await s.listKeys(tenant.slug)).body.items as {
        key_id: string;
        revoked_at: string | null;
      }[];
      expect(keys.find((k) => k.key_id === second.body.key_id)?.revoked_at).toMatch(ISO_MS);
      // A revoked key no longer counts: a new one can be issued.
      expect((await s.createKey(tenant.slug)).status).toBe(201);
    });

    it('can revoke the initial key, after which it is refused', async () => {
      const tenant = await createTenant(s.t);
      const initial = (await s.listKeys(tenant.slug)).body.items[0].key_id;
      expect((await s.revokeKey(tenant.slug, initial)).status).toBe(204);
      expectProblem(
        await s.federationUpsert(tenant.key, { external_id: 'a' }),
        401,
        'invalid_tenant_key',
      );
    });

    it('answers 404 for an unknown key id and for another tenant’s key id', async () => {
      const tenant = await createTenant(s.t);
      const other = await createTenant(s.t);
      expectProblem(
        await s.revokeKey(tenant.slug, 'key_01JD0Z6V2Y8K3M4N5P6Q7R8S9T'),
        404,
        'not_found',
      );
      const otherKey = (await s.listKeys(other.slug)).body.items[0].key_id;
      expectProblem(await s.revokeKey(tenant.slug, otherKey), 404, 'not_found');
      // The other tenant's key still works.
      expect((await s.federationUpsert(other.key, { external_id: 'a' })).status).toBe(200);
    });

    it('refuses a bad key body', async () => {
      const tenant = await createTenant(s.t);
      expectFieldError(await s.createKey(tenant.slug, { name: '' }), 'name');
      expectFieldError(await s.createKey(tenant.slug, { scope: 'all' }), 'scope');
      expect((await s.listKeys(tenant.slug)).body.items).toHaveLength(1);
    });
  });
});
