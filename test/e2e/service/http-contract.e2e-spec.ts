// The cross-cutting HTTP contract of README.md, "Errors" over the real app: problem documents, body
// parsing (size, media type, JSON shape), strict validation, request ids, security headers and
// credentials. Feature specs test their own codes; this file tests what every route shares.
import type { Response } from 'supertest';
import { createTenant, TestTenant, uniqueSlug } from '../../factories/tenants.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** Asserts the README.md, "Errors" problem document shape and returns the body for further checks. */
function expectProblem(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const requestId = res.headers['x-request-id'];
  expect(requestId).toEqual(expect.any(String));
  expect(res.body).toMatchObject({
    type: 'about:blank',
    title: expect.any(String),
    status,
    code,
    detail: expect.any(String),
    request_id: requestId,
  });
  expect(res.body.title).not.toBe('');
  expect(res.body.detail).not.toBe('');
  expectNoInternals(res);
  return res.body as {
    code: string;
    detail: string;
    errors?: { field: string; message: string }[];
  };
}

/** No stack trace, file path or internal error name in what the client sees. */
function expectNoInternals(res: Response) {
  expect(res.body).not.toHaveProperty('stack');
  const text = res.text;
  expect(text).not.toMatch(/\n\s+at\s/);
  expect(text).not.toMatch(/\bat\s+\S+\s+\(/);
  expect(text).not.toMatch(/\.(ts|js):\d+/);
  expect(text).not.toMatch(/node_modules|\/src\//);
  expect(text).not.toMatch(/QueryFailedError|TypeError|SyntaxError|HttpException/);
}

function expectFieldErrors(body: { errors?: unknown }) {
  expect(Array.isArray(body.errors)).toBe(true);
  const errors = body.errors as { field: unknown; message: unknown }[];
  expect(errors.length).toBeGreaterThan(0);
  for (const row of errors) {
    expect(Object.keys(row).sort()).toEqual(['field', 'message']);
    expect(row.field).toEqual(expect.any(String));
    expect(row.message).toEqual(expect.any(String));
    expect(row.message).not.toBe('');
  }
  return errors as { field: string; message: string }[];
}

describe('HTTP contract (docs/embedding.md, 1.1)', () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
  });
  afterAll(() => t.close());

  const adminPost = (path: string) =>
    t.http().post(path).set('Authorization', `Bearer ${t.adminToken}`);
  const upsert = () =>
    t.http().post('/federation/v1/users/upsert').set('X-Service-Tenant-Key', tenant.key);
  const validTenant = () => ({
    slug: uniqueSlug('hc'),
    display_name: 'Contract Co',
    allowed_origins: ['https://contract.example'],
  });

  describe('unknown routes', () => {
    it.each([
      ['GET', '/definitely-not-a-route'],
      ['GET', '/admin/v1/no-such-thing'],
      ['DELETE', '/admin/v1/tenants'],
    ])('%s %s is 404 not_found as problem+json', async (method, path) => {
      const res = await t.http()[method.toLowerCase() as 'get' | 'delete'](path);
      const body = expectProblem(res, 404, 'not_found');
      expect(body).not.toHaveProperty('errors');
    });

    it('answers 404 not_found to a JSON POST on an unknown API path', async () => {
      const res = await t.http().post('/federation/v1/no-such-thing').send({ a: 1 });
      expectProblem(res, 404, 'not_found');
    });

    it('answers 404 before asking for credentials on an unknown API path', async () => {
      const res = await t.http().get('/federation/v1/users/nothing-here');
      expectProblem(res, 404, 'not_found');
    });
  });

  describe('request bodies', () => {
    it('refuses a body over 64 KiB with 413 payload_too_large', async () => {
      const res = await adminPost('/admin/v1/tenants').send({
        ...validTenant(),
        display_name: 'x'.repeat(65 * 1024),
      });
      expectProblem(res, 413, 'payload_too_large');
    });

    it('parses a body just under 64 KiB (then validates it)', async () => {
      const res = await adminPost('/admin/v1/tenants').send({
        ...validTenant(),
        display_name: 'x'.repeat(60 * 1024),
      });
      const body = expectProblem(res, 400, 'validation_failed');
      expect(expectFieldErrors(body).map((e) => e.field)).toEqual(['display_name']);
    });

    it('refuses a text/plain body with 415 unsupported_media_type', async () => {
      const res = await upsert()
        .set('Content-Type', 'text/plain')
        .send(JSON.stringify({ external_id: 'x' }));
      expectProblem(res, 415, 'unsupported_media_type');
    });

    it('refuses a form body with 415 unsupported_media_type', async () => {
      const res = await adminPost('/admin/v1/tenants')
        .type('form')
        .send('slug=acme&display_name=Acme');
      expectProblem(res, 415, 'unsupported_media_type');
    });

    it('refuses malformed JSON with 400 invalid_json', async () => {
      const res = await upsert()
        .set('Content-Type', 'application/json')
        .send('{"external_id": "u1",');
      const body = expectProblem(res, 400, 'invalid_json');
      expect(body).not.toHaveProperty('errors');
    });

    it('refuses a JSON array body with 400', async () => {
      const res = await upsert()
        .set('Content-Type', 'application/json')
        .send(JSON.stringify([{ external_id: 'u1' }]));
      expect(res.status).toBe(400);
      expect(['validation_failed', 'invalid_json']).toContain(res.body.code);
      expectProblem(res, 400, res.body.code as string);
    });

    it('refuses a bare JSON scalar with 400', async () => {
      const res = await upsert().set('Content-Type', 'application/json').send('"u1"');
      expect(res.status).toBe(400);
      expect(['validation_failed', 'invalid_json']).toContain(res.body.code);
      expectProblem(res, 400, res.body.code as string);
    });

    it('does not ask for a media type when a POST has no body at all', async () => {
      // What fetch, axios and `curl -X POST` send to an action route whose body is optional.
      const own = await createTenant(t);
      const res = await t
        .http()
        .post(`/admin/v1/tenants/${own.slug}/keys`)
        .set('Authorization', `Bearer ${t.adminToken}`)
        .set('Content-Length', '0');
      expect(res.status).toBe(201);
      expect(res.body.tenant_key).toMatch(/^tk_/);
    });

    it('accepts application/json with a charset', async () => {
      const res = await upsert()
        .set('Content-Type', 'application/json; charset=utf-8')
        .send(JSON.stringify({ external_id: 'charset-user' }));
      expect(res.status).toBe(200);
    });
  });

  describe('validation', () => {
    it('rejects an unknown top-level field, naming it, and does not create anything', async () => {
      const candidate = { ...validTenant(), colour: 'blue' };
      const res = await adminPost('/admin/v1/tenants').send(candidate);
      const body = expectProblem(res, 400, 'validation_failed');
      expect(expectFieldErrors(body)).toEqual([{ field: 'colour', message: expect.any(String) }]);
      const after = await t
        .http()
        .get(`/admin/v1/tenants/${candidate.slug}`)
        .set('Authorization', `Bearer ${t.adminToken}`);
      expect(after.status).toBe(404);
    });

    it('rejects an unknown field on the Federation API', async () => {
      const res = await upsert().send({ external_id: 'u-unknown', nickname: 'x' });
      const body = expectProblem(res, 400, 'validation_failed');
      expect(expectFieldErrors(body)).toContainEqual({
        field: 'nickname',
        message: expect.any(String),
      });
    });

    it('names nested fields by path: program.tiers.0.percent_bp', async () => {
      const res = await adminPost('/admin/v1/tenants').send({
        ...validTenant(),
        program: {
          tiers: [
            { tier: 'referrer', percent_bp: 'ten' },
            { tier: 'upline_1', percent_bp: 300, bonus: 1 },
          ],
        },
      });
      const body = expectProblem(res, 400, 'validation_failed');
      const fields = expectFieldErrors(body).map((e) => e.field);
      expect(fields).toContain('program.tiers.0.percent_bp');
      expect(fields).toContain('program.tiers.1.bonus');
    });

    it('rejects an unknown field nested in an object', async () => {
      const res = await adminPost('/admin/v1/tenants').send({
        ...validTenant(),
        program: { grace_period_hours: 24, payout_day: 5 },
      });
      const body = expectProblem(res, 400, 'validation_failed');
      expect(expectFieldErrors(body).map((e) => e.field)).toContain('program.payout_day');
    });

    it('rejects wrong types with one row per field', async () => {
      const res = await adminPost('/admin/v1/tenants').send({
        slug: uniqueSlug('hc'),
        display_name: 12345,
        allowed_origins: 'https://contract.example',
      });
      const body = expectProblem(res, 400, 'validation_failed');
      const fields = expectFieldErrors(body).map((e) => e.field);
      expect(fields).toContain('display_name');
      expect(fields).toContain('allowed_origins');
    });

    it('does not coerce types on the Federation API', async () => {
      const res = await upsert().send({ external_id: 42, email_verified: 'yes' });
      const body = expectProblem(res, 400, 'validation_failed');
      const fields = expectFieldErrors(body).map((e) => e.field);
      expect(fields).toEqual(expect.arrayContaining(['external_id', 'email_verified']));
    });

    it('reports a missing required field', async () => {
      const res = await upsert().send({ full_name: 'No Id' });
      const body = expectProblem(res, 400, 'validation_failed');
      expect(expectFieldErrors(body).map((e) => e.field)).toContain('external_id');
    });
  });

  describe('X-Request-Id', () => {
    it('is on every success response, and differs between requests', async () => {
      const a = await t.http().get('/health/live');
      const b = await upsert().send({ external_id: 'rid-user' });
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      expect(a.headers['x-request-id']).toMatch(ULID);
      expect(b.headers['x-request-id']).toMatch(ULID);
      expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
    });

    it('is on error responses and equals the problem request_id', async () => {
      for (const res of [
        await t.http().get('/nope'),
        await upsert().set('Content-Type', 'application/json').send('{'),
        await t.http().post('/federation/v1/users/upsert').send({ external_id: 'x' }),
      ]) {
        expect(res.headers['x-request-id']).toMatch(ULID);
        expect(res.body.request_id).toBe(res.headers['x-request-id']);
      }
    });

    it('echoes a valid incoming id on success and on error', async () => {
      const id = 'client-req.42:abc_DEF';
      const ok = await t.http().get('/health/live').set('X-Request-Id', id);
      expect(ok.headers['x-request-id']).toBe(id);
      const err = await t.http().get('/nope').set('X-Request-Id', id);
      expect(err.headers['x-request-id']).toBe(id);
      expect(err.body.request_id).toBe(id);
    });

    it('echoes an id of exactly 128 characters', async () => {
      const id = 'a'.repeat(128);
      const res = await t.http().get('/health/live').set('X-Request-Id', id);
      expect(res.headers['x-request-id']).toBe(id);
    });

    it.each([
      ['containing spaces', 'has some spaces'],
      ['longer than 128 characters', 'b'.repeat(129)],
      ['with markup', '<script>x</script>'],
    ])('replaces an incoming id %s', async (_label, id) => {
      const ok = await t.http().get('/health/live').set('X-Request-Id', id);
      expect(ok.headers['x-request-id']).toMatch(ULID);
      const err = await t.http().get('/nope').set('X-Request-Id', id);
      expect(err.headers['x-request-id']).toMatch(ULID);
      expect(err.body.request_id).toBe(err.headers['x-request-id']);
    });
  });

  describe('security headers', () => {
    it.each([
      ['a success', () => t.http().get('/health/live'), 200],
      ['a 404', () => t.http().get('/nope'), 404],
      ['a 401', () => t.http().post('/federation/v1/users/upsert').send({ external_id: 'x' }), 401],
      [
        'a 413',
        () =>
          t
            .http()
            .post('/federation/v1/users/upsert')
            .send({ external_id: 'x'.repeat(70 * 1024) }),
        413,
      ],
    ])('are set on %s', async (_label, send, status) => {
      const res = await send();
      expect(res.status).toBe(status);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toMatch(/^(SAMEORIGIN|DENY)$/);
      expect(res.headers).not.toHaveProperty('x-powered-by');
    });
  });

  describe('credentials', () => {
    const body = { external_id: 'cred-user' };

    it('answers 401 invalid_tenant_key without a key', async () => {
      const res = await t.http().post('/federation/v1/users/upsert').send(body);
      expectProblem(res, 401, 'invalid_tenant_key');
    });

    it.each([
      ['an unknown key', () => `tk_${'A'.repeat(43)}`],
      ['a malformed key', () => 'not a key'],
      ['the platform admin token', () => t.adminToken],
      ['a key with a suffix', () => `${tenant.key}x`],
    ])('answers 401 invalid_tenant_key for %s', async (_label, key) => {
      const res = await t
        .http()
        .post('/federation/v1/users/upsert')
        .set('X-Service-Tenant-Key', key())
        .send(body);
      expectProblem(res, 401, 'invalid_tenant_key');
    });

    it('does not take a tenant key as a bearer on the Federation API', async () => {
      const res = await t
        .http()
        .post('/federation/v1/users/upsert')
        .set('Authorization', `Bearer ${tenant.key}`)
        .send(body);
      expectProblem(res, 401, 'invalid_tenant_key');
    });

    it('answers 401 invalid_admin_token without a bearer', async () => {
      const res = await t.http().get(`/admin/v1/tenants/${tenant.slug}`);
      expectProblem(res, 401, 'invalid_admin_token');
    });

    it.each([
      ['an unknown bearer', () => `Bearer adm_${'x'.repeat(40)}`],
      ['an unknown staff token', () => `Bearer stf_${'y'.repeat(43)}`],
      ['a tenant key as bearer', () => `Bearer ${tenant.key}`],
      ['a Basic credential', () => 'Basic dXNlcjpwYXNz'],
      ['an empty bearer', () => 'Bearer '],
      ['the admin token with a suffix', () => `Bearer ${t.adminToken}x`],
      ['the admin token without the scheme', () => t.adminToken],
    ])('answers 401 invalid_admin_token for %s', async (_label, header) => {
      const res = await t
        .http()
        .get(`/admin/v1/tenants/${tenant.slug}`)
        .set('Authorization', header());
      expectProblem(res, 401, 'invalid_admin_token');
    });

    it('answers 401 on a platform-only route without a bearer', async () => {
      const res = await t.http().post('/admin/v1/tenants').send(validTenant());
      expectProblem(res, 401, 'invalid_admin_token');
    });

    it('lets the same requests through with the right credential', async () => {
      const fed = await upsert().send(body);
      expect(fed.status).toBe(200);
      const admin = await t
        .http()
        .get(`/admin/v1/tenants/${tenant.slug}`)
        .set('Authorization', `Bearer ${t.adminToken}`);
      expect(admin.status).toBe(200);
      expect(admin.headers['content-type']).toMatch(/^application\/json/);
      expect(admin.body.slug).toBe(tenant.slug);
    });
  });
});
