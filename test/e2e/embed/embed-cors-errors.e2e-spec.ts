import { EmbedTokenService } from '../../../src/access/embed-token.service';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

/**
 * docs/embedding.md: every answer on an Embed path to an allowed Origin carries
 * `Access-Control-Allow-Origin` and `Vary: Origin`, errors included, so the page's script can
 * read the code; errors raised before the origin check (body parsing, the request target) too.
 */
describe('CORS on every Embed error', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let origin: string;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    origin = `https://${tenant.slug}.example`;
    const member = await upsertUser(t, tenant.key);
    token = t.app.get(EmbedTokenService).issue(tenant.orgId, member.memberId).token;
  });
  afterAll(() => t.close());

  const post = (from: string) =>
    t
      .http()
      .post(`/embed/v1/data/referral-link?tenant=${tenant.slug}`)
      .set('Origin', from)
      .set('Authorization', `Bearer ${token}`);

  const cases: [string, number, string, (from: string) => ReturnType<typeof post>][] = [
    [
      'a body that is not JSON (415)',
      415,
      'unsupported_media_type',
      (from) => post(from).set('Content-Type', 'text/plain').send('hello'),
    ],
    [
      'malformed JSON (400 invalid_json)',
      400,
      'invalid_json',
      (from) => post(from).set('Content-Type', 'application/json').send('{"target_type":'),
    ],
    [
      'a body over 64 KiB (413)',
      413,
      'payload_too_large',
      (from) =>
        post(from)
          .set('Content-Type', 'application/json')
          .send(JSON.stringify({ pad: 'x'.repeat(70_000) })),
    ],
    [
      'a validation failure (400)',
      400,
      'validation_failed',
      (from) => post(from).send({ target_type: 'nonsense' }),
    ],
    [
      'a NUL in the path (400)',
      400,
      'validation_failed',
      (from) =>
        t.http().get(`/embed/v1/data/cabinet/mbr_x%00?tenant=${tenant.slug}`).set('Origin', from),
    ],
  ];

  it.each(cases)(
    '%s: the allowed Origin is echoed with Vary: Origin',
    async (_, status, code, send) => {
      const res = await send(origin);
      expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(res.headers.vary).toMatch(/\bOrigin\b/);
    },
  );

  it.each(cases)('%s: another Origin gets no CORS grant', async (...[, , , send]) => {
    const res = await send('https://evil.example');
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.headers['access-control-allow-origin'] ?? '').toBe('');
    expect(res.headers.vary).toMatch(/\bOrigin\b/);
  });
});
