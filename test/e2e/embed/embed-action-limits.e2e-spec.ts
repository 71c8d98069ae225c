/**
 * The Embed Action API under other settings: SHORT_LINK_BASE_URL, and the rate limits of the lead
 * form and the referral-link call (RATE_LIMITS=on; docs/operations.md).
 */
import { randomBytes } from 'node:crypto';
import { EmbedTokenService } from '../../../src/access/embed-token.service';
import { createTenant, type TestTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { embedApi } from '../../utils/api-client';
import { createTestApp, type TestApp } from '../../utils/create-test-app';
import { expectProblem } from '../../utils/embed-action-suite';
describe('embed action API: SHORT_LINK_BASE_URL', () => {
  let t: TestApp;
  afterAll(() => t?.close());

  it('builds short_url as SHORT_LINK_BASE_URL/<code>', async () => {
    t = await createTestApp({ SHORT_LINK_BASE_URL: 'https://go.example/r/' });
    const tenant = await createTenant(t);
    const member = await upsertUser(t, tenant.key, { full_name: 'Short Base' });
    const jwt = t.app.get(EmbedTokenService).issue(tenant.orgId, member.memberId).token;
    const res = await embedApi(t, `https://${tenant.slug}.example`, tenant.slug).createReferralLink(
      jwt,
      { target_type: 'offer', target_id: 'base-url' },
    );
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
    // A page must be able to read the refusal (docs/embedding.md): CORS on the 429 too.
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

  it('Embed Action API: the 601st call from one IP to one tenant within a minute is 429 (docs/operations.md: 600/min per IP and tenant)', async () => {
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
