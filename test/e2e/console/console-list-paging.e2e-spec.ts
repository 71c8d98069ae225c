import { createLead } from '../../factories/money.factory';
import { createStaffToken, createTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { createTestApp, type TestApp } from '../../utils/create-test-app';
import { orgSignIn } from '../../utils/pages-http';

/**
 * A console list opened without `?page=` shows its first 25 rows, as `?page=1` does: it showed
 * 20 (the API's default page size) while its pager's page 2 began at row 26, so rows 21 to 25
 * were on no page.
 */
describe('console list paging', () => {
  let t: TestApp;
  let slug: string;
  let cookie: string;
  const rows = (html: string) => html.match(/data-lead="/g)?.length ?? 0;

  beforeAll(async () => {
    t = await createTestApp();
    const org = await createTenant(t);
    slug = org.slug;
    const partner = await upsertUser(t, org.key, { external_id: 'paging-1' });
    for (let i = 0; i < 27; i++) await createLead(t, org.key, partner.serviceUserId);
    cookie = await orgSignIn(() => t.http(), await createStaffToken(t, slug, 'viewer'));
  });
  afterAll(() => t.close());

  it('shows the same 25 rows with and without ?page=1, and the last 2 on page 2', async () => {
    const get = async (query: string) => {
      const res = await t.http().get(`/org/${slug}/leads${query}`).set('Cookie', cookie);
      expect(res.status).toBe(200);
      return res.text;
    };
    const [first, page1, page2] = await Promise.all([get(''), get('?page=1'), get('?page=2')]);
    expect(rows(first)).toBe(25);
    expect(first.match(/data-lead="[^"]+"/g)).toEqual(page1.match(/data-lead="[^"]+"/g));
    expect(rows(page2)).toBe(2);
  });
});
