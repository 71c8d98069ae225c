import { JwtService } from '@nestjs/jwt';
import { createHash } from 'node:crypto';
import { DomainError } from '../common/errors/domain-error';
import { RateLimitedError, type RateLimiter } from '../common/http/rate-limiter';
import type { AppConfig } from '../config/app-config';
import type { StaffTokenEntity } from '../tenants/staff-token.entity';
import type { TenantEntity } from '../tenants/tenant.entity';
import type { TenantsService } from '../tenants/tenants.service';
import {
  Admin,
  EmbedBearer,
  EmbedOrigin,
  OrgSession,
  Public,
  TenantKey,
} from '../common/access/access.decorators';
import { AccessService } from './access.service';
import type { AdminSessionEntity } from './admin-session.entity';
import type { AdminSessionsService } from './admin-sessions.service';
import type { Credentials } from './credentials';
import { EmbedOriginPolicy } from './embed-origin';
import { EmbedTokenService } from './embed-token.service';
import { RateLimit, type RateLimitName } from './rate-limits';
import { routeAccess, type RouteAccess } from './route-access';

/**
 * AccessService from plain inputs, against in-memory lookups: every credential kind valid,
 * missing, malformed, revoked or expired, and another tenant's.
 */
const hash = (value: string) => createHash('sha256').update(value).digest('hex');
const ADMIN_TOKEN = 'adm_the-platform-admin-token-of-this-test';
const BASE = 'https://service.example';
const config = {
  adminToken: ADMIN_TOKEN,
  jwtSecret: 'a-jwt-secret-of-at-least-thirty-two-characters',
  publicBaseUrl: BASE,
} as AppConfig;

const tenant = (slug: string): TenantEntity =>
  ({ id: `org_${slug}`, slug, allowedOrigins: [`https://${slug}.example`] }) as TenantEntity;
const acme = tenant('acme');
const globex = tenant('globex');

const keys = new Map([
  [hash('tk_acme'), { tenant: acme, keyId: 'key_1', keyName: 'backend' }],
  [hash('tk_globex'), { tenant: globex, keyId: 'key_2', keyName: null }],
]);
const staffToken = (id: string, role: StaffTokenEntity['role'], of: TenantEntity) => ({
  token: { id, name: `${role} of ${of.slug}`, role, tenantId: of.id, tokenHash: '' },
  tenant: of,
});
const staff = new Map([
  [hash('stf_owner'), staffToken('stt_1', 'owner', acme)],
  [hash('stf_viewer'), staffToken('stt_2', 'viewer', acme)],
  [hash('stf_globex'), staffToken('stt_3', 'manager', globex)],
]);
for (const [tokenHash, entry] of staff) entry.token.tokenHash = tokenHash;
/** Revoked tokens are not found by the lookups, which read active rows only. */
const revoke = (token: string) => staff.delete(hash(token));

const tenants = {
  tenantBySlug: (slug: string) =>
    Promise.resolve([acme, globex].find((t) => t.slug === slug) ?? null),
  tenantByKeyHash: (keyHash: string) => Promise.resolve(keys.get(keyHash) ?? null),
  staffByTokenHash: (tokenHash: string) => Promise.resolve(staff.get(tokenHash) ?? null),
} as unknown as TenantsService;

/** The session store's contract: a row while it has not expired. */
const rows = new Map<string, AdminSessionEntity>();
const sessions = {
  create: (staffTokenHash: string | null) => {
    const token = `cookie_${rows.size + 1}`;
    rows.set(hash(token), {
      tokenHash: hash(token),
      actorType: staffTokenHash === null ? 'platform' : 'staff',
      staffTokenHash,
      csrf: `csrf_${rows.size + 1}`,
      createdAt: new Date(),
      expiresAt: new Date(Date.now() + 60_000),
    });
    return Promise.resolve(token);
  },
  find: (token: string) => {
    const row = rows.get(hash(token));
    return Promise.resolve(row && row.expiresAt > new Date() ? row : null);
  },
  delete: (token: string) => Promise.resolve(void rows.delete(hash(token))),
} as unknown as AdminSessionsService;

const counted: string[] = [];
let limitedAfter = Infinity;
const limiter = {
  consume: (bucket: string, key: string, limit: number) => {
    counted.push(`${bucket}:${key}:${limit}`);
    if (counted.length > limitedAfter) return Promise.reject(new RateLimitedError(42));
    return Promise.resolve();
  },
} as unknown as RateLimiter;

const tokens = new EmbedTokenService(new JwtService({}), config);
const access = new AccessService(
  tenants,
  new EmbedOriginPolicy(tenants, config),
  tokens,
  sessions,
  limiter,
  config,
);

/** The declarations of a route with these decorators. */
function route(...decorators: MethodDecorator[]): RouteAccess {
  class Controller {
    handler() {}
  }
  const descriptor = Object.getOwnPropertyDescriptor(Controller.prototype, 'handler')!;
  for (const decorate of decorators) decorate(Controller.prototype, 'handler', descriptor);
  return routeAccess(Controller, Controller.prototype.handler);
}
const limited = (...names: RateLimitName[]) => RateLimit(...names) as MethodDecorator;

const call = (credentials: Partial<Credentials>, declared: RouteAccess) =>
  access.authorize(declared, { ip: '203.0.113.9', ...credentials });

/** The refusal as `<status> <code>`, with ` cors=<value>` when it carries a CORS header. */
async function refused(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof DomainError)) throw new Error(`not a refusal: ${String(error)}`);
  const cors = error.headers?.['Access-Control-Allow-Origin'];
  return `${error.status} ${error.code}${cors === undefined ? '' : ` cors=${cors}`}`;
}

beforeEach(() => {
  counted.length = 0;
  limitedAfter = Infinity;
});

describe('the tenant key (Federation API)', () => {
  const federation = route(TenantKey(), limited('federation'));

  it('valid: the key alone decides the tenant, and the request counts against its limit', async () => {
    const principal = await call({ tenantKey: 'tk_acme', slug: 'globex' }, federation);
    expect(principal.tenant).toBe(acme);
    expect(principal.actor).toEqual({
      type: 'tenant_key',
      id: 'key_1',
      name: 'backend',
      tenantId: acme.id,
    });
    expect(counted).toEqual(['federation:org_acme:6000']);
  });

  it("another tenant's key acts on that tenant, never on this one", async () => {
    const principal = await call({ tenantKey: 'tk_globex' }, federation);
    expect(principal.tenant).toBe(globex);
    expect(principal.actor).toMatchObject({ name: 'key_2' });
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['malformed', 'not a key'],
    ['revoked or unknown', 'tk_revoked'],
  ])('%s: 401 invalid_tenant_key, nothing counted', async (_, tenantKey) => {
    expect(await refused(call({ tenantKey }, federation))).toBe('401 invalid_tenant_key');
    expect(counted).toEqual([]);
  });
});

describe('the platform admin token and staff tokens (Admin API)', () => {
  const manager = route(Admin('manager'));
  const platform = route(Admin('platform'));
  const as = (token: string | undefined, slug: string | undefined, declared = manager) =>
    call({ authorization: token === undefined ? undefined : `Bearer ${token}`, slug }, declared);
  const PLATFORM = { type: 'platform', name: 'platform-admin' };

  it('valid admin token: any tenant by slug (unknown: 404), or none', async () => {
    expect(await as(ADMIN_TOKEN, 'globex')).toEqual({ actor: PLATFORM, tenant: globex });
    expect(await as(ADMIN_TOKEN, undefined, platform)).toEqual({ actor: PLATFORM });
    expect(await refused(as(ADMIN_TOKEN, 'nope'))).toBe('404 tenant_not_found');
  });

  it('valid staff token: its own tenant with its role or lower', async () => {
    const principal = await as('stf_owner', 'acme');
    expect(principal.tenant).toBe(acme);
    expect(principal.actor).toEqual({
      type: 'staff',
      id: 'stt_1',
      name: 'owner of acme',
      role: 'owner',
      tenantId: acme.id,
    });
    expect(await refused(as('stf_viewer', 'acme'))).toBe('403 forbidden');
  });

  it("another tenant's slug (or none, or a platform route) is 403, whether it exists or not", async () => {
    for (const slug of ['globex', 'no-such-tenant', undefined]) {
      expect(await refused(as('stf_owner', slug))).toBe('403 forbidden');
    }
    expect(await refused(as('stf_owner', 'acme', platform))).toBe('403 forbidden');
  });

  it.each([
    ['missing', undefined],
    ['not a bearer', `Basic ${ADMIN_TOKEN}`],
    ['a bearer without a token', 'Bearer '],
    ['two tokens', `Bearer ${ADMIN_TOKEN} x`],
    ['a wrong admin token', `Bearer ${ADMIN_TOKEN}x`],
    ['an unknown staff token', 'Bearer stf_unknown'],
    ['a tenant key', 'Bearer tk_acme'],
  ])('%s: 401 invalid_admin_token', async (_, authorization) => {
    const refusal = await refused(call({ authorization, slug: 'acme' }, manager));
    expect(refusal).toBe('401 invalid_admin_token');
  });

  it('a revoked staff token: 401 at once', async () => {
    staff.set(hash('stf_temp'), staffToken('stt_9', 'owner', acme));
    expect((await as('stf_temp', 'acme')).tenant).toBe(acme);
    revoke('stf_temp');
    expect(await refused(as('stf_temp', 'acme'))).toBe('401 invalid_admin_token');
  });
});

describe('the admin pages session cookie', () => {
  const noSession = '401 invalid_session';
  const signIn = async (credential: string) => (await access.adminSignIn(credential))!;

  it('valid: a staff session on its own organisation, with its CSRF token', async () => {
    const cookie = await signIn('stf_owner');
    const principal = await access.adminSession(cookie, { slug: 'acme', role: 'manager' });
    expect(principal).toMatchObject({ tenant: acme, actor: { type: 'staff', role: 'owner' } });
    expect(principal.csrf).toMatch(/^csrf_/);
    expect(await access.adminSession(cookie)).toMatchObject({ tenant: acme });
  });

  it('valid: a platform session on any organisation; an unknown one is 404', async () => {
    const cookie = await signIn(ADMIN_TOKEN);
    expect(await access.adminSession(cookie, { slug: 'globex', role: 'owner' })).toMatchObject({
      actor: { type: 'platform' },
      tenant: globex,
    });
    const unknown = access.adminSession(cookie, { slug: 'nope', role: 'viewer' });
    expect(await refused(unknown)).toBe('404 tenant_not_found');
  });

  it('sign-in takes only the admin token or a live staff token', async () => {
    for (const credential of ['', 'stf_unknown', 'tk_acme', `${ADMIN_TOKEN} `]) {
      expect(await access.adminSignIn(credential)).toBeUndefined();
    }
  });

  it('missing, malformed or unknown: no session', async () => {
    for (const cookie of [undefined, '', 'not-a-session']) {
      expect(await refused(access.adminSession(cookie))).toBe(noSession);
    }
  });

  it('expired, signed out, or its staff token revoked: no session', async () => {
    staff.set(hash('stf_leaving'), staffToken('stt_8', 'owner', acme));
    const revoked = await signIn('stf_leaving');
    revoke('stf_leaving');
    expect(await refused(access.adminSession(revoked))).toBe(noSession);

    const expired = await signIn('stf_owner');
    rows.get(hash(expired))!.expiresAt = new Date(Date.now() - 1);
    expect(await refused(access.adminSession(expired))).toBe(noSession);

    const signedOut = await signIn('stf_owner');
    await access.adminSignOut(signedOut);
    expect(await refused(access.adminSession(signedOut))).toBe(noSession);
  });

  it("another tenant's organisation, or a role too low: 403", async () => {
    const cookie = await signIn('stf_viewer');
    const other = access.adminSession(cookie, { slug: 'globex', role: 'viewer' });
    expect(await refused(other)).toBe('403 forbidden');
    const higher = access.adminSession(cookie, { slug: 'acme', role: 'manager' });
    expect(await refused(higher)).toBe('403 forbidden');
  });
});

describe("an organisation's page (the admin pages session as a route's credential)", () => {
  const page = route(OrgSession('manager'));
  const open = async (credential: string, more: Partial<Credentials> = {}) => {
    const session = (await access.adminSignIn(credential))!;
    const cookie = `svc_admin_login=x; svc_admin=${session}; lang=en`;
    return call({ slug: 'acme', cookie, method: 'GET', ...more }, page);
  };

  it("the session's principal, with the CSRF token its forms carry", async () => {
    const principal = await open('stf_owner');
    expect(principal).toMatchObject({ tenant: acme, actor: { type: 'staff', role: 'owner' } });
    expect(principal.csrf).toMatch(/^csrf_/);
  });

  it("no session cookie: 401 invalid_session; the Admin API's rules on the role", async () => {
    const none = call({ slug: 'acme', cookie: 'svc_admin=nope', method: 'GET' }, page);
    expect(await refused(none)).toBe('401 invalid_session');
    expect(await refused(call({ slug: 'acme', method: 'GET' }, page))).toBe('401 invalid_session');
    expect(await refused(open('stf_viewer'))).toBe('403 forbidden');
    expect(await refused(open(ADMIN_TOKEN, { slug: 'nope' }))).toBe('404 tenant_not_found');
  });

  it("any method but GET carries the session's _csrf, or 403", async () => {
    const session = (await access.adminSignIn('stf_owner'))!;
    const { csrf } = await access.adminSession(session);
    const post = (more: Partial<Credentials>) =>
      call({ slug: 'acme', cookie: `svc_admin=${session}`, method: 'POST', ...more }, page);
    expect((await post({ csrf })).tenant).toBe(acme);
    for (const wrong of [undefined, '', `${csrf}x`, 'csrf_1']) {
      expect(await refused(post({ csrf: wrong }))).toBe('403 forbidden');
    }
    expect(await refused(post({ method: 'HEAD' }))).toBe('403 forbidden');
  });
});

describe('the embed Origin gate (`?tenant=` + Origin)', () => {
  const reads = route(EmbedOrigin(), limited('embed'));
  const leadForm = route(EmbedOrigin({ allowOwnOrigin: true }), limited('embed', 'lead_form'));
  const ACME = 'https://acme.example';

  it('valid: the tenant, its CORS headers, and the per-IP-and-tenant limit counted', async () => {
    expect(await call({ tenant: 'acme', origin: ACME }, reads)).toEqual({
      tenant: acme,
      memberId: undefined,
      headers: { 'Access-Control-Allow-Origin': ACME, Vary: 'Origin' },
    });
    expect(counted).toEqual(['embed:org_acme:203.0.113.9:600']);
  });

  it("another tenant's origin, a missing or `null` Origin: 403 with an empty CORS header", async () => {
    for (const origin of ['https://globex.example', undefined, 'null', `${ACME}.evil`]) {
      const refusal = await refused(call({ tenant: 'acme', origin }, reads));
      expect(refusal).toBe('403 origin_not_allowed cors=');
    }
    expect(counted).toEqual([]);
  });

  it('missing or malformed tenant: 400; unknown: 404', async () => {
    for (const tenant of [undefined, '', ['acme', 'acme'], 7]) {
      expect(await refused(call({ tenant, origin: ACME }, reads))).toBe('400 validation_failed');
    }
    expect(await refused(call({ tenant: 'nope', origin: ACME }, reads))).toBe(
      '404 tenant_not_found',
    );
  });

  it("the service's own pages: only where the route allows them; same-origin without Origin", async () => {
    expect(await refused(call({ tenant: 'acme', origin: BASE }, reads))).toMatch(/^403 /);
    expect((await call({ tenant: 'acme', origin: BASE }, leadForm)).tenant).toBe(acme);
    expect((await call({ tenant: 'acme', secFetchSite: 'same-origin' }, leadForm)).tenant).toBe(
      acme,
    );
    const crossSite = call({ tenant: 'acme', secFetchSite: 'cross-site' }, leadForm);
    expect(await refused(crossSite)).toMatch(/^403 /);
    const both = ['embed:org_acme:203.0.113.9:600', 'lead_form:203.0.113.9:20'];
    expect(counted).toEqual([...both, ...both]);
  });

  it('a rate-limited request: 429 with Retry-After and its CORS header', async () => {
    limitedAfter = 0;
    const error = await call({ tenant: 'acme', origin: ACME }, reads).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as DomainError).headers).toEqual({
      'Access-Control-Allow-Origin': ACME,
      'Retry-After': '42',
    });
  });
});

describe('the embed bearer JWT (popup)', () => {
  const action = route(EmbedBearer(), limited('embed'));
  const withBearer = (authorization: string | undefined) =>
    call({ tenant: 'acme', origin: 'https://acme.example', authorization }, action);
  const denied = (code: string, status = 401) => `${status} ${code} cors=https://acme.example`;
  const issued = (tenantId: string) => `Bearer ${access.issueEmbedToken(tenantId, 'mbr_1').token}`;

  it('valid: the member it was issued to', async () => {
    const principal = await withBearer(issued(acme.id));
    expect(principal).toMatchObject({ tenant: acme, memberId: 'mbr_1' });
  });

  it('missing or malformed: 401 invalid_token, with CORS so the page can read it', async () => {
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const unsigned = `${part({ alg: 'none', typ: 'JWT' })}.${part({ sub: 'mbr_1', tid: acme.id })}.`;
    for (const authorization of [undefined, 'Bearer', 'Bearer x.y.z', `Bearer ${unsigned}`]) {
      expect(await refused(withBearer(authorization))).toBe(denied('invalid_token'));
    }
  });

  it('signed with another key: 401 invalid_token', async () => {
    const secret = 'another-secret-of-at-least-thirty-two-characters';
    const other = new EmbedTokenService(new JwtService({}), { ...config, jwtSecret: secret });
    const { token } = other.issue(acme.id, 'mbr_1');
    expect(await refused(withBearer(`Bearer ${token}`))).toBe(denied('invalid_token'));
  });

  it('expired: 401 token_expired', async () => {
    jest.useFakeTimers({ now: Date.now() - 2 * 3600_000 });
    const old = issued(acme.id);
    jest.useRealTimers();
    expect(await refused(withBearer(old))).toBe(denied('token_expired'));
  });

  it("another tenant's token: 403 tenant_mismatch", async () => {
    expect(await refused(withBearer(issued(globex.id)))).toBe(denied('tenant_mismatch', 403));
  });

  it('counts the limit before it checks the token: a refused request still costs', async () => {
    await refused(withBearer('Bearer nonsense'));
    expect(counted).toEqual(['embed:org_acme:203.0.113.9:600']);
  });
});

describe('route declarations', () => {
  it('a route without a policy is refused: default deny', async () => {
    expect(await refused(call({}, route()))).toBe('403 forbidden');
  });

  it('public routes count only their own limits, per IP', async () => {
    expect(await call({}, route(Public()))).toEqual({});
    await call({}, route(Public(), limited('signin_code')));
    expect(counted).toEqual(['signin_code:203.0.113.9:30']);
  });
});
