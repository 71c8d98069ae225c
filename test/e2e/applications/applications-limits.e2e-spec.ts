import { randomBytes, randomInt } from 'node:crypto';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { adminApi } from '../../utils/api-client';
import { createTestApp, type TestApp } from '../../utils/create-test-app';
import { cookiePairs, hiddenField } from '../../utils/pages-http';

/**
 * docs/partners.md, "Applications": the Embed endpoint and the hosted join form share one limit,
 * 20 applications a minute per client IP (`application_form`), answered 429 with `Retry-After`
 * (a problem document on the API, a page on the form). Counted per address: with TRUST_PROXY the
 * forwarded one, so every address here is new to the run.
 */
const PER_MINUTE = 20;

let lastIp = randomInt(0, 60_000);
const anIp = () => {
  lastIp += 1;
  return `198.${18 + ((lastIp >> 16) & 1)}.${(lastIp >> 8) & 255}.${lastIp & 255}`;
};

/** The requests of one test must fall within one window (a UTC minute): start early in one. */
async function startEarlyInAMinute(latestSecond: number): Promise<void> {
  const second = new Date().getSeconds();
  if (second > latestSecond) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
}

describe('partner applications: the per-IP limit', () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await createTestApp({
      RATE_LIMITS: 'on',
      TRUST_PROXY: 'loopback',
      QUEUE_PREFIX: `${process.env.TEST_QUEUE_PREFIX}:apl${randomBytes(3).toString('hex')}`,
      PROCESS_ROLE: 'api',
    });
    tenant = await createTenant(t);
    const manager = await createStaffToken(t, tenant.slug, 'manager');
    const [row] = await t.db.query(
      `SELECT id FROM groups WHERE tenant_id = $1 AND slug = 'default'`,
      [tenant.orgId],
    );
    await adminApi(t, manager).raw('patch', `/admin/v1/tenants/${tenant.slug}/groups/${row.id}`, {
      signup: { enabled: true },
    });
  });
  afterAll(() => t?.close());

  const submit = (n: number, ip: string) =>
    t
      .http()
      .post(`/embed/v1/applications?tenant=${tenant.slug}`)
      .set('Origin', `https://${tenant.slug}.example`)
      .set('X-Forwarded-For', ip)
      .send({ email: `limit-${n}@example.com`, full_name: `L ${n}`, answers: {} });

  it('one address gets 20 a minute across the API and the form; another address is not held', async () => {
    await startEarlyInAMinute(45);
    const ip = anIp();
    const statuses: number[] = [];
    for (let n = 0; n < PER_MINUTE; n++) statuses.push((await submit(n, ip)).status);
    expect(statuses).toEqual(Array(PER_MINUTE).fill(201));
    const limited = await submit(99, ip);
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    // The hosted form counts the same limit for the same address: its page says so.
    const form = await t.http().get(`/p/${tenant.slug}/join`).set('X-Forwarded-For', ip);
    expect(form.status).toBe(200);
    const page = await t
      .http()
      .post(`/p/${tenant.slug}/join`)
      .set('X-Forwarded-For', ip)
      .set('Cookie', cookiePairs(form).join('; '))
      .type('form')
      .send({ full_name: 'F', email: 'form@example.com', _csrf: hiddenField(form.text, '_csrf') });
    expect(page.status).toBe(429);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(Number(page.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    expect((await submit(100, anIp())).status).toBe(201);
  }, 60_000);
});
