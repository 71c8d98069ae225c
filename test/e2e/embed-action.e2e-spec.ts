import jwt from 'jsonwebtoken';
import { generateKeyPairSync, createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { EmbedTokenService } from '../../src/access/embed-token.service';
import { eventsOf } from '../factories/money.factory';
import { createTenant, TestTenant, uniqueSlug } from '../factories/tenants.factory';
import { upsertUser, UpsertedUser } from '../factories/users.factory';
import { createTestApp, TestApp } from '../utils/create-test-app';
import { testEnv } from '../utils/test-env';

/**
 * The Embed Action API (seed 4.2, 5; SPEC 5): the popup's bearer JWT, the referral-link call
 * with its open-redirect rules and idempotency, signed refs, and the lead form that takes them.
 */

const JWT_SECRET = testEnv().JWT_SECRET!;
/** PUBLIC_BASE_URL of the test configuration: the token's issuer and the service's own origin. */
const PUBLIC_BASE_URL = testEnv().PUBLIC_BASE_URL!;
const OWN_ORIGIN = new URL(PUBLIC_BASE_URL).origin;
const CODE = /^[A-Za-z0-9]{8}$/;

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const decodePart = (part: string) =>
  JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;

function expectProblem(res: Response, status: number, code: string) {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
}

/** Changes one character of `value` at `index` to a different base64url character. */
function flip(value: string, index: number): string {
  const replacement = value[index] === 'A' ? 'B' : 'A';
  return value.slice(0, index) + replacement + value.slice(index + 1);
}

describe('embed action API', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  let origin: string;
  let host: string;
  let linkDomain: string;
  let owner: UpsertedUser;
  let second: UpsertedUser;
  let token: string;
  let tokens: EmbedTokenService;

  /** A claim set that the service would accept, for hand-made tokens. */
  const validClaims = (overrides: Record<string, unknown> = {}) => {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: PUBLIC_BASE_URL,
      aud: 'embed',
      sub: owner.memberId,
      tid: tenant.orgId,
      scope: 'profile:read',
      iat: now,
      exp: now + 3600,
      jti: randomUUID(),
      ...overrides,
    };
  };

  const referralLink = (
    body: Record<string, unknown>,
    options: { bearer?: string | null; origin?: string | null; slug?: string } = {},
  ) => {
    const req = t
      .http()
      .post(`/embed/v1/data/referral-link?tenant=${options.slug ?? tenant.slug}`)
      .set('Content-Type', 'application/json');
    const o = options.origin === undefined ? origin : options.origin;
    if (o !== null) req.set('Origin', o);
    const bearer = options.bearer === undefined ? token : options.bearer;
    if (bearer !== null) req.set('Authorization', `Bearer ${bearer}`);
    return req.send(body);
  };

  const website = (path = '/catalog') => ({
    target_type: 'website',
    target_id: `${origin}${path}`,
  });

  beforeAll(async () => {
    t = await createTestApp();
    tokens = t.app.get(EmbedTokenService);
    const slug = uniqueSlug('act');
    host = `${slug}.example`;
    origin = `https://${host}`;
    linkDomain = `links.${slug}-partner.example`;
    tenant = await createTenant(t, {
      slug,
      allowed_origins: [origin, 'https://admin.' + host + ':8443'],
      link_domains: [linkDomain],
    });
    other = await createTenant(t);
    owner = await upsertUser(t, tenant.key, { full_name: 'Link Owner', email: 'owner@x.example' });
    second = await upsertUser(t, tenant.key, { full_name: 'Second Partner' });
    token = tokens.issue(tenant.orgId, owner.memberId).token;
  });
  afterAll(() => t.close());

  describe('the bearer JWT', () => {
    it('is issued as HS256 / typ JWT with iss, aud embed, sub, tid, scope, iat, exp = iat + 3600, jti', () => {
      const before = Math.floor(Date.now() / 1000);
      const issued = tokens.issue(tenant.orgId, owner.memberId);
      const [header, payload, signature] = issued.token.split('.');
      expect(decodePart(header)).toEqual({ alg: 'HS256', typ: 'JWT' });
      const claims = decodePart(payload);
      expect(Object.keys(claims).sort()).toEqual(
        ['aud', 'exp', 'iat', 'iss', 'jti', 'scope', 'sub', 'tid'].sort(),
      );
      expect(claims).toMatchObject({
        iss: PUBLIC_BASE_URL,
        aud: 'embed',
        sub: owner.memberId,
        tid: tenant.orgId,
        scope: 'profile:read',
      });
      expect(claims.iat).toBeGreaterThanOrEqual(before);
      expect(claims.iat).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
      expect(claims.exp).toBe((claims.iat as number) + 3600);
      expect(typeof claims.jti).toBe('string');
      expect((claims.jti as string).length).toBeGreaterThan(0);
      // expires_at of the popup message is epoch milliseconds (13 digits) of exp.
      expect(issued.expiresAt).toBe((claims.exp as number) * 1000);
      expect(String(issued.expiresAt)).toMatch(/^\d{13}$/);
      // HS256 under JWT_SECRET (the HMAC key is its UTF-8 bytes).
      const expected = createHmac('sha256', Buffer.from(JWT_SECRET, 'utf8'))
        .update(`${header}.${payload}`)
        .digest('base64url');
      expect(signature).toBe(expected);
      // A fresh jti each time.
      const again = decodePart(tokens.issue(tenant.orgId, owner.memberId).token.split('.')[1]);
      expect(again.jti).not.toBe(claims.jti);
    });

    it('is accepted when made by hand with the same secret and claims (control for the battery)', async () => {
      const handMade = jwt.sign(validClaims(), JWT_SECRET, { algorithm: 'HS256' });
      const res = await referralLink(website('/control'), { bearer: handMade });
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
    });

    it('refuses alg none (unsigned) with 401 invalid_token', async () => {
      for (const alg of ['none', 'None', 'NONE']) {
        const unsigned = `${b64url({ alg, typ: 'JWT' })}.${b64url(validClaims())}.`;
        expectProblem(await referralLink(website(), { bearer: unsigned }), 401, 'invalid_token');
      }
      // `none` with the HS256 signature attached is no better.
      const signature = token.split('.')[2];
      const labelled = `${b64url({ alg: 'none', typ: 'JWT' })}.${token.split('.')[1]}.${signature}`;
      expectProblem(await referralLink(website(), { bearer: labelled }), 401, 'invalid_token');
    });

    it('refuses HS512 under the right secret with 401 invalid_token', async () => {
      const hs512 = jwt.sign(validClaims(), JWT_SECRET, { algorithm: 'HS512' });
      expect(decodePart(hs512.split('.')[0]).alg).toBe('HS512');
      expectProblem(await referralLink(website(), { bearer: hs512 }), 401, 'invalid_token');
      const hs384 = jwt.sign(validClaims(), JWT_SECRET, { algorithm: 'HS384' });
      expectProblem(await referralLink(website(), { bearer: hs384 }), 401, 'invalid_token');
    });

    it('refuses RS256, both really RSA-signed and HMAC-signed under an RS256 label (alg confusion)', async () => {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const rs256 = jwt.sign(validClaims(), privateKey, { algorithm: 'RS256' });
      expectProblem(await referralLink(website(), { bearer: rs256 }), 401, 'invalid_token');

      const head = b64url({ alg: 'RS256', typ: 'JWT' });
      const body = b64url(validClaims());
      const hmac = createHmac('sha256', Buffer.from(JWT_SECRET, 'utf8'))
        .update(`${head}.${body}`)
        .digest('base64url');
      expectProblem(
        await referralLink(website(), { bearer: `${head}.${body}.${hmac}` }),
        401,
        'invalid_token',
      );
    });

    it('refuses a token signed with another secret with 401 invalid_token', async () => {
      const forged = jwt.sign(validClaims(), `${JWT_SECRET}-but-not-quite`, { algorithm: 'HS256' });
      expectProblem(await referralLink(website(), { bearer: forged }), 401, 'invalid_token');
    });

    it('refuses an expired token with 401 token_expired', async () => {
      const now = Math.floor(Date.now() / 1000);
      const expired = jwt.sign(validClaims({ iat: now - 7200, exp: now - 60 }), JWT_SECRET, {
        algorithm: 'HS256',
      });
      expectProblem(await referralLink(website(), { bearer: expired }), 401, 'token_expired');
    });

    it('refuses a tampered payload (sub or tid changed, signature kept) with 401 invalid_token', async () => {
      const [header, payload, signature] = token.split('.');
      const claims = decodePart(payload);
      for (const change of [{ sub: second.memberId }, { tid: other.orgId }, { scope: 'admin' }]) {
        const tampered = `${header}.${b64url({ ...claims, ...change })}.${signature}`;
        expectProblem(await referralLink(website(), { bearer: tampered }), 401, 'invalid_token');
      }
      // One character of the signature changed.
      const last = token.length - 2;
      expectProblem(
        await referralLink(website(), { bearer: flip(token, last) }),
        401,
        'invalid_token',
      );
    });

    it('refuses a wrong issuer or audience with 401 invalid_token', async () => {
      for (const change of [
        { iss: 'https://evil.example' },
        { iss: `${PUBLIC_BASE_URL}/` },
        { aud: 'admin' },
        { aud: ['other'] },
      ]) {
        const bad = jwt.sign(validClaims(change), JWT_SECRET, { algorithm: 'HS256' });
        expectProblem(await referralLink(website(), { bearer: bad }), 401, 'invalid_token');
      }
      const noIss = validClaims();
      delete (noIss as Partial<typeof noIss>).iss;
      expectProblem(
        await referralLink(website(), {
          bearer: jwt.sign(noIss, JWT_SECRET, { algorithm: 'HS256' }),
        }),
        401,
        'invalid_token',
      );
    });

    it.each(['exp', 'iat', 'iss', 'aud', 'sub', 'tid', 'scope', 'jti'])(
      'refuses a token signed with the right secret but without %s with 401 invalid_token (issue #15)',
      async (claim) => {
        const claims: Record<string, unknown> = validClaims();
        delete claims[claim];
        // jsonwebtoken adds iat by itself unless told not to.
        const bearer = jwt.sign(claims, JWT_SECRET, {
          algorithm: 'HS256',
          noTimestamp: claim === 'iat',
        });
        expect(Object.keys(decodePart(bearer.split('.')[1]))).not.toContain(claim);
        expectProblem(await referralLink(website(), { bearer }), 401, 'invalid_token');
      },
    );

    it('refuses claims the popup never issues: a longer life, a future iat, odd types (issue #15)', async () => {
      const now = Math.floor(Date.now() / 1000);
      for (const change of [
        { exp: now + 30 * 24 * 3600 },
        { iat: now + 600, exp: now + 3600 },
        { exp: String(now + 3600) },
        { aud: ['embed'] },
        { scope: 'admin' },
        { tid: '' },
        { sub: 42 },
        { jti: '' },
      ]) {
        // Signed by hand: jsonwebtoken would not sign some of these claim sets.
        const head = b64url({ alg: 'HS256', typ: 'JWT' });
        const body = b64url(validClaims(change));
        const signature = createHmac('sha256', Buffer.from(JWT_SECRET, 'utf8'))
          .update(`${head}.${body}`)
          .digest('base64url');
        const bad = `${head}.${body}.${signature}`;
        expectProblem(await referralLink(website(), { bearer: bad }), 401, 'invalid_token');
      }
      // Issued over an hour ago, whatever exp says: expired.
      const old = jwt.sign(validClaims({ iat: now - 3700, exp: now + 3600 }), JWT_SECRET, {
        algorithm: 'HS256',
      });
      expectProblem(await referralLink(website(), { bearer: old }), 401, 'token_expired');
    });

    it('refuses a missing or malformed Authorization header with 401 invalid_token', async () => {
      expectProblem(await referralLink(website(), { bearer: null }), 401, 'invalid_token');
      for (const value of [
        '',
        'Basic Zm9vOmJhcg==',
        `Token ${token}`,
        'Bearer',
        'Bearer not.a.jwt',
      ]) {
        const res = await t
          .http()
          .post(`/embed/v1/data/referral-link?tenant=${tenant.slug}`)
          .set('Origin', origin)
          .set('Authorization', value)
          .send(website());
        expectProblem(res, 401, 'invalid_token');
      }
    });

    it("refuses another tenant's valid token with 403 tenant_mismatch", async () => {
      const stranger = await upsertUser(t, other.key, { full_name: 'Stranger' });
      const foreign = tokens.issue(other.orgId, stranger.memberId).token;
      const res = await referralLink(website(), { bearer: foreign });
      expectProblem(res, 403, 'tenant_mismatch');
      // The same token works on its own tenant (from that tenant's origin).
      const own = await referralLink(
        { target_type: 'website', target_id: `https://${other.slug}.example/x` },
        { bearer: foreign, slug: other.slug, origin: `https://${other.slug}.example` },
      );
      expect(own.status).toBe(200);
    });

    it('refuses a valid token from a disallowed or missing Origin with 403 origin_not_allowed', async () => {
      for (const bad of ['https://evil.example', `http://${host}`, `${origin}:444`, 'null']) {
        const res = await referralLink(website(), { origin: bad });
        expectProblem(res, 403, 'origin_not_allowed');
        expect(res.headers['access-control-allow-origin']).toBe('');
      }
      expectProblem(await referralLink(website(), { origin: null }), 403, 'origin_not_allowed');
      // The service's own origin is not one of this tenant's origins.
      expectProblem(
        await referralLink(website(), { origin: OWN_ORIGIN }),
        403,
        'origin_not_allowed',
      );
    });
  });

  describe('POST /embed/v1/data/referral-link', () => {
    it('returns the deeplink object (seed 2.3) with an 8-character code under PUBLIC_BASE_URL/s', async () => {
      const res = await referralLink({
        ...website('/spring?utm=x'),
        recommendation_text: 'Great shop',
        promo_code: 'SPRING_10',
      });
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(Object.keys(res.body).sort()).toEqual(
        ['code', 'deeplink_id', 'reused', 'short_url', 'signed_ref'].sort(),
      );
      expect(res.body.code).toMatch(CODE);
      expect(res.body.deeplink_id).toMatch(/^dl_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(res.body.short_url).toBe(`${PUBLIC_BASE_URL}/s/${res.body.code}`);
      expect(res.body.signed_ref).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      expect(res.body.reused).toBe(false);
    });

    it.each([
      ['target_type unknown', { target_type: 'app', target_id: 'x' }],
      ['target_type missing', { target_id: 'x' }],
      ['target_id missing', { target_type: 'offer' }],
      ['target_id empty', { target_type: 'offer', target_id: '' }],
      ['target_id not a string', { target_type: 'offer', target_id: 42 }],
      ['promo_code with spaces', { target_type: 'offer', target_id: 'x', promo_code: 'SPRING 10' }],
      [
        'promo_code of 65 characters',
        { target_type: 'offer', target_id: 'x', promo_code: 'P'.repeat(65) },
      ],
      [
        'promo_code with other characters',
        { target_type: 'offer', target_id: 'x', promo_code: 'ÄBC!' },
      ],
      [
        'recommendation_text of 501 characters',
        { target_type: 'offer', target_id: 'x', recommendation_text: 'r'.repeat(501) },
      ],
      ['unknown field tenant', { target_type: 'offer', target_id: 'x', tenant: 'other' }],
      ['unknown field user_id', { target_type: 'offer', target_id: 'x', user_id: 'mbr_x' }],
      ['unknown field code', { target_type: 'offer', target_id: 'x', code: 'AAAAAAAA' }],
      ['unknown field deeplink_id', { target_type: 'offer', target_id: 'x', deeplink_id: 'dl_x' }],
    ])('refuses %s with 400 validation_failed', async (_label, body) => {
      const res = await referralLink(body);
      expectProblem(res, 400, 'validation_failed');
      expect(Array.isArray(res.body.errors)).toBe(true);
    });

    it('accepts the limits exactly: promo_code of 64 and recommendation_text of 500', async () => {
      const res = await referralLink({
        target_type: 'offer',
        target_id: 'limits',
        promo_code: 'P'.repeat(64),
        recommendation_text: 'r'.repeat(500),
      });
      expect(res.status).toBe(200);
    });

    it('refuses a JSON body sent as another type with 415', async () => {
      const res = await t
        .http()
        .post(`/embed/v1/data/referral-link?tenant=${tenant.slug}`)
        .set('Origin', origin)
        .set('Authorization', `Bearer ${token}`)
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send('target_type=offer&target_id=x');
      expectProblem(res, 415, 'unsupported_media_type');
    });

    describe('website targets: no open redirects', () => {
      const refused = () => [
        ['javascript:', 'javascript:alert(1)'],
        ['data:', 'data:text/html,<script>alert(1)</script>'],
        ['protocol-relative', '//evil.example'],
        ['protocol-relative to the tenant', `//${host}/x`],
        ['a foreign host', 'https://evil.example'],
        ['the tenant host as user info', `https://${host}@evil.example`],
        ['the tenant host as a sub-domain of evil', `https://${host}.evil.example`],
        ['backslash then @tenant', `https://evil.example\\@${host}`],
        ['backslashes for slashes', `https:\\\\evil.example`],
        ['backslash in the path', `https://${host}\\evil.example`],
        ['backslash after the host', `https://${host}/\\evil.example`],
        ['http on the tenant host', `http://${host}/x`],
        [
          'a look-alike IDN host (Cyrillic а)',
          `https://${host.replace('example', 'ex\u0430mple')}/`,
        ],
        ['https: without slashes', `https:${host}`],
        ['https: with one slash', `https:/${host}/x`],
        ['user info before the tenant host', `https://user@${host}/`],
        ['a relative path', '/catalog'],
        ['http on localhost, not an allowed host here', 'http://localhost/x'],
        ['a newline', `https://${host}/a\nb`],
      ];

      it('refuses every open-redirect shape with 422 target_not_allowed', async () => {
        const answers: string[] = [];
        for (const [label, target_id] of refused()) {
          const res = await referralLink({ target_type: 'website', target_id });
          answers.push(`${label}: ${res.status} ${res.body?.code}`);
        }
        expect(answers).toEqual(refused().map(([label]) => `${label}: 422 target_not_allowed`));
      });

      it('accepts the allowed origin hosts and the link_domains, with path and query', async () => {
        for (const target_id of [
          `${origin}/path?q`,
          `${origin}/catalog?item=42&x=a%20b#reviews`,
          `https://admin.${host}:8443/dashboard`,
          `https://${linkDomain}/promo/spring`,
        ]) {
          const res = await referralLink({ target_type: 'website', target_id });
          expect({ target_id, status: res.status }).toEqual({ target_id, status: 200 });
        }
      });

      it('accepts http://localhost only for a tenant that allows localhost', async () => {
        const local = await createTenant(t, { allowed_origins: ['http://localhost:5173'] });
        const member = await upsertUser(t, local.key, { full_name: 'Local Dev' });
        const localToken = tokens.issue(local.orgId, member.memberId).token;
        const call = (target_id: string) =>
          referralLink(
            { target_type: 'website', target_id },
            { slug: local.slug, origin: 'http://localhost:5173', bearer: localToken },
          );
        expect((await call('http://localhost/x?y=1')).status).toBe(200);
        expect((await call('http://localhost:5173/dev')).status).toBe(200);
        expectProblem(await call('http://127.0.0.1/x'), 422, 'target_not_allowed');
        expectProblem(await call('http://localhost.evil.example/x'), 422, 'target_not_allowed');
        // And the main tenant (no localhost origin) refuses it.
        expectProblem(
          await referralLink({ target_type: 'website', target_id: 'http://localhost/x' }),
          422,
          'target_not_allowed',
        );
      });
    });

    describe('other target types', () => {
      it.each(['offer', 'shop', 'partner', 'storefront'])(
        '%s takes ids of ^[A-Za-z0-9_.:-]{1,128}$ and refuses others with 422',
        async (target_type) => {
          for (const target_id of [
            'ofr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T',
            'shop:42',
            'a.b-c_d',
            'I'.repeat(128),
          ]) {
            const res = await referralLink({ target_type, target_id });
            expect({ target_id, status: res.status }).toEqual({ target_id, status: 200 });
          }
          for (const target_id of [
            'I'.repeat(129),
            'has space',
            'a/b',
            '<script>',
            'caf\u00e9',
            `${origin}/x`,
          ]) {
            const res = await referralLink({ target_type, target_id });
            expect({ target_id, status: res.status, code: res.body.code }).toEqual({
              target_id,
              status: 422,
              code: 'target_not_allowed',
            });
          }
        },
      );
    });

    describe('idempotency', () => {
      const base = () => ({
        target_type: 'website',
        target_id: `${origin}/idem/${randomBytes(4).toString('hex')}?a=1`,
        recommendation_text: 'Try it',
        // Promo codes are unique per tenant (docs/fraud.md): each test asks for its own.
        promo_code: `IDEM${randomBytes(3).toString('hex')}`,
      });

      it('returns the same link for the same six fields, with reused true', async () => {
        const body = base();
        const first = await referralLink(body);
        expect(first.status).toBe(200);
        expect(first.body.reused).toBe(false);
        const again = await referralLink(body);
        expect(again.status).toBe(200);
        expect(again.body).toEqual({ ...first.body, reused: true });
        // A new token of the same member (another popup sign-in) is the same member.
        const fresh = tokens.issue(tenant.orgId, owner.memberId).token;
        expect((await referralLink(body, { bearer: fresh })).body).toEqual({
          ...first.body,
          reused: true,
        });
      });

      it('makes a new link when any one of the fields differs', async () => {
        // Without a promo code: a code names one link of the tenant (docs/fraud.md).
        const { promo_code: code, ...body } = base();
        const first = (await referralLink(body)).body;
        const { recommendation_text: _r, ...withoutText } = body;
        const variants: [string, Promise<Response>][] = [
          [
            'member',
            referralLink(body, { bearer: tokens.issue(tenant.orgId, second.memberId).token }),
          ],
          ['target_id', referralLink({ ...body, target_id: `${body.target_id}&b=2` })],
          ['recommendation_text', referralLink({ ...body, recommendation_text: 'Try it!' })],
          ['recommendation_text absent', referralLink(withoutText)],
          ['promo_code', referralLink({ ...body, promo_code: code })],
        ];
        const ids = new Set<string>([first.deeplink_id]);
        const codes = new Set<string>([first.code]);
        for (const [label, pending] of variants) {
          const res = await pending;
          expect({ label, status: res.status, reused: res.body.reused }).toEqual({
            label,
            status: 200,
            reused: false,
          });
          ids.add(res.body.deeplink_id);
          codes.add(res.body.code);
        }
        expect(ids.size).toBe(variants.length + 1);
        expect(codes.size).toBe(variants.length + 1);
        // Another member, or another link, asking for a code in use gets no link of it.
        const taken = await referralLink(
          { ...body, promo_code: code },
          { bearer: tokens.issue(tenant.orgId, second.memberId).token },
        );
        expect({ status: taken.status, code: taken.body.code }).toEqual({
          status: 409,
          code: 'promo_code_taken',
        });

        // target_type: the same id under two types.
        const asOffer = await referralLink({ target_type: 'offer', target_id: 'same-id-1' });
        const asShop = await referralLink({ target_type: 'shop', target_id: 'same-id-1' });
        expect(asShop.body.deeplink_id).not.toBe(asOffer.body.deeplink_id);
        expect(asShop.body.reused).toBe(false);

        // tenant: another tenant whose link_domains include this host, same target.
        const sibling = await createTenant(t, { link_domains: [host] });
        const member = await upsertUser(t, sibling.key, { full_name: 'Sibling' });
        const inSibling = await referralLink(
          { target_type: 'website', target_id: body.target_id },
          {
            slug: sibling.slug,
            origin: `https://${sibling.slug}.example`,
            bearer: tokens.issue(sibling.orgId, member.memberId).token,
          },
        );
        expect(inSibling.status).toBe(200);
        expect(inSibling.body.reused).toBe(false);
      });

      it('makes exactly one link for 20 concurrent identical requests', async () => {
        const body = base();
        const answers = await Promise.all(Array.from({ length: 20 }, () => referralLink(body)));
        expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
        expect(new Set(answers.map((r) => r.body.deeplink_id)).size).toBe(1);
        expect(new Set(answers.map((r) => r.body.code)).size).toBe(1);
        expect(new Set(answers.map((r) => r.body.signed_ref)).size).toBe(1);
        expect(answers.filter((r) => r.body.reused === false)).toHaveLength(1);
        const [{ count }] = await t.db.query(
          `SELECT count(*)::int AS count FROM deeplinks
            WHERE tenant_id = $1 AND member_id = $2 AND target_type = 'website' AND target_id = $3`,
          [tenant.orgId, owner.memberId, body.target_id],
        );
        expect(count).toBe(1);
      });
    });
  });

  describe('signed refs and the lead form', () => {
    let link: { signed_ref: string; deeplink_id: string; code: string };
    let foreignRef: string;

    const leadForm = (
      body: Record<string, unknown>,
      o: string | null = origin,
      slug = tenant.slug,
    ) => {
      const req = t.http().post(`/embed/v1/data/leads?tenant=${slug}`);
      if (o !== null) req.set('Origin', o);
      return req.send(body);
    };
    const contact = () => ({
      name: 'Visitor',
      email: `v-${randomBytes(4).toString('hex')}@example.org`,
    });

    beforeAll(async () => {
      link = (await referralLink({ target_type: 'offer', target_id: 'lead-form-offer' })).body;
      const stranger = await upsertUser(t, other.key, { full_name: 'Other Owner' });
      foreignRef = (
        await referralLink(
          { target_type: 'offer', target_id: 'lead-form-offer' },
          {
            slug: other.slug,
            origin: `https://${other.slug}.example`,
            bearer: tokens.issue(other.orgId, stranger.memberId).token,
          },
        )
      ).body.signed_ref;
    });

    it('creates a lead_form lead for the link owner from a valid ref, and emits lead.created', async () => {
      const person = contact();
      const res = await leadForm({
        ref: link.signed_ref,
        contact: person,
        metadata: { page: 'spring' },
      });
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(res.body).toEqual({ lead_id: expect.stringMatching(/^lead_/), status: 'new' });
      const [row] = await t.db.query(
        'SELECT source, referrer_user_id, referrer_member_id FROM leads WHERE tenant_id = $1 AND id = $2',
        [tenant.orgId, res.body.lead_id],
      );
      expect(row).toEqual({
        source: 'lead_form',
        referrer_user_id: owner.serviceUserId,
        referrer_member_id: owner.memberId,
      });
      const created = (await eventsOf(t, tenant.orgId, 'lead.created')).find(
        (e) => e.payload.lead_id === res.body.lead_id,
      );
      expect(created?.payload).toMatchObject({
        lead_id: res.body.lead_id,
        referrer_user_id: owner.serviceUserId,
        contact: { name: 'Visitor', email: person.email },
        offer_id: null,
        metadata: { page: 'spring' },
        source: 'lead_form',
      });
    });

    it('refuses a ref with any one character changed with 422 invalid_ref', async () => {
      const ref = link.signed_ref;
      const dot = ref.indexOf('.');
      const positions = [
        0,
        1,
        Math.floor(dot / 2),
        dot - 1,
        dot,
        dot + 1,
        Math.floor((dot + ref.length) / 2),
        ref.length - 2,
        ref.length - 1,
      ];
      const before = await t.db.query('SELECT count(*)::int AS n FROM leads WHERE tenant_id = $1', [
        tenant.orgId,
      ]);
      for (const position of positions) {
        const res = await leadForm({ ref: flip(ref, position), contact: contact() });
        expect({ position, status: res.status, code: res.body.code }).toEqual({
          position,
          status: 422,
          code: 'invalid_ref',
        });
      }
      const after = await t.db.query('SELECT count(*)::int AS n FROM leads WHERE tenant_id = $1', [
        tenant.orgId,
      ]);
      expect(after[0].n).toBe(before[0].n);
    });

    it("refuses another tenant's ref with 422 invalid_ref", async () => {
      expectProblem(await leadForm({ ref: foreignRef, contact: contact() }), 422, 'invalid_ref');
      // …which is valid on its own tenant.
      const own = await leadForm(
        { ref: foreignRef, contact: contact() },
        `https://${other.slug}.example`,
        other.slug,
      );
      expect(own.status).toBe(200);
    });

    it('validates the body: contact required, unknown fields refused', async () => {
      expectProblem(await leadForm({ ref: link.signed_ref }), 400, 'validation_failed');
      expectProblem(
        await leadForm({ ref: link.signed_ref, contact: { name: 'No Reach' } }),
        400,
        'validation_failed',
      );
      expectProblem(
        await leadForm({
          ref: link.signed_ref,
          contact: contact(),
          referrer_user_id: second.serviceUserId,
        }),
        400,
        'validation_failed',
      );
      expectProblem(await leadForm({ contact: contact() }), 400, 'validation_failed');
    });

    it("allows the service's own origin on the lead form but not on the Data API reads", async () => {
      const res = await leadForm({ ref: link.signed_ref, contact: contact() }, OWN_ORIGIN);
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(OWN_ORIGIN);
      // A same-origin browser request without Origin counts as the own origin.
      const sameOrigin = await t
        .http()
        .post(`/embed/v1/data/leads?tenant=${tenant.slug}`)
        .set('Sec-Fetch-Site', 'same-origin')
        .send({ ref: link.signed_ref, contact: contact() });
      expect(sameOrigin.status).toBe(200);

      for (const read of ['cabinet', 'bonuses', 'leads', 'referral-tree', 'partners']) {
        const denied = await t
          .http()
          .get(`/embed/v1/data/${read}/${owner.memberId}?tenant=${tenant.slug}`)
          .set('Origin', OWN_ORIGIN);
        expectProblem(denied, 403, 'origin_not_allowed');
        expect(denied.headers['access-control-allow-origin']).toBe('');
      }
      // Foreign and missing origins stay refused on the lead form.
      expectProblem(
        await leadForm({ ref: link.signed_ref, contact: contact() }, 'https://evil.example'),
        403,
        'origin_not_allowed',
      );
      expectProblem(
        await leadForm({ ref: link.signed_ref, contact: contact() }, null),
        403,
        'origin_not_allowed',
      );
    });

    describe('the Federation upsert with signed_ref', () => {
      const upsert = (body: Record<string, unknown>) =>
        t
          .http()
          .post('/federation/v1/users/upsert')
          .set('X-Service-Tenant-Key', tenant.key)
          .send({ external_id: `ref-${randomBytes(5).toString('hex')}`, ...body });

      it("sets the referrer from the ref's link owner", async () => {
        const res = await upsert({ full_name: 'Referred By Link', signed_ref: link.signed_ref });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({
          action: 'created',
          referrer_user_id: owner.serviceUserId,
        });
        const [row] = await t.db.query(
          'SELECT referrer_member_id FROM members WHERE tenant_id = $1 AND id = $2',
          [tenant.orgId, res.body.tenant_service_id],
        );
        expect(row.referrer_member_id).toBe(owner.memberId);
      });

      it('refuses signed_ref together with referrer_user_id with 400 validation_failed', async () => {
        expectProblem(
          await upsert({ signed_ref: link.signed_ref, referrer_user_id: second.serviceUserId }),
          400,
          'validation_failed',
        );
      });

      it("refuses a tampered or another tenant's ref with 422 invalid_ref", async () => {
        const ref = link.signed_ref;
        expectProblem(await upsert({ signed_ref: flip(ref, 3) }), 422, 'invalid_ref');
        expectProblem(await upsert({ signed_ref: flip(ref, ref.length - 1) }), 422, 'invalid_ref');
        expectProblem(await upsert({ signed_ref: foreignRef }), 422, 'invalid_ref');
      });
    });
  });
});

describe('embed action API: SHORT_LINK_BASE_URL', () => {
  let t: TestApp;
  afterAll(() => t?.close());

  it('builds short_url as SHORT_LINK_BASE_URL/<code>', async () => {
    t = await createTestApp({ SHORT_LINK_BASE_URL: 'https://go.example/r/' });
    const tenant = await createTenant(t);
    const member = await upsertUser(t, tenant.key, { full_name: 'Short Base' });
    const res = await t
      .http()
      .post(`/embed/v1/data/referral-link?tenant=${tenant.slug}`)
      .set('Origin', `https://${tenant.slug}.example`)
      .set(
        'Authorization',
        `Bearer ${t.app.get(EmbedTokenService).issue(tenant.orgId, member.memberId).token}`,
      )
      .send({ target_type: 'offer', target_id: 'base-url' });
    expect(res.status).toBe(200);
    expect(res.body.short_url).toBe(`https://go.example/r/${res.body.code}`);
  });
});

describe('rate limits (RATE_LIMITS=on)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let origin: string;
  let token: string;

  /** The requests of one test must fall within one minute: start early in a minute. */
  const startEarlyInAMinute = async (latestSecond: number) => {
    const secondOfMinute = new Date().getSeconds();
    if (secondOfMinute > latestSecond)
      await new Promise((r) => setTimeout(r, (61 - secondOfMinute) * 1000));
  };
  /**
   * Requests come from loopback, whose X-Forwarded-For this app trusts: a new address each call,
   * never one drawn before (a random draw once repeated the limited address).
   */
  let lastIp = 0;
  const testIp = () => `203.0.113.${++lastIp}`;
  const referralLink = (from: string, slug = tenant.slug, o = origin, bearer = token) =>
    t
      .http()
      .post(`/embed/v1/data/referral-link?tenant=${slug}`)
      .set('Origin', o)
      .set('X-Forwarded-For', from)
      .set('Authorization', `Bearer ${bearer}`)
      .send({ target_type: 'offer', target_id: 'limited' });

  beforeAll(async () => {
    t = await createTestApp({
      RATE_LIMITS: 'on',
      TRUST_PROXY: 'loopback',
      QUEUE_PREFIX: `${process.env.TEST_QUEUE_PREFIX}:rl${randomBytes(3).toString('hex')}`,
      PROCESS_ROLE: 'api',
    });
    tenant = await createTenant(t);
    origin = `https://${tenant.slug}.example`;
    const member = await upsertUser(t, tenant.key, { full_name: 'Limited' });
    token = t.app.get(EmbedTokenService).issue(tenant.orgId, member.memberId).token;
  });
  afterAll(() => t?.close());

  it('lead form: the 21st submission from one IP within a minute is 429 rate_limited with Retry-After', async () => {
    const link = await referralLink(testIp());
    expect(link.status).toBe(200);
    await startEarlyInAMinute(45);
    const ip = testIp();
    const submit = (from: string, n: number) =>
      t
        .http()
        .post(`/embed/v1/data/leads?tenant=${tenant.slug}`)
        .set('Origin', origin)
        .set('X-Forwarded-For', from)
        .send({
          ref: link.body.signed_ref,
          contact: { name: `Lead ${n}`, phone: `+7900000${String(n).padStart(4, '0')}` },
        });
    const countLeads = async () =>
      (
        await t.db.query('SELECT count(*)::int AS n FROM leads WHERE tenant_id = $1', [
          tenant.orgId,
        ])
      )[0].n as number;
    const before = await countLeads();

    const statuses: number[] = [];
    for (let n = 1; n <= 20; n++) statuses.push((await submit(ip, n)).status);
    expect(statuses).toEqual(Array(20).fill(200));
    const limited = await submit(ip, 21);
    expectProblem(limited, 429, 'rate_limited');
    // A page must be able to read the refusal (issue #22): CORS on the 429 too.
    expect(limited.headers['access-control-allow-origin']).toBe(origin);
    expect(limited.headers.vary).toMatch(/\bOrigin\b/);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The refused submission created nothing.
    expect(await countLeads()).toBe(before + 20);
    // Per IP: another address is not limited.
    expect((await submit(testIp(), 22)).status).toBe(200);
  }, 120_000);

  it('Embed Action API: the 601st call from one IP to one tenant within a minute is 429 (SPEC 7: 600/min per IP and tenant)', async () => {
    await startEarlyInAMinute(30);
    const ip = testIp();
    const statuses: number[] = [];
    for (let batch = 0; batch < 30; batch++) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => referralLink(ip)));
      statuses.push(...answers.map((r) => r.status));
    }
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const limited = await referralLink(ip);
    expectProblem(limited, 429, 'rate_limited');
    expect(limited.headers['access-control-allow-origin']).toBe(origin);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Per IP and tenant: another address, and the same address on another tenant, still pass.
    expect((await referralLink(testIp())).status).toBe(200);
    const other = await createTenant(t);
    const member = await upsertUser(t, other.key, { full_name: 'Elsewhere' });
    const otherToken = t.app.get(EmbedTokenService).issue(other.orgId, member.memberId).token;
    expect(
      (await referralLink(ip, other.slug, `https://${other.slug}.example`, otherToken)).status,
    ).toBe(200);
  }, 180_000);
});
