/**
 * The Embed Action API specs' shared setup (test/e2e/embed/embed-action-*.e2e-spec.ts; seed 4.2, 5;
 * docs/embedding.md): one app per file, a tenant with two origins and a link domain, two partners and the
 * popup's bearer JWT of the first, and the referral-link call the specs vary. The fields are set by
 * the hooks: read them inside a test.
 */
import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { EmbedTokenService } from '../../src/access/embed-token.service';
import { createTenant, type TestTenant, uniqueSlug } from '../factories/tenants.factory';
import { upsertUser, type UpsertedMember } from '../factories/users.factory';
import { createTestApp, type TestApp } from './create-test-app';
import { testEnv } from './test-env';

export const JWT_SECRET = testEnv().JWT_SECRET!;
/** PUBLIC_BASE_URL of the test configuration: the token's issuer and the service's own origin. */
export const PUBLIC_BASE_URL = testEnv().PUBLIC_BASE_URL!;
export const OWN_ORIGIN = new URL(PUBLIC_BASE_URL).origin;
export const CODE = /^[A-Za-z0-9]{8}$/;

export const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
export const decodePart = (part: string) =>
  JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;

export function expectProblem(res: Response, status: number, code: string) {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
}

/** Changes one character of `value` at `index` to a different base64url character. */
export function flip(value: string, index: number): string {
  const replacement = value[index] === 'A' ? 'B' : 'A';
  return value.slice(0, index) + replacement + value.slice(index + 1);
}

export function embedActionSuite() {
  const s = {} as {
    t: TestApp;
    tenant: TestTenant;
    other: TestTenant;
    origin: string;
    host: string;
    linkDomain: string;
    owner: UpsertedMember;
    second: UpsertedMember;
    token: string;
    tokens: EmbedTokenService;
  };

  /** A claim set that the service would accept, for hand-made tokens. */
  const validClaims = (overrides: Record<string, unknown> = {}) => {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: PUBLIC_BASE_URL,
      aud: 'embed',
      sub: s.owner.memberId,
      tid: s.tenant.orgId,
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
    const req = s.t
      .http()
      .post(`/embed/v1/data/referral-link?tenant=${options.slug ?? s.tenant.slug}`)
      .set('Content-Type', 'application/json');
    const o = options.origin === undefined ? s.origin : options.origin;
    if (o !== null) req.set('Origin', o);
    const bearer = options.bearer === undefined ? s.token : options.bearer;
    if (bearer !== null) req.set('Authorization', `Bearer ${bearer}`);
    return req.send(body);
  };

  const website = (path = '/catalog') => ({
    target_type: 'website',
    target_id: `${s.origin}${path}`,
  });

  beforeAll(async () => {
    s.t = await createTestApp();
    s.tokens = s.t.app.get(EmbedTokenService);
    const slug = uniqueSlug('act');
    s.host = `${slug}.example`;
    s.origin = `https://${s.host}`;
    s.linkDomain = `links.${slug}-partner.example`;
    s.tenant = await createTenant(s.t, {
      slug,
      allowed_origins: [s.origin, 'https://admin.' + s.host + ':8443'],
      link_domains: [s.linkDomain],
    });
    s.other = await createTenant(s.t);
    s.owner = await upsertUser(s.t, s.tenant.key, {
      full_name: 'Link Owner',
      email: 'owner@x.example',
    });
    s.second = await upsertUser(s.t, s.tenant.key, { full_name: 'Second Partner' });
    s.token = s.tokens.issue(s.tenant.orgId, s.owner.memberId).token;
  });
  afterAll(() => s.t.close());

  return Object.assign(s, { validClaims, referralLink, website });
}
