import { createLead, registerConversion } from '../../factories/money.factory';
import { createStaffToken, createTenant, TestTenant } from '../../factories/tenants.factory';
import { createChain } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { orgSignIn } from '../../utils/pages-http';

describe('admin pages: smoke', () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
  });
  afterAll(() => t.close());

  it('signs a manager in, shows the pages and approves a bonus through a plain form', async () => {
    const [, referrer] = await createChain(t, tenant.key, 2);
    const leadId = await createLead(t, tenant.key, referrer.serviceUserId);
    const conversion = await registerConversion(t, tenant.key, {
      lead_id: leadId,
      amount_kopecks: 10_000,
      external_order_id: 'o-1',
    });
    const bonusId = conversion.cascaded_bonuses[0].bonus_id;
    const token = await createStaffToken(t, tenant.slug, 'manager');

    const agent = t.http();
    // The sign-in form first: its post needs the form's pre-session token (login CSRF).
    const cookie = await orgSignIn(t.http, token);
    const page = await agent.get(`/org/${tenant.slug}/bonuses`).set('Cookie', cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain(bonusId);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1];

    const forged = await t
      .http()
      .post(`/org/${tenant.slug}/bonuses/${bonusId}/approve`)
      .set('Cookie', cookie)
      .type('form')
      .send({ _csrf: 'wrong' });
    expect(forged.status).toBe(403);
    const approve = await t
      .http()
      .post(`/org/${tenant.slug}/bonuses/${bonusId}/approve`)
      .set('Cookie', cookie)
      .type('form')
      .send({ _csrf: csrf });
    expect(approve.status).toBe(303);
    const [{ status }] = await t.db.query(
      `SELECT status FROM bonuses WHERE tenant_id = $1 AND id = $2`,
      [tenant.orgId, bonusId],
    );
    expect(status).toBe('approved');

    for (const path of ['integration', 'audit-log']) {
      const res = await t.http().get(`/org/${tenant.slug}/${path}`).set('Cookie', cookie);
      expect(res.status).toBe(200);
    }
    const keys = await t
      .http()
      .post(`/org/${tenant.slug}/integration/keys`)
      .set('Cookie', cookie)
      .type('form')
      .send({ _csrf: csrf, name: 'x' });
    expect(keys.status).toBe(403);
  });
});
