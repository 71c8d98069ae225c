import type { Response } from 'supertest';
import {
  createStaffToken,
  createTenant,
  TestTenant,
  uniqueSlug,
} from '../factories/tenants.factory';
import { upsertUser } from '../factories/users.factory';
import { createTestApp, TestApp } from '../utils/create-test-app';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ULID = '[0-9A-HJKMNP-TV-Z]{26}';
const ORG_ID = new RegExp(`^org_${ULID}$`);
/** 192 bits or more of base64url after the prefix (SPEC 2). */
const TENANT_KEY = /^tk_[A-Za-z0-9_-]{32,}$/;
const DEFAULT_PROGRAM = {
  lead_bonus_kopecks: 0,
  tiers: [
    { tier: 'referrer', percent_bp: 1000 },
    { tier: 'upline_1', percent_bp: 300 },
  ],
  grace_period_hours: 336,
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `count` tiers in chain order, each paying `percent_bp`. */
function tiers(count: number, percent_bp = 100) {
  return Array.from({ length: count }, (_, i) => ({
    tier: i === 0 ? 'referrer' : `upline_${i}`,
    percent_bp,
  }));
}

function expectProblem(res: Response, status: number, code: string) {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ type: 'about:blank', status, code });
}

function expectFieldError(res: Response, field: string) {
  expectProblem(res, 400, 'validation_failed');
  expect(res.body.errors).toEqual(expect.arrayContaining([{ field, message: expect.any(String) }]));
}

/** A response body that shows no secret of any kind. */
function expectNoSecret(body: unknown, ...secrets: string[]) {
  const text = JSON.stringify(body);
  for (const secret of secrets) expect(text).not.toContain(secret);
  expect(text).not.toMatch(/"tk_[A-Za-z0-9_-]{20,}/);
  expect(text).not.toMatch(/"stf_[A-Za-z0-9_-]{20,}/);
  expect(text).not.toMatch(/[0-9a-f]{64}/i);
  // No field that names a secret or a hash of one.
  expect(text).not.toMatch(/"[a-z_]*(hash|secret)[a-z_]*":|"(tenant_key|token)":/i);
}

describe('Admin API: tenants, keys, audit log, members', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const auth = (token = t.adminToken) => ({ Authorization: `Bearer ${token}` });
  const createRaw = (body: Record<string, unknown>, token?: string) =>
    t.http().post('/admin/v1/tenants').set(auth(token)).send(body);
  const getTenant = (slug: string, token?: string) =>
    t.http().get(`/admin/v1/tenants/${slug}`).set(auth(token));
  const patchTenant = (slug: string, body: Record<string, unknown>, token?: string) =>
    t.http().patch(`/admin/v1/tenants/${slug}`).set(auth(token)).send(body);
  const createKey = (slug: string, body: Record<string, unknown> = {}, token?: string) =>
    t.http().post(`/admin/v1/tenants/${slug}/keys`).set(auth(token)).send(body);
  const listKeys = (slug: string, token?: string) =>
    t.http().get(`/admin/v1/tenants/${slug}/keys`).set(auth(token));
  const revokeKey = (slug: string, keyId: string, token?: string) =>
    t.http().delete(`/admin/v1/tenants/${slug}/keys/${keyId}`).set(auth(token));
  const auditLog = (slug: string, query: Record<string, string | number> = {}, token?: string) =>
    t.http().get(`/admin/v1/tenants/${slug}/audit-log`).query(query).set(auth(token));
  const federationUpsert = (key: string, body: Record<string, unknown>) =>
    t.http().post('/federation/v1/users/upsert').set('X-Service-Tenant-Key', key).send(body);
  const validBody = (slug = uniqueSlug('v')) => ({
    slug,
    display_name: `Tenant ${slug}`,
    allowed_origins: [`https://${slug}.example`],
  });

  describe('POST /admin/v1/tenants', () => {
    it('creates a tenant with SPEC defaults and a tenant key that works on the Federation API', async () => {
      const slug = uniqueSlug('new');
      const res = await createRaw({
        slug,
        display_name: 'Acme Shop',
        allowed_origins: ['https://acme.example', 'http://localhost:3000'],
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        org_id: expect.stringMatching(ORG_ID),
        slug,
        display_name: 'Acme Shop',
        allowed_origins: ['https://acme.example', 'http://localhost:3000'],
        currency: 'RUB',
        locale: 'ru-RU',
        // SPEC 9 and 11 defaults (docs/payouts.md, docs/fraud.md).
        payouts: { minimum_kopecks: 100000, schedule: 'manual', hold_days: 0 },
        attribution_window_days: 90,
        fraud: {
          self_referral: { enabled: true },
          duplicate_customer: { enabled: true },
          ip_burst: { enabled: true, leads_per_hour: 10 },
          disposable_email: { enabled: true },
          fast_conversion: { enabled: false, seconds: 30 },
          amount_outlier: { enabled: false, factor: 10 },
        },
        link_domains: [],
        link_templates: {},
        program: DEFAULT_PROGRAM,
        created_at: expect.stringMatching(ISO_MS),
        updated_at: expect.stringMatching(ISO_MS),
        tenant_key: expect.stringMatching(TENANT_KEY),
      });
      expect(res.body.updated_at).toBe(res.body.created_at);

      const upserted = await federationUpsert(res.body.tenant_key, { external_id: 'first' });
      expect(upserted.status).toBe(200);
      expect(upserted.body.action).toBe('created');
    });

    it('gives every tenant its own org_id and key', async () => {
      const a = await createTenant(t);
      const b = await createTenant(t);
      expect(a.orgId).not.toBe(b.orgId);
      expect(a.key).not.toBe(b.key);
    });

    it('stores every optional field, including a program with fixed tiers', async () => {
      const slug = uniqueSlug('full');
      const body = {
        slug,
        display_name: 'Full',
        allowed_origins: ['https://full.example:8443'],
        currency: 'EUR',
        locale: 'en',
        link_domains: ['shop.full.example', 'full.example'],
        link_templates: {
          offer: 'https://full.example/offers/{id}',
          shop: 'https://full.example/s/{id}?ref=1',
        },
        program: {
          lead_bonus_kopecks: 2500,
          tiers: [
            { tier: 'referrer', fixed_kopecks: 10000 },
            { tier: 'upline_1', percent_bp: 250 },
            { tier: 'upline_2', fixed_kopecks: 5000 },
          ],
          grace_period_hours: 0,
        },
      };
      const res = await createRaw(body);
      expect(res.status).toBe(201);
      const { slug: _s, ...rest } = body;
      expect(res.body).toMatchObject({ slug, ...rest });

      const got = await getTenant(slug);
      expect(got.status).toBe(200);
      const { tenant_key: _k, ...created } = res.body;
      expect(got.body).toEqual(created);
      expect(got.body.program).toEqual(body.program);
    });

    it('accepts {id} in the path, the query or the fragment of a link template', async () => {
      const link_templates = {
        offer: 'https://a.example/offers/{id}',
        shop: 'https://a.example/catalog?shop={id}&from=partner',
        partner: 'https://a.example/partners#{id}',
        storefront: 'https://a.example/s/{id}?again={id}#{id}',
      };
      const res = await createRaw({ ...validBody(), link_templates });
      expect(res.status).toBe(201);
      expect(res.body.link_templates).toEqual(link_templates);
    });

    it('fills omitted program fields with the SPEC 2.1 defaults', async () => {
      const res = await createRaw({ ...validBody(), program: { grace_period_hours: 24 } });
      expect(res.status).toBe(201);
      expect(res.body.program).toEqual({ ...DEFAULT_PROGRAM, grace_period_hours: 24 });
    });

    it('accepts the maximum: referrer and 20 uplines with percentages adding up to 10000', async () => {
      const program = {
        tiers: [{ tier: 'referrer', percent_bp: 8000 }, ...tiers(21, 100).slice(1)],
      };
      const res = await createRaw({ ...validBody(), program });
      expect(res.status).toBe(201);
      expect(res.body.program.tiers).toEqual(program.tiers);
    });

    it('refuses a duplicate slug with 409 conflict and leaves the first tenant as it was', async () => {
      const first = await createTenant(t);
      const res = await createRaw({ ...validBody(first.slug), display_name: 'Impostor' });
      expectProblem(res, 409, 'conflict');
      const got = await getTenant(first.slug);
      expect(got.body.display_name).toBe(`Tenant ${first.slug}`);
      expect(got.body.org_id).toBe(first.orgId);
      // The first tenant's key is untouched.
      expect((await federationUpsert(first.key, { external_id: 'x' })).status).toBe(200);
    });

    it('refuses two concurrent creations of the same slug: one 201, one 409', async () => {
      const slug = uniqueSlug('race');
      const results = await Promise.all([createRaw(validBody(slug)), createRaw(validBody(slug))]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    });

    const cases: [string, Record<string, unknown>, string][] = [
      ['slug missing', { slug: undefined }, 'slug'],
      ['slug with upper case', { slug: 'Acme' }, 'slug'],
      ['slug starting with a hyphen', { slug: '-acme' }, 'slug'],
      ['slug of one character', { slug: 'a' }, 'slug'],
      ['slug of 64 characters', { slug: 'a'.repeat(64) }, 'slug'],
      ['slug with an underscore', { slug: 'acme_shop' }, 'slug'],
      ['slug with a dot', { slug: 'acme.shop' }, 'slug'],
      ['slug with a space', { slug: 'acme shop' }, 'slug'],
      ['slug with a slash', { slug: 'acme/shop' }, 'slug'],
      ['slug with a non-ASCII letter', { slug: 'acmé' }, 'slug'],
      ['slug not a string', { slug: 12345 }, 'slug'],
      ['display_name missing', { display_name: undefined }, 'display_name'],
      ['display_name empty', { display_name: '' }, 'display_name'],
      ['display_name over 200 characters', { display_name: 'x'.repeat(201) }, 'display_name'],
      ['allowed_origins missing', { allowed_origins: undefined }, 'allowed_origins'],
      ['allowed_origins not an array', { allowed_origins: 'https://a.example' }, 'allowed_origins'],
      ['origin with a path', { allowed_origins: ['https://a.example/app'] }, 'allowed_origins'],
      [
        'origin with a trailing slash',
        { allowed_origins: ['https://a.example/'] },
        'allowed_origins',
      ],
      ['origin with a query', { allowed_origins: ['https://a.example?x=1'] }, 'allowed_origins'],
      ['origin with a fragment', { allowed_origins: ['https://a.example#x'] }, 'allowed_origins'],
      ['origin with a ftp scheme', { allowed_origins: ['ftp://a.example'] }, 'allowed_origins'],
      ['origin javascript:', { allowed_origins: ['javascript:alert(1)'] }, 'allowed_origins'],
      [
        'origin with an upper-case host',
        { allowed_origins: ['https://A.example'] },
        'allowed_origins',
      ],
      [
        'origin with a default port',
        { allowed_origins: ['https://a.example:443'] },
        'allowed_origins',
      ],
      [
        'one bad origin among good ones',
        { allowed_origins: ['https://a.example', 'https://b.example/'] },
        'allowed_origins',
      ],
      ['link domain with a scheme', { link_domains: ['https://shop.example'] }, 'link_domains'],
      ['link domain in upper case', { link_domains: ['Shop.example'] }, 'link_domains'],
      ['link domain with a port', { link_domains: ['shop.example:8443'] }, 'link_domains'],
      [
        'template without {id}',
        { link_templates: { offer: 'https://a.example/offers/1' } },
        'link_templates',
      ],
      [
        'unknown template key',
        { link_templates: { coupon: 'https://a.example/c/{id}' } },
        'link_templates',
      ],
      [
        'template for website (website targets are URLs, not templates)',
        { link_templates: { website: 'https://a.example/{id}' } },
        'link_templates',
      ],
      [
        'template with a javascript: URL',
        { link_templates: { offer: 'javascript:{id}' } },
        'link_templates',
      ],
      [
        'template that is not a URL',
        { link_templates: { offer: '/offers/{id}' } },
        'link_templates',
      ],
      // Issue #15: {id} only in the path, query or fragment, never where it could change the site.
      [
        'template with {id} ending the host',
        { link_templates: { offer: 'https://a.example{id}' } },
        'link_templates',
      ],
      [
        'template with {id} as a sub-domain',
        { link_templates: { shop: 'https://{id}.a.example/' } },
        'link_templates',
      ],
      [
        'template with {id} as the port',
        { link_templates: { offer: 'https://a.example:{id}/o' } },
        'link_templates',
      ],
      [
        'template with {id} as user info',
        { link_templates: { offer: 'https://{id}@a.example/' } },
        'link_templates',
      ],
      [
        'template with an empty host',
        { link_templates: { offer: 'https:///{id}' } },
        'link_templates',
      ],
      ['template value not a string', { link_templates: { offer: 42 } }, 'link_templates'],
      ['link_templates an array', { link_templates: ['https://a.example/{id}'] }, 'link_templates'],
      [
        'tiers not starting with referrer',
        { program: { tiers: [{ tier: 'upline_1', percent_bp: 100 }] } },
        'program.tiers',
      ],
      [
        'tiers out of order (upline_2 before upline_1)',
        {
          program: {
            tiers: [
              { tier: 'referrer', percent_bp: 100 },
              { tier: 'upline_2', percent_bp: 100 },
              { tier: 'upline_1', percent_bp: 100 },
            ],
          },
        },
        'program.tiers',
      ],
      [
        'an upline skipped',
        {
          program: {
            tiers: [
              { tier: 'referrer', percent_bp: 100 },
              { tier: 'upline_2', percent_bp: 100 },
            ],
          },
        },
        'program.tiers',
      ],
      ['empty tier list', { program: { tiers: [] } }, 'program.tiers'],
      [
        'a tier with both percent_bp and fixed_kopecks',
        { program: { tiers: [{ tier: 'referrer', percent_bp: 100, fixed_kopecks: 100 }] } },
        'program.tiers',
      ],
      [
        'a tier with neither percent_bp nor fixed_kopecks',
        { program: { tiers: [{ tier: 'referrer' }] } },
        'program.tiers',
      ],
      [
        'a tier whose only amount is null',
        { program: { tiers: [{ tier: 'referrer', percent_bp: null }] } },
        'program.tiers',
      ],
      [
        'percent_bp over 10000',
        { program: { tiers: [{ tier: 'referrer', percent_bp: 10001 }] } },
        'program.tiers.0.percent_bp',
      ],
      [
        'percent_bp negative',
        { program: { tiers: [{ tier: 'referrer', percent_bp: -1 }] } },
        'program.tiers.0.percent_bp',
      ],
      [
        'percent_bp not an integer',
        { program: { tiers: [{ tier: 'referrer', percent_bp: 10.5 }] } },
        'program.tiers.0.percent_bp',
      ],
      [
        'fixed_kopecks negative',
        {
          program: {
            tiers: [
              { tier: 'referrer', percent_bp: 100 },
              { tier: 'upline_1', fixed_kopecks: -1 },
            ],
          },
        },
        'program.tiers.1.fixed_kopecks',
      ],
      ['22 tiers', { program: { tiers: tiers(22, 10) } }, 'program.tiers'],
      [
        'percentages adding up to more than 10000',
        {
          program: {
            tiers: [
              { tier: 'referrer', percent_bp: 6000 },
              { tier: 'upline_1', percent_bp: 4001 },
            ],
          },
        },
        'program.tiers',
      ],
      ['a tier that is null', { program: { tiers: [null] } }, 'program.tiers'],
      [
        'an unknown field in a tier',
        { program: { tiers: [{ tier: 'referrer', percent_bp: 100, bonus: 1 }] } },
        'program.tiers.0.bonus',
      ],
      ['tiers not an array', { program: { tiers: 'referrer' } }, 'program.tiers'],
      [
        'grace_period_hours negative',
        { program: { grace_period_hours: -1 } },
        'program.grace_period_hours',
      ],
      [
        'lead_bonus_kopecks negative',
        { program: { lead_bonus_kopecks: -5 } },
        'program.lead_bonus_kopecks',
      ],
      ['an unknown program field', { program: { percent: 5 } }, 'program.percent'],
      ['currency in lower case', { currency: 'rub' }, 'currency'],
      ['currency of four letters', { currency: 'RUBL' }, 'currency'],
      ['unknown locale', { locale: 'xx-XX' }, 'locale'],
      ['an unknown top-level field', { tenant_key: 'tk_mine' }, 'tenant_key'],
    ];

    it.each(cases)('refuses %s with 400 validation_failed', async (_label, override, field) => {
      const body: Record<string, unknown> = { ...validBody(), ...override };
      for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
      const res = await createRaw(body);
      expectFieldError(res, field);
      expect(res.body).not.toHaveProperty('tenant_key');
      if (typeof body.slug === 'string' && /^[a-z0-9-]+$/.test(body.slug)) {
        expectProblem(await getTenant(body.slug), 404, 'tenant_not_found');
      }
    });

    it('refuses a body that is not JSON with 415 and malformed JSON with 400', async () => {
      const text = await t
        .http()
        .post('/admin/v1/tenants')
        .set(auth())
        .set('Content-Type', 'text/plain')
        .send('slug=acme');
      expectProblem(text, 415, 'unsupported_media_type');
      const broken = await t
        .http()
        .post('/admin/v1/tenants')
        .set(auth())
        .set('Content-Type', 'application/json')
        .send('{"slug": ');
      expectProblem(broken, 400, 'invalid_json');
    });
  });

  describe('GET /admin/v1/tenants/:slug', () => {
    it('returns the tenant and never a secret', async () => {
      const tenant = await createTenant(t);
      const res = await getTenant(tenant.slug);
      expect(res.status).toBe(200);
      const { tenant_key: _k, ...expected } = tenant.body;
      expect(res.body).toEqual(expected);
      expectNoSecret(res.body, tenant.key);
    });

    it('answers 404 tenant_not_found for an unknown slug', async () => {
      const res = await getTenant(uniqueSlug('missing'));
      expectProblem(res, 404, 'tenant_not_found');
    });
  });

  describe('PATCH /admin/v1/tenants/:slug', () => {
    it('changes the given fields, keeps the others, and moves updated_at', async () => {
      const tenant = await createTenant(t, { link_domains: ['old.example'] });
      await sleep(5);
      const changes = {
        display_name: 'Renamed',
        allowed_origins: ['https://new.example', 'https://www.new.example'],
        currency: 'USD',
        locale: 'en',
        link_templates: { partner: 'https://new.example/p/{id}' },
      };
      const res = await patchTenant(tenant.slug, changes);
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

      const got = await getTenant(tenant.slug);
      expect(got.body).toEqual(res.body);
      expectNoSecret(res.body, tenant.key);
    });

    it('replaces the program, giving defaults for the omitted fields', async () => {
      const tenant = await createTenant(t, {
        program: {
          lead_bonus_kopecks: 900,
          tiers: [{ tier: 'referrer', fixed_kopecks: 7000 }],
          grace_period_hours: 1,
        },
      });
      const res = await patchTenant(tenant.slug, { program: { grace_period_hours: 48 } });
      expect(res.status).toBe(200);
      expect(res.body.program).toEqual({ ...DEFAULT_PROGRAM, grace_period_hours: 48 });
      expect((await getTenant(tenant.slug)).body.program).toEqual(res.body.program);

      const tiered = await patchTenant(tenant.slug, {
        program: { tiers: [{ tier: 'referrer', fixed_kopecks: 100 }] },
      });
      expect(tiered.body.program).toEqual({
        lead_bonus_kopecks: 0,
        tiers: [{ tier: 'referrer', fixed_kopecks: 100 }],
        grace_period_hours: 336,
      });
    });

    it('refuses slug in the body with 400 and changes nothing', async () => {
      const tenant = await createTenant(t);
      const res = await patchTenant(tenant.slug, {
        slug: uniqueSlug('moved'),
        display_name: 'Moved',
      });
      expectFieldError(res, 'slug');
      const got = await getTenant(tenant.slug);
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
      const tenant = await createTenant(t);
      const res = await patchTenant(tenant.slug, body);
      expectFieldError(res, field);
      const { tenant_key: _k, ...unchanged } = tenant.body;
      expect((await getTenant(tenant.slug)).body).toEqual(unchanged);
    });

    it('answers 404 tenant_not_found for an unknown slug', async () => {
      const res = await patchTenant(uniqueSlug('missing'), { display_name: 'x' });
      expectProblem(res, 404, 'tenant_not_found');
    });
  });

  describe('tenant keys', () => {
    it('issues a second key shown once; both keys work; a third active key is 409', async () => {
      const tenant = await createTenant(t);
      const res = await createKey(tenant.slug, { name: 'rotation' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        key_id: expect.stringMatching(new RegExp(`^key_${ULID}$`)),
        tenant_key: expect.stringMatching(TENANT_KEY),
        name: 'rotation',
        created_at: expect.stringMatching(ISO_MS),
      });
      expect(res.body.tenant_key).not.toBe(tenant.key);

      const viaOld = await federationUpsert(tenant.key, { external_id: 'same' });
      const viaNew = await federationUpsert(res.body.tenant_key, { external_id: 'same' });
      expect(viaOld.status).toBe(200);
      expect(viaNew.status).toBe(200);
      expect(viaNew.body.tenant_service_id).toBe(viaOld.body.tenant_service_id);

      const third = await createKey(tenant.slug, { name: 'one too many' });
      expectProblem(third, 409, 'conflict');
      expect(third.body).not.toHaveProperty('tenant_key');
      expect((await listKeys(tenant.slug)).body.items).toHaveLength(2);
    });

    it('leaves exactly 2 active keys after 10 concurrent creations on a tenant with one', async () => {
      const tenant = await createTenant(t);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => createKey(tenant.slug, { name: `k${i}` })),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(9);
      for (const r of results.filter((x) => x.status === 409)) expectProblem(r, 409, 'conflict');

      const keys = await listKeys(tenant.slug);
      expect(keys.status).toBe(200);
      expect(
        keys.body.items.filter((k: { revoked_at: unknown }) => k.revoked_at === null),
      ).toHaveLength(2);
    });

    it('lists keys by name, date and hint, never the secret', async () => {
      const tenant = await createTenant(t);
      const second = await createKey(tenant.slug, { name: 'backend' });
      const res = await listKeys(tenant.slug);
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
      const tenant = await createTenant(t);
      const second = await createKey(tenant.slug, { name: 'to revoke' });
      expect((await federationUpsert(second.body.tenant_key, { external_id: 'a' })).status).toBe(
        200,
      );

      const res = await revokeKey(tenant.slug, second.body.key_id);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');

      const refused = await federationUpsert(second.body.tenant_key, { external_id: 'a' });
      expectProblem(refused, 401, 'invalid_tenant_key');
      expect((await federationUpsert(tenant.key, { external_id: 'a' })).status).toBe(200);

      const keys = (await listKeys(tenant.slug)).body.items as {
        key_id: string;
        revoked_at: string | null;
      }[];
      expect(keys.find((k) => k.key_id === second.body.key_id)?.revoked_at).toMatch(ISO_MS);
      // A revoked key no longer counts: a new one can be issued.
      expect((await createKey(tenant.slug)).status).toBe(201);
    });

    it('can revoke the initial key, after which it is refused', async () => {
      const tenant = await createTenant(t);
      const initial = (await listKeys(tenant.slug)).body.items[0].key_id as string;
      expect((await revokeKey(tenant.slug, initial)).status).toBe(204);
      expectProblem(
        await federationUpsert(tenant.key, { external_id: 'a' }),
        401,
        'invalid_tenant_key',
      );
    });

    it('answers 404 for an unknown key id and for another tenant’s key id', async () => {
      const tenant = await createTenant(t);
      const other = await createTenant(t);
      expectProblem(
        await revokeKey(tenant.slug, 'key_01JD0Z6V2Y8K3M4N5P6Q7R8S9T'),
        404,
        'not_found',
      );
      const otherKey = (await listKeys(other.slug)).body.items[0].key_id as string;
      expectProblem(await revokeKey(tenant.slug, otherKey), 404, 'not_found');
      // The other tenant's key still works.
      expect((await federationUpsert(other.key, { external_id: 'a' })).status).toBe(200);
    });

    it('refuses a bad key body', async () => {
      const tenant = await createTenant(t);
      expectFieldError(await createKey(tenant.slug, { name: '' }), 'name');
      expectFieldError(await createKey(tenant.slug, { scope: 'all' }), 'scope');
      expect((await listKeys(tenant.slug)).body.items).toHaveLength(1);
    });
  });

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
      tenant = await createTenant(t);
      // Each step is its own request, so the entries get distinct, increasing times.
      const step = async <T>(fn: () => Promise<T>) => {
        const result = await fn();
        await sleep(3);
        return result;
      };
      await sleep(3);
      secondKeyId = (await step(() => createKey(tenant.slug, { name: 'ci' }))).body.key_id;
      await step(() => revokeKey(tenant.slug, secondKeyId));
      const staff = await step(() =>
        t
          .http()
          .post(`/admin/v1/tenants/${tenant.slug}/staff-tokens`)
          .set(auth())
          .send({ name: 'Alice (finance)', role: 'manager' }),
      );
      staffTokenId = staff.body.token_id;
      await step(() => patchTenant(tenant.slug, { display_name: 'Audited', locale: 'en' }));
      memberId = (await step(() => upsertUser(t, tenant.key))).memberId;
      await t
        .http()
        .post(`/admin/v1/tenants/${tenant.slug}/users/${memberId}/deactivate`)
        .set(auth(staff.body.token))
        .send({});
      const res = await auditLog(tenant.slug);
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
      const created = await Promise.all(Array.from({ length: 12 }, () => createTenant(t)));
      for (const c of created) {
        const res = await auditLog(c.slug);
        expect(res.body.items.map((e: Entry) => e.action)).toEqual([
          'tenant_key.created',
          'tenant.created',
        ]);
      }
    });

    it('paginates as {items, pagination} and the pages add up to the whole log', async () => {
      const pages: Entry[] = [];
      for (let page = 1; page <= 4; page++) {
        const res = await auditLog(tenant.slug, { page, page_size: 2 });
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
      const past = await auditLog(tenant.slug, { page: 5, page_size: 2 });
      expect(past.status).toBe(200);
      expect(past.body.items).toEqual([]);
      const defaults = await auditLog(tenant.slug);
      expect(defaults.body.pagination).toEqual({
        page: 1,
        page_size: 20,
        total: entries.length,
        total_pages: 1,
      });
    });

    it('filters by action', async () => {
      const res = await auditLog(tenant.slug, { action: 'tenant_key.created' });
      expect(res.status).toBe(200);
      expect(res.body.items).toHaveLength(2);
      expect(res.body.items.every((e: Entry) => e.action === 'tenant_key.created')).toBe(true);
      expect(res.body.pagination).toMatchObject({ total: 2, total_pages: 1 });
      const none = await auditLog(tenant.slug, { action: 'bonus.approved' });
      expect(none.body).toEqual({
        items: [],
        pagination: { page: 1, page_size: 20, total: 0, total_pages: 0 },
      });
    });

    it('shows only this tenant’s entries', async () => {
      const other = await createTenant(t);
      const res = await auditLog(other.slug);
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
      expectFieldError(await auditLog(tenant.slug, query), field);
    });
  });

  describe('members: deactivate and activate', () => {
    it('deactivates and activates a member, answering {user_id, service_user_id, is_active}', async () => {
      const tenant = await createTenant(t);
      const member = await upsertUser(t, tenant.key);
      const base = `/admin/v1/tenants/${tenant.slug}/users/${member.memberId}`;
      const off = await t.http().post(`${base}/deactivate`).set(auth()).send({});
      expect(off.status).toBe(200);
      expect(off.body).toEqual({
        user_id: member.memberId,
        service_user_id: member.serviceUserId,
        is_active: false,
      });
      const offAgain = await t.http().post(`${base}/deactivate`).set(auth()).send({});
      expect(offAgain.status).toBe(200);
      expect(offAgain.body.is_active).toBe(false);
      const on = await t.http().post(`${base}/activate`).set(auth()).send({});
      expect(on.status).toBe(200);
      expect(on.body).toEqual({ ...off.body, is_active: true });

      const actions = (await auditLog(tenant.slug)).body.items.map(
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
        const tenant = await createTenant(t);
        const other = await createTenant(t);
        const stranger = await upsertUser(t, other.key);
        for (const id of [
          'mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T',
          stranger.serviceUserId,
          stranger.memberId,
          'nonsense',
        ]) {
          const res = await t
            .http()
            .post(`/admin/v1/tenants/${tenant.slug}/users/${id}/${verb}`)
            .set(auth())
            .send({});
          expectProblem(res, 404, 'user_not_found');
        }
      },
    );

    it('answers 404 tenant_not_found on an unknown slug', async () => {
      const res = await t
        .http()
        .post(
          `/admin/v1/tenants/${uniqueSlug('missing')}/users/mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T/deactivate`,
        )
        .set(auth())
        .send({});
      expectProblem(res, 404, 'tenant_not_found');
    });

    it('lets a manager staff token deactivate', async () => {
      const tenant = await createTenant(t);
      const member = await upsertUser(t, tenant.key);
      const manager = await createStaffToken(t, tenant.slug, 'manager');
      const res = await t
        .http()
        .post(`/admin/v1/tenants/${tenant.slug}/users/${member.memberId}/deactivate`)
        .set(auth(manager))
        .send({});
      expect(res.status).toBe(200);
      expect(res.body.is_active).toBe(false);
    });

    it('accepts a POST without a body (Content-Length: 0), as curl -X POST sends it', async () => {
      // These actions take no body; an empty body is no body, not a body of the wrong type.
      const tenant = await createTenant(t);
      const member = await upsertUser(t, tenant.key);
      const base = `/admin/v1/tenants/${tenant.slug}/users/${member.memberId}`;
      const off = await t.http().post(`${base}/deactivate`).set(auth()).set('Content-Length', '0');
      expect({ status: off.status, body: off.body }).toEqual({
        status: 200,
        body: { user_id: member.memberId, service_user_id: member.serviceUserId, is_active: false },
      });
      const key = await t
        .http()
        .post(`/admin/v1/tenants/${tenant.slug}/keys`)
        .set(auth())
        .set('Content-Length', '0');
      expect(key.status).toBe(201);
    });
  });
});
