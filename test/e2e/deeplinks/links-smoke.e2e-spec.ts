import { EmbedTokenService } from '../../../src/access/embed-token.service';
import { ClickCounter } from '../../../src/deeplinks/click-counter';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { unstampRef } from '../../utils/click-refs';

describe('popup and links: smoke', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let origin: string;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    origin = `https://${tenant.slug}.example`;
  });
  afterAll(() => t.close());

  it('renders the popup, creates an idempotent link and follows it with a recorded click', async () => {
    const bad = await t.http().get('/oauth/authorize?client_id=nope');
    expect(bad.status).toBe(400);
    expect(bad.headers['content-type']).toMatch(/text\/html/);
    const page = await t
      .http()
      .get(
        `/oauth/authorize?client_id=${tenant.slug}&response_type=code&scope=profile:read&state=s1&popup=1`,
      );
    expect(page.status).toBe(200);
    expect(page.text).toContain('input id="email" type="email"');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['cross-origin-opener-policy']).toBeUndefined();

    const member = await upsertUser(t, tenant.key, { email: 'p@example.com' });
    const { token } = t.app.get(EmbedTokenService).issue(tenant.orgId, member.memberId);
    const create = () =>
      t
        .http()
        .post(`/embed/v1/data/referral-link?tenant=${tenant.slug}`)
        .set('Origin', origin)
        .set('Authorization', `Bearer ${token}`)
        .send({ target_type: 'website', target_id: `${origin}/catalog?x=1`, promo_code: 'SPRING' });
    const first = await create();
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      reused: false,
      code: expect.stringMatching(/^[A-Za-z0-9]{8}$/),
    });
    const second = await create();
    expect(second.body).toEqual({ ...first.body, reused: true });

    const follow = await t.http().get(`/s/${first.body.code}`);
    expect(follow.status).toBe(302);
    const location = new URL(follow.headers['location']);
    // The click signs its time into the ref (docs/fraud.md); otherwise it is the link's own.
    expect(unstampRef(location.searchParams.get('ref')!)).toBe(first.body.signed_ref);
    await t.app.get(ClickCounter).flush(); // clicks are written in batches
    const cabinet = await t
      .http()
      .get(`/embed/v1/data/cabinet/${member.memberId}?tenant=${tenant.slug}`)
      .set('Origin', origin);
    expect(cabinet.body.kpi.clicks_count).toBe(1);

    const lead = await t
      .http()
      .post(`/embed/v1/data/leads?tenant=${tenant.slug}`)
      .set('Origin', origin)
      .send({ ref: first.body.signed_ref, contact: { name: 'Visitor', email: 'v@example.org' } });
    expect(lead.status).toBe(200);
    const tampered = await t
      .http()
      .post(`/embed/v1/data/leads?tenant=${tenant.slug}`)
      .set('Origin', origin)
      .send({
        ref: first.body.signed_ref.slice(0, -2) + 'xx',
        contact: { name: 'V', email: 'v@example.org' },
      });
    expect(tampered.status).toBe(422);
    expect(tampered.body.code).toBe('invalid_ref');
  });
});
