import { createLead, registerConversion } from '../../factories/money.factory';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { createChain } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

describe('embed data: smoke', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let origin: string;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    origin = `https://${tenant.slug}.example`;
  });
  afterAll(() => t.close());

  it('serves the cabinet and the tree with counters, CORS headers and formatted money', async () => {
    const [root, child, grandchild] = await createChain(t, tenant.key, 3);
    const leadId = await createLead(t, tenant.key, child.serviceUserId);
    await registerConversion(t, tenant.key, {
      lead_id: leadId,
      amount_kopecks: 123_456,
      external_order_id: 'e-1',
    });

    const cabinet = await t
      .http()
      .get(`/embed/v1/data/cabinet/${child.memberId}?tenant=${tenant.slug}`)
      .set('Origin', origin);
    expect(cabinet.status).toBe(200);
    expect(cabinet.headers['access-control-allow-origin']).toBe(origin);
    expect(cabinet.headers['vary']).toMatch(/Origin/);
    expect(cabinet.body.kpi).toEqual({
      leads_count: 1,
      cleared_kopecks: 0,
      pending_kopecks: 12_345,
      cleared_formatted: '0,00\u00a0₽',
      pending_formatted: '123,45\u00a0₽',
      clicks_count: 0,
    });

    const tree = await t
      .http()
      .get(`/embed/v1/data/referral-tree/${root.memberId}?tenant=${tenant.slug}&max_depth=1`)
      .set('Origin', origin);
    expect(tree.status).toBe(200);
    expect(tree.body).toMatchObject({ total_downline: 2, hit_depth_cap: true, max_depth: 1 });
    expect(tree.body.levels.map((l: unknown[]) => l.length)).toEqual([1, 1]);
    expect(grandchild.memberId).toMatch(/^mbr_/);

    const refused = await t
      .http()
      .get(`/embed/v1/data/cabinet/${child.memberId}?tenant=${tenant.slug}`)
      .set('Origin', 'https://evil.example');
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('origin_not_allowed');
    expect(refused.headers['access-control-allow-origin']).toBe('');

    const preflight = await t
      .http()
      .options(`/embed/v1/data/cabinet/${child.memberId}?tenant=${tenant.slug}`)
      .set('Origin', origin)
      .set('Access-Control-Request-Method', 'GET');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(origin);
    expect(preflight.headers['access-control-max-age']).toBe('600');
  });
});
