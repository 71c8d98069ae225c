import { randomBytes } from 'node:crypto';
import { EmbedTokenService } from '../../src/common/auth/embed-token.service';
import { createTenant, TestTenant } from '../factories/tenants.factory';
import { upsertUser } from '../factories/users.factory';
import { createTestApp, TestApp } from '../utils/create-test-app';

/**
 * Issue #15, finding 9: which address the per-IP rate limits count. With the default
 * configuration nobody's X-Forwarded-For is trusted, so a client (here on loopback, the same host)
 * cannot pick its address with it; TRUST_PROXY names the proxies whose X-Forwarded-For is.
 * Measured through the lead form's limit (SPEC 7: 20 per minute per IP).
 */
const LEAD_FORM_PER_MINUTE = 20;

/** The requests of one test must fall within one minute: start early in a minute. */
async function startEarlyInAMinute(latestSecond: number): Promise<void> {
  const second = new Date().getSeconds();
  if (second > latestSecond) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
}

const anIp = () => `198.51.100.${1 + Math.floor(Math.random() * 250)}`;

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
