/**
 * The program console (docs/console.md) in a real headless Chromium, as a manager goes through it: read
 * the overview's numbers (equal to the stats API's), find a partner, deactivate and activate them;
 * once with JavaScript disabled at desktop width and once at a phone's width. A viewer's page has
 * no forms that change anything, and the server refuses the post. Screenshots of each page go to
 * test-output/screenshots/console-*.png (git-ignored).
 */
import type { Page } from 'playwright-core';
import { createLead, registerConversion } from '../../factories/money.factory';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { createChain, upsertUser, type UpsertedMember } from '../../factories/users.factory';
import { clickAndWait, csrfOf, pageWidths, signIn } from '../../utils/admin-pages-browser';
import { screenshot } from '../../utils/browser';
import { type BrowserSuite, startBrowserSuite } from '../../utils/browser-suite';

const VARIANTS = [
  { name: 'desktop-nojs', width: 1280, javaScriptEnabled: false },
  { name: 'phone', width: 390, javaScriptEnabled: true },
] as const;

describe('program console in a real browser (docs/console.md)', () => {
  let suite: BrowserSuite | undefined;
  let base: string;
  let org: TestTenant;
  let managerToken: string;
  let viewerToken: string;
  let partners: UpsertedMember[];

  const s = () => suite!;
  const api = async (path: string) =>
    (
      await s()
        .t.http()
        .get(`/admin/v1/tenants/${org.slug}${path}`)
        .set('Authorization', `Bearer ${viewerToken}`)
    ).body;
  const isActive = async (memberId: string) =>
    (
      await s().t.db.query('SELECT is_active FROM members WHERE tenant_id = $1 AND id = $2', [
        org.orgId,
        memberId,
      ])
    )[0].is_active as boolean;

  beforeAll(async () => {
    suite = await startBrowserSuite({ timeoutMs: 15_000 });
    base = suite.base;
    const t = suite.t;
    org = await createTenant(t, { locale: 'ru-RU', display_name: 'Магазин Ромашка' });
    managerToken = await createStaffToken(t, org.slug, 'manager');
    viewerToken = await createStaffToken(t, org.slug, 'viewer');
    const chain = await createChain(t, org.key, 2);
    partners = [
      await upsertUser(t, org.key, {
        full_name: 'Ольга Сидорова',
        email: 'olga@shop.example',
        referrer_user_id: chain[1].serviceUserId,
      }),
      await upsertUser(t, org.key, {
        full_name: 'Павел Орлов',
        email: 'pavel@shop.example',
        referrer_user_id: chain[1].serviceUserId,
      }),
    ];
    for (let i = 0; i < 4; i++) {
      const lead = await createLead(t, org.key, partners[i % 2].serviceUserId);
      if (i < 3) {
        await registerConversion(t, org.key, {
          lead_id: lead,
          amount_kopecks: 120_000 * (i + 1),
          external_order_id: `b-${i}`,
        });
      }
    }
  }, 120_000);
  afterAll(() => suite?.close());

  async function kpis(page: Page): Promise<Record<string, number>> {
    return Object.fromEntries(
      await page
        .locator('[data-kpi]')
        .evaluateAll((els) =>
          els.map((e) => [e.getAttribute('data-kpi'), Number(e.getAttribute('data-value'))]),
        ),
    );
  }

  it.each(VARIANTS)(
    'a manager reads the numbers, finds a partner and deactivates them ($name)',
    async ({ name, width, javaScriptEnabled }) => {
      const context = await s().newContext({
        viewport: { width, height: 900 },
        javaScriptEnabled,
      });
      const page = await context.newPage();
      await signIn(page, base, managerToken);
      await page.goto(`${base}/org/${org.slug}`);
      expect(await page.locator('html').getAttribute('lang')).toBe('ru');

      // The overview: every KPI equals the API's, and the visible text is its formatting.
      const stats = await api('/stats');
      expect(await kpis(page)).toEqual(stats.totals);
      const revenue = new Intl.NumberFormat('ru-RU', { style: 'currency', currency: 'RUB' }).format(
        stats.totals.revenue_kopecks / 100,
      );
      expect(revenue).toMatch(/7\s200,00\s₽/);
      expect(await page.locator('[data-kpi=revenue_kopecks] .value').textContent()).toBe(revenue);
      expect(await page.locator('svg[role=img] title').count()).toBe(3);
      const top = await page
        .locator('[data-top-partner]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-top-partner')));
      expect(top).toEqual(stats.top_partners.map((p: { user_id: string }) => p.user_id));
      // The 7-day shortcut: the page's numbers are the API's for that period.
      await clickAndWait(page, page.locator('.shortcuts a').first());
      const week = new URL(page.url()).searchParams;
      const weekStats = await api(`/stats?from=${week.get('from')}&to=${week.get('to')}`);
      expect(await kpis(page)).toEqual(weekStats.totals);
      const widths = await pageWidths(page);
      expect(widths.scrollWidth).toBeLessThanOrEqual(widths.innerWidth);
      await screenshot(page, `console-overview-${name}`);

      // Partners: search by a part of the name, open the partner, deactivate.
      await clickAndWait(page, page.locator('nav a', { hasText: 'Партнёры' }));
      await page.locator('input[name=q]').fill('сидоров');
      await clickAndWait(page, page.locator('form[role=search] button[type=submit]'));
      const found = page.locator('[data-partner]');
      expect(await found.count()).toBe(1);
      await screenshot(page, `console-partners-${name}`);
      await clickAndWait(page, found.first());
      expect(page.url()).toBe(`${base}/org/${org.slug}/partners/${partners[0].memberId}`);
      await clickAndWait(page, page.locator('[data-action=deactivate]'));
      expect(await page.locator('[role=status]').textContent()).toBe('Партнёр деактивирован.');
      expect(await page.locator('[data-status]').getAttribute('data-status')).toBe('inactive');
      expect(await isActive(partners[0].memberId)).toBe(false);
      await screenshot(page, `console-partner-${name}`);
      await clickAndWait(page, page.locator('[data-action=activate]'));
      expect(await isActive(partners[0].memberId)).toBe(true);

      // English for the rest of the session.
      await page.goto(`${base}/org/${org.slug}?lang=en`);
      await page.goto(`${base}/org/${org.slug}/partners`);
      expect(await page.locator('html').getAttribute('lang')).toBe('en');
      expect(await page.locator('h1').textContent()).toBe('Partners');
      await context.close();
    },
    180_000,
  );

  it('a viewer sees no form that changes anything, and the server refuses the post', async () => {
    const context = await s().newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await signIn(page, base, viewerToken);
    await page.goto(`${base}/org/${org.slug}/partners/${partners[1].memberId}`);
    expect(await page.locator('[data-action=deactivate]').count()).toBe(0);
    const csrf = await csrfOf(page);
    const res = await page.request.post(
      `${base}/org/${org.slug}/partners/${partners[1].memberId}/deactivate`,
      { form: { _csrf: csrf }, headers: { Origin: base }, maxRedirects: 0 },
    );
    expect(res.status()).toBe(403);
    expect(await isActive(partners[1].memberId)).toBe(true);
    await context.close();
  }, 60_000);
});
