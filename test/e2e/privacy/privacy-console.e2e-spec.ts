import { federation } from '../../factories/fraud.factory';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { upsertUser, type UpsertedMember } from '../../factories/users.factory';
import { createTestApp, type TestApp } from '../../utils/create-test-app';
import { orgCsrf, orgSignIn } from '../../utils/pages-http';

/**
 * docs/privacy.md, "In the console": the owner's actions on a partner's page and the leads page,
 * each confirmed by typing ERASE; managers neither see nor may post them; the audit entries hold
 * no erased value.
 */
jest.setTimeout(60_000);

let t: TestApp;
let tenant: TestTenant;
let partner: UpsertedMember;
let owner: { cookie: string; csrf: string };
let manager: { cookie: string; csrf: string };

const session = async (role: 'owner' | 'manager') => {
  const cookie = await orgSignIn(t.http, await createStaffToken(t, tenant.slug, role));
  return { cookie, csrf: await orgCsrf(t.http, cookie, tenant.slug) };
};
const post = (as: { cookie: string; csrf: string }, path: string, form: Record<string, string>) =>
  t
    .http()
    .post(`/org/${tenant.slug}/${path}`)
    .set('Cookie', as.cookie)
    .set('Origin', 'http://localhost:3000')
    .type('form')
    .send({ _csrf: as.csrf, ...form });
const page = (as: { cookie: string }, path: string) =>
  t.http().get(`/org/${tenant.slug}/${path}`).set('Cookie', as.cookie);
const notice = (res: { headers: Record<string, string> }, key = 'notice') =>
  new URL(res.headers.location, 'http://x').searchParams.get(key);

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t, { locale: 'en-US' });
  partner = await upsertUser(t, tenant.key, {
    full_name: 'Greta Privacy',
    email: 'greta.privacy@example.org',
  });
  owner = await session('owner');
  manager = await session('manager');
});
afterAll(() => t.close());

it("downloads the partner's personal data and erases them, owner only, after the typed confirmation", async () => {
  const shownToManager = await page(manager, `partners/${partner.memberId}`);
  expect(shownToManager.text).not.toContain('data-action="erase"');
  const shownToOwner = await page(owner, `partners/${partner.memberId}`);
  expect(shownToOwner.text).toContain('data-action="erase"');

  const file = await page(owner, `partners/${partner.memberId}/personal-data.json`);
  expect(file.status).toBe(200);
  expect(file.headers['content-disposition']).toContain('attachment');
  expect(JSON.parse(file.text).profile).toMatchObject({ email: 'greta.privacy@example.org' });
  expect((await page(manager, `partners/${partner.memberId}/personal-data.json`)).status).toBe(403);

  expect(
    (await post(manager, `partners/${partner.memberId}/erase`, { confirm: 'ERASE' })).status,
  ).toBe(403);
  const unconfirmed = await post(owner, `partners/${partner.memberId}/erase`, { confirm: 'yes' });
  expect(unconfirmed.status).toBe(303);
  expect(notice(unconfirmed, 'error')).toContain('Type ERASE');
  const done = await post(owner, `partners/${partner.memberId}/erase`, { confirm: 'ERASE' });
  expect(done.status).toBe(303);
  expect(notice(done)).toBe('Personal data erased');
  const after = await page(owner, `partners/${partner.memberId}`);
  expect(after.text).toContain('data-erased="true"');
  expect(after.text).not.toContain('greta.privacy@example.org');
  expect(after.text).not.toContain('data-action="activate"');

  const audit = await t.db.query(
    `SELECT action, details::text AS details FROM audit_log WHERE tenant_id = $1 AND action = 'user.erased'`,
    [tenant.orgId],
  );
  expect(audit).toEqual([{ action: 'user.erased', details: '{}' }]);
});

it('erases a customer from the leads page, owner only, after the typed confirmation', async () => {
  const other = await upsertUser(t, tenant.key);
  const lead = await federation(t, tenant, '/federation/v1/leads', {
    referrer_user_id: other.serviceUserId,
    contact: { name: 'Hana Customer', email: 'hana.customer@example.net' },
  });
  expect(lead.status).toBe(200);
  expect((await page(manager, 'leads')).text).not.toContain('data-action="erase-customer"');
  expect((await page(owner, 'leads')).text).toContain('data-action="erase-customer"');
  expect(
    (
      await post(manager, 'leads/erase-customer', {
        email: 'hana.customer@example.net',
        confirm: 'ERASE',
      })
    ).status,
  ).toBe(403);
  const none = await post(owner, 'leads/erase-customer', {
    email: '',
    phone: '',
    confirm: 'ERASE',
  });
  expect(notice(none, 'error')).toContain('at least one');
  const done = await post(owner, 'leads/erase-customer', {
    email: 'hana.customer@example.net',
    phone: '',
    external_id: '',
    confirm: 'ERASE',
  });
  expect(done.status).toBe(303);
  expect(notice(done)).toBe('Customer erased: 1 leads, 0 conversions.');
  const leads = await page(owner, 'leads');
  expect(leads.text).not.toContain('hana.customer@example.net');
  const [audit] = await t.db.query(
    `SELECT details FROM audit_log WHERE tenant_id = $1 AND action = 'customers.erased'`,
    [tenant.orgId],
  );
  expect(audit.details).toEqual({ leads: 1, conversions: 0 });
});
