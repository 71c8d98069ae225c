import { randomBytes, randomInt } from 'node:crypto';
import { EmbedTokenService } from '../../../src/access/embed-token.service';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

/**
 * docs/security.md: which address the per-IP rate limits count. With the default
 * configuration nobody's X-Forwarded-For is trusted, so a client (here on loopback, the same host)
 * cannot pick its address with it; TRUST_PROXY names the proxies whose X-Forwarded-For is.
 * Measured through the lead form's limit (docs/operations.md: 20 per minute per IP).
 */
const LEAD_FORM_PER_MINUTE = 20;

/** The requests of one test must fall within one minute: start early in a minute. */
async function startEarlyInAMinute(latestSecond: number): Promise<void> {
  const second = new Date().getSeconds();
  if (second > latestSecond) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
}

/** A client address no other request of this run has named (198.18.0.0/15, none of them trusted). */
let lastIp = randomInt(0, 60_000);
const anIp = () => {
  lastIp += 1;
  return `198.${18 + ((lastIp >> 16) & 1)}.${(lastIp >> 8) & 255}.${lastIp & 255}`;
};

describe.each([
  ['unset (the default)', undefined, false],
  ['false', 'false', false],
  ['loopback', 'loopback', true],
  ['a hop count (1)', '1', true],
  ['a CIDR list naming loopback', '10.0.0.0/8,127.0.0.0/8,::1', true],
])('TRUST_PROXY %s', (_label, trustProxy, trusted) => {
  let t: TestApp;
  let tenant: TestTenant;
  let origin: string;
  let ref: string;

  beforeAll(async () => {
    t = await createTestApp({
      RATE_LIMITS: 'on',
      ...(trustProxy === undefined ? {} : { TRUST_PROXY: trustProxy }),
      QUEUE_PREFIX: `${process.env.TEST_QUEUE_PREFIX}:ip${randomBytes(3).toString('hex')}`,
      PROCESS_ROLE: 'api',
    });
    tenant = await createTenant(t);
    origin = `https://${tenant.slug}.example`;
    const member = await upsertUser(t, tenant.key, { full_name: 'Limited' });
    const token = t.app.get(EmbedTokenService).issue(tenant.orgId, member.memberId).token;
    const link = await t
      .http()
      .post(`/embed/v1/data/referral-link?tenant=${tenant.slug}`)
      .set('Origin', origin)
      .set('Authorization', `Bearer ${token}`)
      .send({ target_type: 'offer', target_id: 'ip' });
    expect(link.status).toBe(200);
    ref = link.body.signed_ref;
  });
  afterAll(() => t?.close());

  const submit = (n: number, forwardedFor?: string) => {
    const req = t.http().post(`/embed/v1/data/leads?tenant=${tenant.slug}`).set('Origin', origin);
    if (forwardedFor !== undefined) req.set('X-Forwarded-For', forwardedFor);
    return req.send({
      ref,
      contact: { name: `Lead ${n}`, phone: `+7901${String(n).padStart(7, '0')}` },
    });
  };

  it(`${trusted ? 'takes' : 'ignores'} X-Forwarded-For for the rate limits`, async () => {
    await startEarlyInAMinute(45);
    // Twenty submissions, each naming another address.
    const statuses: number[] = [];
    for (let n = 1; n <= LEAD_FORM_PER_MINUTE; n++) statuses.push((await submit(n, anIp())).status);
    expect(statuses).toEqual(Array(LEAD_FORM_PER_MINUTE).fill(200));
    // One more, naming yet another address (and a spoofed chain in front of it).
    const next = await submit(21, `10.9.8.7, ${anIp()}`);
    if (trusted) {
      // Each address had its own count: nothing is limited.
      expect(next.status).toBe(200);
    } else {
      // All were the one loopback peer: its 21st submission in the minute is refused.
      expect(next.status).toBe(429);
      expect(next.body.code).toBe('rate_limited');
      expect(Number(next.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect((await submit(22)).status).toBe(429);
    }
  }, 90_000);

  if (trusted) {
    it('counts the forwarded address: its own 21st submission is refused, another one is not', async () => {
      await startEarlyInAMinute(45);
      const ip = anIp();
      for (let n = 1; n <= LEAD_FORM_PER_MINUTE; n++)
        expect((await submit(100 + n, ip)).status).toBe(200);
      const limited = await submit(121, ip);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // The client named by the trusted proxy is the right-most untrusted address.
      expect((await submit(122, `${anIp()}, ${ip}`)).status).toBe(429);
      expect((await submit(123, `${ip}, ${anIp()}`)).status).toBe(200);
    }, 90_000);
  }
});

/**
 * The popup's sign-in steps have per-IP limits besides the per-email ones (docs/security.md): 20 code
 * requests and 30 code tries per IP in 10 minutes, answered with the popup's own 429 page.
 */
describe('popup sign-in steps: per-IP limits', () => {
  let t: TestApp;
  let tenant: TestTenant;
  const params = (state: string) => ({
    client_id: tenant.slug,
    response_type: 'code',
    scope: 'profile:read',
    state,
    popup: '1',
  });

  beforeAll(async () => {
    t = await createTestApp({
      RATE_LIMITS: 'on',
      TRUST_PROXY: 'loopback', // one client address per test, named in X-Forwarded-For
      QUEUE_PREFIX: `${process.env.TEST_QUEUE_PREFIX}:pop${randomBytes(3).toString('hex')}`,
      PROCESS_ROLE: 'api',
    });
    tenant = await createTenant(t);
  });
  afterAll(() => t?.close());

  /** The counts live in 10-minute windows: do not start a test in a window's last seconds. */
  const startEarlyInAWindow = async () => {
    const intoWindow = (Date.now() / 1000) % 600;
    if (intoWindow > 580) await new Promise((r) => setTimeout(r, (601 - intoWindow) * 1000));
  };

  /** Posts a step's form as the popup page would: with the form page's cookie and _csrf, if any. */
  async function poster(ip: string) {
    const query = new URLSearchParams(params('limits')).toString();
    const page = await t.http().get(`/oauth/authorize?${query}`).set('X-Forwarded-For', ip);
    expect(page.status).toBe(200);
    const cookie = ([] as string[])
      .concat(page.headers['set-cookie'] ?? [])
      .map((c) => c.split(';')[0])
      .join('; ');
    const csrf = /name="_csrf" value="([^"]*)"/.exec(page.text)?.[1];
    return (step: 'email' | 'code', fields: Record<string, string>, from = ip) =>
      t
        .http()
        .post(`/oauth/authorize/${step}`)
        .set('X-Forwarded-For', from)
        .set('Origin', new URL(t.config.publicBaseUrl).origin)
        .set('Cookie', cookie)
        .type('form')
        .send({ ...params('limits'), ...fields, ...(csrf === undefined ? {} : { _csrf: csrf }) });
  }

  function expectLimitedPage(res: Awaited<ReturnType<Awaited<ReturnType<typeof poster>>>>) {
    expect(res.status).toBe(429);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['cross-origin-opener-policy']).toBeUndefined(); // the popup keeps its opener
    expect(res.text).toContain('Too many sign-in attempts');
    const retryAfter = Number(res.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(600);
  }

  it('the email step: the 21st code request from one IP in 10 minutes is a 429 page with Retry-After', async () => {
    await startEarlyInAWindow();
    const ip = anIp();
    const post = await poster(ip);
    const email = (n: number) => ({
      email: `nobody-${n}-${randomBytes(3).toString('hex')}@x.example`,
    });
    for (let n = 1; n <= 20; n++) expect((await post('email', email(n))).status).toBe(200);
    expectLimitedPage(await post('email', email(21)));
    // Per IP: another client is not limited.
    expect((await post('email', email(22), anIp())).status).toBe(200);
  }, 60_000);

  it('the code step: the 31st code try from one IP in 10 minutes is a 429 page with Retry-After', async () => {
    await startEarlyInAWindow();
    const ip = anIp();
    const post = await poster(ip);
    // Tries spread over many emails: the per-email limits alone would never stop them.
    const attempt = (n: number) => ({
      email: `nobody-${n}-${randomBytes(3).toString('hex')}@x.example`,
      code: String(100000 + n),
    });
    for (let n = 1; n <= 30; n++) expect((await post('code', attempt(n))).status).toBe(200);
    expectLimitedPage(await post('code', attempt(31)));
    expect((await post('code', attempt(32), anIp())).status).toBe(200);
  }, 60_000);
});
