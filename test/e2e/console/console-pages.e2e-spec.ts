import { createLead, registerConversion } from '../../factories/money.factory';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { createChain, upsertUser, type UpsertedMember } from '../../factories/users.factory';
import { createTestApp, type TestApp } from '../../utils/create-test-app';
import { cookiePairs, hiddenField, orgCsrf, orgSignIn } from '../../utils/pages-http';

/**
 * The console's pages over plain HTTP (docs/console.md): the overview shows the stats API's numbers, the
 * partners list and page show their API twins' data, the CSV is the list's search, the language
 * follows the tenant and `?lang=` for the session, and the roles and CSRF rules of the admin pages
 * hold: a viewer changes nothing, another tenant's staff sees nothing, a form without its token
 * or with another session's token is refused and changes nothing.
 */

describe('console pages', () => {
  let t: TestApp;
  let org: TestTenant;
  let chain: UpsertedMember[];
  let special: UpsertedMember;
  const cookies = {} as Record<'viewer' | 'manager' | 'stranger', string>;
  const tokens = {} as Record<'viewer' | 'manager', string>;

  const page = (path: string, cookie: string) => t.http().get(path).set('Cookie', cookie);
  const api = (path: string, token = tokens.viewer) =>
    t.http().get(`/admin/v1/tenants/${org.slug}${path}`).set('Authorization', `Bearer ${token}`);
  const post = (path: string, cookie: string, fields: Record<string, string>) =>
    t
      .http()
      .post(path)
      .set('Cookie', cookie)
      .set('Origin', 'http://localhost:3000')
      .type('form')
      .send(fields);
  const isActive = async (memberId: string) =>
    (
      await t.db.query('SELECT is_active FROM members WHERE tenant_id = $1 AND id = $2', [
        org.orgId,
        memberId,
      ])
    )[0].is_active as boolean;

  beforeAll(async () => {
    t = await createTestApp();
    org = await createTenant(t, { locale: 'ru-RU' });
    chain = await createChain(t, org.key, 3);
    special = await upsertUser(t, org.key, {
      external_id: 'crm-Zebra-42',
      full_name: 'Жанна Лебедева',
      email: 'zhanna@shop.example',
      referrer_user_id: chain[2].serviceUserId,
    });
    for (let i = 0; i < 3; i++) {
      const lead = await createLead(t, org.key, special.serviceUserId);
      await registerConversion(t, org.key, {
        lead_id: lead,
        amount_kopecks: 250_000 + i,
        external_order_id: `p-${i}`,
      });
    }
    tokens.viewer = await createStaffToken(t, org.slug, 'viewer');
    tokens.manager = await createStaffToken(t, org.slug, 'manager');
    cookies.viewer = await orgSignIn(t.http, tokens.viewer);
    cookies.manager = await orgSignIn(t.http, tokens.manager);
    const other = await createTenant(t);
    cookies.stranger = await orgSignIn(t.http, await createStaffToken(t, other.slug, 'owner'));
  });
  afterAll(() => t.close());

  it('the overview shows the numbers of the stats API', async () => {
    const res = await page(`/org/${org.slug}`, cookies.viewer);
    expect(res.status).toBe(200);
    const stats = (await api('/stats')).body;
    for (const [key, value] of Object.entries(stats.totals)) {
      expect(res.text).toContain(`data-kpi="${key}" data-value="${String(value)}"`);
    }
    expect(stats.totals.revenue_kopecks).toBe(750_003);
    // Money as the tenant's locale writes it, the chart as inline SVG with a title.
    expect(res.text).toContain(
      new Intl.NumberFormat('ru-RU', { style: 'currency', currency: 'RUB' }).format(7500.03),
    );
    expect(res.text).toMatch(/<svg[^>]*role="img"[^>]*>\s*<title id="clicks-title">/);
    expect(res.text).toContain(`data-top-partner="${special.memberId}"`);
    expect(res.text).toContain('data-funnel="{&quot;clicks&quot;:0,&quot;leads&quot;:3,');
    // A chosen period: the same as the API's for it.
    const day = stats.to as string;
    const one = await page(`/org/${org.slug}?from=${day}&to=${day}`, cookies.viewer);
    const apiOne = (await api(`/stats?from=${day}&to=${day}`)).body;
    expect(one.text).toContain(`data-kpi="leads" data-value="${apiOne.totals.leads}"`);
    // A bad period is shown, not a 500: the period picker again, as a 400.
    const bad = await page(`/org/${org.slug}?from=2026-13-01`, cookies.viewer);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('role="alert"');
  });

  it('the overview refuses days outside 2000-01-01..2100-12-31 and long spans with 400, at once', async () => {
    // ?to=9999-12-31 used to loop until the process ran out of memory; 0000-01-01 answered 500.
    for (const query of [
      '?to=9999-12-31',
      '?from=9999-12-31',
      '?from=0000-01-01',
      '?to=0000-01-01',
      '?from=2020-01-01&to=2026-01-01',
    ]) {
      const started = Date.now();
      const res = await page(`/org/${org.slug}${query}`, cookies.viewer).timeout(5_000);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(res.text).toContain('role="alert"');
      expect(res.text).toMatch(/2000-01-01 and 2100-12-31|at most 731 days/);
      expect(Date.now() - started).toBeLessThan(2_000);
    }
  });

  it('speaks the tenant locale, and ?lang= for the rest of the session', async () => {
    const ru = await page(`/org/${org.slug}`, cookies.viewer);
    expect(ru.text).toContain('<html lang="ru">');
    expect(ru.text).toContain('Обзор');
    const en = await page(`/org/${org.slug}?lang=en`, cookies.viewer);
    expect(en.text).toContain('<html lang="en">');
    const lang = cookiePairs(en).find((c) => c.startsWith('svc_console_lang='));
    expect(lang).toBe('svc_console_lang=en');
    const next = await page(`/org/${org.slug}/partners`, `${cookies.viewer}; ${lang}`);
    expect(next.text).toContain('<html lang="en">');
    expect(next.text).toContain('Partners');
  });

  it('finds partners by name, email and external id, as the API twin does', async () => {
    for (const q of ['лебед', 'ZHANNA@SHOP', 'zebra-4', special.memberId, special.serviceUserId]) {
      const res = await page(
        `/org/${org.slug}/partners?q=${encodeURIComponent(q)}`,
        cookies.viewer,
      );
      expect(res.status).toBe(200);
      expect(res.text).toContain(`data-partner="${special.memberId}"`);
      const body = (await api(`/users?q=${encodeURIComponent(q)}`)).body;
      expect(body.items.map((p: { user_id: string }) => p.user_id)).toEqual([special.memberId]);
      expect(body.pagination).toEqual({ page: 1, page_size: 20, total: 1, total_pages: 1 });
    }
    // `%` is a character, not a wildcard: nobody's name holds `%zebra`.
    const none = await api('/users?q=%25zebra');
    expect(none.body.items).toEqual([]);
    const all = await api('/users?sort=oldest&page_size=2');
    expect(all.body.pagination).toMatchObject({ total: 4, total_pages: 2 });
    expect(all.body.items[0].user_id).toBe(chain[0].memberId);
    expect((await api('/users?sort=loudest')).status).toBe(400);
    expect((await api('/users?page_size=101')).status).toBe(400);
  });

  it("shows a partner's page with the API twin's data", async () => {
    const detail = (await api(`/users/${special.memberId}`)).body;
    expect(detail.user).toMatchObject({ user_id: special.memberId, external_id: 'crm-Zebra-42' });
    expect(detail.upline.map((u: { user_id: string }) => u.user_id)).toEqual(
      [...chain].reverse().map((m) => m.memberId),
    );
    expect(detail.leads.total).toBe(3);
    expect(detail.bonuses.total).toBe(3);
    expect(detail.balances).toEqual([
      { currency: 'RUB', pending_kopecks: 75_000, approved_kopecks: 0 },
    ]);
    const res = await page(`/org/${org.slug}/partners/${special.memberId}`, cookies.viewer);
    expect(res.status).toBe(200);
    for (const m of chain) expect(res.text).toContain(`/org/${org.slug}/partners/${m.memberId}`);
    expect(res.text).toContain('data-status="active"');
    expect((await api('/users/mbr_01NOPE00000000000000000000')).body.code).toBe('user_not_found');
  });

  it('streams the CSV of the search', async () => {
    const res = await page(`/org/${org.slug}/partners.csv?q=zebra`, cookies.viewer);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const lines = res.text.trim().split('\n');
    expect(lines[0]).toMatch(/^user_id,service_user_id,external_id,full_name,email,/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`${special.memberId},${special.serviceUserId},crm-Zebra-42`);
    const all = await page(`/org/${org.slug}/partners.csv`, cookies.viewer);
    expect(all.text.trim().split('\n')).toHaveLength(5);
    // The Admin API's rules for the search and sort; the refusal is a page that says which.
    const refused = await page(`/org/${org.slug}/partners.csv?sort=shoe_size`, cookies.viewer);
    expect(refused.status).toBe(400);
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    expect(refused.text).toMatch(
      />sort: must be one of the following values: joined, oldest, name</,
    );
  });

  it('a manager deactivates and activates with the CSRF token; a viewer cannot', async () => {
    const target = `/org/${org.slug}/partners/${chain[1].memberId}`;
    const viewerCsrf = await orgCsrf(t.http, cookies.viewer, org.slug);
    const viewerPage = await page(target, cookies.viewer);
    expect(viewerPage.text).not.toContain('data-action="deactivate"');
    const refused = await post(`${target}/deactivate`, cookies.viewer, { _csrf: viewerCsrf });
    expect(refused.status).toBe(403);
    expect(await isActive(chain[1].memberId)).toBe(true);

    const managerPage = await page(target, cookies.manager);
    const csrf = hiddenField(managerPage.text, '_csrf')!;
    expect(managerPage.text).toContain('data-action="deactivate"');
    // Without the token, and with another session's token: refused, nothing changes.
    expect((await post(`${target}/deactivate`, cookies.manager, {})).status).toBe(403);
    expect(
      (await post(`${target}/deactivate`, cookies.manager, { _csrf: viewerCsrf })).status,
    ).toBe(403);
    expect(await isActive(chain[1].memberId)).toBe(true);

    const done = await post(`${target}/deactivate`, cookies.manager, { _csrf: csrf });
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe(`${target}?notice=deactivated`);
    expect(await isActive(chain[1].memberId)).toBe(false);
    const after = await page(`${target}?notice=deactivated`, cookies.manager);
    expect(after.text).toContain('data-status="inactive"');
    expect(after.text).toContain('data-action="activate"');
    expect((await post(`${target}/activate`, cookies.manager, { _csrf: csrf })).status).toBe(303);
    expect(await isActive(chain[1].memberId)).toBe(true);
  });

  it("shows another tenant's staff nothing, and sends the signed-out to sign in", async () => {
    for (const path of [
      `/org/${org.slug}`,
      `/org/${org.slug}/partners`,
      `/org/${org.slug}/partners/${special.memberId}`,
      `/org/${org.slug}/partners.csv`,
    ]) {
      const res = await page(path, cookies.stranger);
      expect(res.status).toBe(403);
      expect(res.text).not.toContain('Лебедева');
      expect(res.text).not.toContain('crm-Zebra');
      const anonymous = await t.http().get(path);
      expect(anonymous.status).toBe(303);
      expect(anonymous.headers.location).toBe('/org/sign-in');
    }
    const strangerCsrf = await orgCsrf(
      t.http,
      cookies.stranger,
      (
        await t.db.query(
          'SELECT slug FROM tenants WHERE id <> $1 ORDER BY created_at DESC LIMIT 1',
          [org.orgId],
        )
      )[0].slug,
    );
    const res = await post(
      `/org/${org.slug}/partners/${special.memberId}/deactivate`,
      cookies.stranger,
      {
        _csrf: strangerCsrf,
      },
    );
    expect(res.status).toBe(403);
    expect(await isActive(special.memberId)).toBe(true);
    expect(
      (await api('/users', await createStaffToken(t, (await createTenant(t)).slug, 'owner')))
        .status,
    ).toBe(403);
  });
});
