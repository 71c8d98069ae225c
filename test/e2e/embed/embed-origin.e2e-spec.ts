import type { Response } from 'supertest';
import type { Test } from 'supertest';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser, UpsertedMember } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

/**
 * The Embed Data API's origin gate and CORS answers (seed 4.1 rule 1, 5, 7; docs/embedding.md): exact
 * origin match, an empty Access-Control-Allow-Origin on refusal, `Vary: Origin` everywhere,
 * preflight, no credentials, and the same-origin rule.
 */

const ENDPOINTS = ['cabinet', 'bonuses', 'leads', 'referral-tree', 'partners'] as const;
/** PUBLIC_BASE_URL of the test configuration (test/utils/test-env.ts). */
const OWN_ORIGIN = 'http://localhost:3000';

function varyHasOrigin(res: Response): boolean {
  const vary = res.headers['vary'];
  if (typeof vary !== 'string') return false;
  return vary
    .split(',')
    .map((v) => v.trim().toLowerCase())
    .some((v) => v === 'origin' || v === '*');
}

function expectProblem(res: Response, status: number, code: string) {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ type: 'about:blank', status, code });
}

function expectRefused(res: Response) {
  expectProblem(res, 403, 'origin_not_allowed');
  // Present, and empty (seed 5, 7).
  expect(res.headers).toHaveProperty('access-control-allow-origin', '');
  expect(varyHasOrigin(res)).toBe(true);
  expect(res.headers).not.toHaveProperty('access-control-allow-credentials');
}

function expectAllowed(res: Response, origin: string) {
  expect(res.status).toBe(200);
  expect(res.headers['access-control-allow-origin']).toBe(origin);
  expect(varyHasOrigin(res)).toBe(true);
  expect(res.headers).not.toHaveProperty('access-control-allow-credentials');
}

describe('embed data: origin gate and CORS', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  let origin: string;
  let host: string;
  let member: UpsertedMember;

  const get = (endpoint: string, userId: string, query: string): Test =>
    t.http().get(`/embed/v1/data/${endpoint}/${userId}${query}`);

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    other = await createTenant(t);
    host = `${tenant.slug}.example`;
    origin = `https://${host}`;
    member = await upsertUser(t, tenant.key, { full_name: 'Origin Owner' });
    await upsertUser(t, tenant.key, {
      full_name: 'Origin Child',
      referrer_user_id: member.serviceUserId,
    });
  });
  afterAll(() => t.close());

  describe.each(ENDPOINTS)('GET /embed/v1/data/%s/:user_id', (endpoint) => {
    it('answers an exactly allowed origin with ACAO = the Origin and Vary: Origin', async () => {
      const res = await get(endpoint, member.memberId, `?tenant=${tenant.slug}`).set(
        'Origin',
        origin,
      );
      expectAllowed(res, origin);
      expect(res.body.tenant).toEqual({ slug: tenant.slug, display_name: `Tenant ${tenant.slug}` });
    });

    const refusedOrigins: [string, () => string | undefined][] = [
      ['a foreign origin', () => 'https://evil.example'],
      ['the literal null origin', () => 'null'],
      ['no Origin header', () => undefined],
      ['another scheme (http)', () => `http://${host}`],
      ['another port', () => `https://${host}:8443`],
      ['a suffix look-alike', () => `https://${host}.evil.example`],
      ['a prefix look-alike', () => `https://evil-${host}`],
      ['a subdomain of the allowed host', () => `https://www.${host}`],
      ['a trailing slash', () => `https://${host}/`],
      ['the origin of another tenant', () => `https://${other.slug}.example`],
    ];

    it.each(refusedOrigins)('refuses %s with 403 and an empty ACAO', async (_name, originOf) => {
      const o = originOf();
      const req = get(endpoint, member.memberId, `?tenant=${tenant.slug}`);
      const res = o === undefined ? await req : await req.set('Origin', o);
      expectRefused(res);
    });

    it('refuses before looking the user up (no membership leak to a foreign origin)', async () => {
      const res = await get(
        endpoint,
        'mbr_00000000000000000000000000',
        `?tenant=${tenant.slug}`,
      ).set('Origin', 'https://evil.example');
      expectRefused(res);
    });

    it('keeps ACAO and Vary on errors after the gate (404 user_not_found)', async () => {
      const res = await get(
        endpoint,
        'mbr_00000000000000000000000000',
        `?tenant=${tenant.slug}`,
      ).set('Origin', origin);
      expectProblem(res, 404, 'user_not_found');
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(varyHasOrigin(res)).toBe(true);
      expect(res.headers).not.toHaveProperty('access-control-allow-credentials');
    });

    it('keeps ACAO and Vary on validation errors after the gate', async () => {
      const res = await get(endpoint, member.memberId, `?tenant=${tenant.slug}&bogus=1`).set(
        'Origin',
        origin,
      );
      expectProblem(res, 400, 'validation_failed');
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(varyHasOrigin(res)).toBe(true);
    });

    it('needs the tenant: missing is 400 validation_failed, with Vary: Origin', async () => {
      const res = await get(endpoint, member.memberId, '').set('Origin', origin);
      expectProblem(res, 400, 'validation_failed');
      expect(varyHasOrigin(res)).toBe(true);
      const empty = await get(endpoint, member.memberId, '?tenant=').set('Origin', origin);
      expectProblem(empty, 400, 'validation_failed');
    });

    it('answers an unknown tenant with 404 tenant_not_found', async () => {
      const res = await get(endpoint, member.memberId, '?tenant=no-such-tenant-x1').set(
        'Origin',
        origin,
      );
      expectProblem(res, 404, 'tenant_not_found');
      expect(varyHasOrigin(res)).toBe(true);
    });

    it('answers the preflight: 204 for an allowed origin, 403 otherwise', async () => {
      const ok = await t
        .http()
        .options(`/embed/v1/data/${endpoint}/${member.memberId}?tenant=${tenant.slug}`)
        .set('Origin', origin)
        .set('Access-Control-Request-Method', 'GET')
        .set('Access-Control-Request-Headers', 'authorization, content-type');
      expect(ok.status).toBe(204);
      expect(ok.headers['access-control-allow-origin']).toBe(origin);
      expect(varyHasOrigin(ok)).toBe(true);
      const methods = String(ok.headers['access-control-allow-methods'])
        .split(',')
        .map((m) => m.trim().toUpperCase());
      expect(methods).toEqual(expect.arrayContaining(['GET', 'POST']));
      const headers = String(ok.headers['access-control-allow-headers'])
        .split(',')
        .map((h) => h.trim().toLowerCase());
      expect(headers).toEqual(expect.arrayContaining(['authorization', 'content-type']));
      expect(ok.headers['access-control-max-age']).toBe('600');
      expect(ok.headers).not.toHaveProperty('access-control-allow-credentials');

      const refused = await t
        .http()
        .options(`/embed/v1/data/${endpoint}/${member.memberId}?tenant=${tenant.slug}`)
        .set('Origin', 'https://evil.example')
        .set('Access-Control-Request-Method', 'GET');
      expectRefused(refused);
      expect(refused.headers).not.toHaveProperty('access-control-allow-methods');
    });

    it('ignores cookies: a Cookie header neither grants nor changes anything', async () => {
      const plain = await get(endpoint, member.memberId, `?tenant=${tenant.slug}`).set(
        'Origin',
        origin,
      );
      const withCookie = await get(endpoint, member.memberId, `?tenant=${tenant.slug}`)
        .set('Origin', origin)
        .set('Cookie', 'session=abc; sid=xyz');
      expectAllowed(withCookie, origin);
      expect(withCookie.headers).not.toHaveProperty('set-cookie');
      expect(stripTimes(withCookie.body)).toEqual(stripTimes(plain.body));

      const refused = await get(endpoint, member.memberId, `?tenant=${tenant.slug}`)
        .set('Origin', 'https://evil.example')
        .set('Cookie', 'session=abc');
      expectRefused(refused);
    });
  });

  describe('same-origin requests (no Origin, Sec-Fetch-Site: same-origin)', () => {
    let own: TestTenant;
    let ownMember: UpsertedMember;

    beforeAll(async () => {
      own = await createTenant(t);
      ownMember = await upsertUser(t, own.key, { full_name: 'Same Origin' });
    });

    const sameOrigin = (endpoint: string) =>
      get(endpoint, ownMember.memberId, `?tenant=${own.slug}`).set('Sec-Fetch-Site', 'same-origin');

    it('are refused while the service origin is not in allowed_origins', async () => {
      for (const endpoint of ENDPOINTS) expectRefused(await sameOrigin(endpoint));
    });

    it('are allowed once the tenant allows the service origin (PUBLIC_BASE_URL)', async () => {
      const patched = await t
        .http()
        .patch(`/admin/v1/tenants/${own.slug}`)
        .set('Authorization', `Bearer ${t.adminToken}`)
        .send({ allowed_origins: [`https://${own.slug}.example`, OWN_ORIGIN] });
      expect(patched.status).toBe(200);
      expect(patched.body.allowed_origins).toEqual([`https://${own.slug}.example`, OWN_ORIGIN]);

      for (const endpoint of ENDPOINTS) {
        const res = await sameOrigin(endpoint);
        expect(res.status).toBe(200);
        expect(varyHasOrigin(res)).toBe(true);
        expect(res.headers).not.toHaveProperty('access-control-allow-credentials');
        expect(res.body.tenant.slug).toBe(own.slug);
      }
      // The explicit Origin of the service is the same origin and equally allowed.
      expectAllowed(
        await get('cabinet', ownMember.memberId, `?tenant=${own.slug}`).set('Origin', OWN_ORIGIN),
        OWN_ORIGIN,
      );
    });

    it('only applies without an Origin and only for same-origin fetches', async () => {
      // Whatever the fetch metadata says, a present Origin is the one checked.
      expectRefused(await sameOrigin('cabinet').set('Origin', 'https://evil.example'));
      expectRefused(await sameOrigin('cabinet').set('Origin', 'null'));
      for (const site of ['cross-site', 'same-site', 'none']) {
        expectRefused(
          await get('cabinet', ownMember.memberId, `?tenant=${own.slug}`).set(
            'Sec-Fetch-Site',
            site,
          ),
        );
      }
    });

    it('is checked against the named tenant only', async () => {
      // `tenant` still allows only its own site; the service origin is no master key.
      expectRefused(
        await get('cabinet', member.memberId, `?tenant=${tenant.slug}`).set(
          'Sec-Fetch-Site',
          'same-origin',
        ),
      );
    });
  });
});

/** The body without the clock-dependent strings, to compare two reads made moments apart. */
function stripTimes(body: unknown): unknown {
  return JSON.parse(
    JSON.stringify(body, (key, value: unknown) => (key === 'relative_time' ? undefined : value)),
  );
}
