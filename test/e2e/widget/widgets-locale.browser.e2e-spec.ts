/**
 * The widgets in locales other than ru and en (docs/embedding.md), in a real headless Chromium:
 * a de-DE/EUR tenant's page that names no locale gets the tenant's locale (German amounts, dates
 * and relative times, English labels); a page that asks for kk-KZ or ru-KZ gets that locale from
 * the API and the widgets' own texts in English or Russian.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Locator, Page } from 'playwright-core';
import { createLead, registerConversion } from '../../factories/money.factory';
import { createTenant, type TestTenant } from '../../factories/tenants.factory';
import { upsertUser, type UpsertedMember } from '../../factories/users.factory';
import { type BrowserSuite, startBrowserSuite } from '../../utils/browser-suite';
import type { TestApp } from '../../utils/create-test-app';
import { widgetScreenshot } from '../../utils/widget-site';

/** docs/embedding.md: exactly what Intl prints. */
function money(kopecks: number, currency: string, locale: string): string {
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  }).format(kopecks / 100);
}

/** Every relative time a row made in the last few minutes may show, in `locale`. */
function recentTimes(locale: string): string[] {
  const rtf = new Intl.RelativeTimeFormat(locale, { numeric: 'always' });
  return [
    ...Array.from({ length: 60 }, (_, i) => rtf.format(-i, 'second')),
    ...Array.from({ length: 5 }, (_, i) => rtf.format(-(i + 1), 'minute')),
  ];
}

interface Site {
  origin: string;
  /** A page with these widgets; `lang` on <html> and `data-locale` on the script when given. */
  page: (options: { widgets: string[]; lang?: string; locale?: string }) => string;
  close: () => Promise<void>;
}

jest.setTimeout(60_000);

describe('widgets in any locale (docs/embedding.md)', () => {
  let suite: BrowserSuite | undefined;
  let t: TestApp | undefined;
  let site: Site | undefined;
  let base: string;
  let tenant: TestTenant;
  let partner: UpsertedMember;
  let child: UpsertedMember;

  /** A tenant's site on its own origin; the page comes from the query, encoded. */
  async function startSite(memberId: () => string, slug: () => string): Promise<Site> {
    const server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://site');
      const widgets = (url.searchParams.get('widgets') ?? '').split(',').filter(Boolean);
      const lang = url.searchParams.get('lang');
      const locale = url.searchParams.get('locale');
      const body = `<!doctype html>
<html${lang ? ` lang="${lang}"` : ''}><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,"></head>
<body>${widgets.map((w) => `<div data-service-widget="${w}" data-user-id="${memberId()}"></div>`).join('\n')}
<script src="${base}/embed/v1/widget.js" data-tenant="${slug()}"${locale ? ` data-locale="${locale}"` : ''} defer></script>
</body></html>`;
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return {
      origin,
      page: ({ widgets, lang, locale }) => {
        const q = new URLSearchParams({ widgets: widgets.join(',') });
        if (lang) q.set('lang', lang);
        if (locale) q.set('locale', locale);
        return `${origin}/page?${q.toString()}`;
      },
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }

  const admin = (method: 'get' | 'post' | 'patch', path: string) =>
    t!.http()[method](path).set('Authorization', `Bearer ${t!.adminToken}`);

  const embed = async (read: string, query = '') => {
    const res = await t!
      .http()
      .get(`/embed/v1/data/${read}/${partner.memberId}?tenant=${tenant.slug}${query}`)
      .set('Origin', site!.origin);
    expect(res.status).toBe(200);
    return res.body;
  };

  const box = (page: Page, name: string): Locator =>
    page.locator(`[data-service-widget="${name}"]`).first().locator('.w');

  async function settled(page: Page, name: string, states = ['ready']): Promise<Locator> {
    const root = box(page, name);
    await root
      .and(page.locator(states.map((s) => `[data-state="${s}"]`).join(', ')))
      .waitFor({ timeout: 15_000 });
    return root;
  }

  const texts = (locator: Locator) => locator.evaluateAll((els) => els.map((e) => e.textContent));

  beforeAll(async () => {
    suite = await startBrowserSuite({ timeoutMs: 30_000 });
    ({ t, base } = suite);
    site = await startSite(
      () => partner.memberId,
      () => tenant.slug,
    );
    suite.onClose(() => site?.close());
    tenant = await createTenant(t, {
      locale: 'de-DE',
      currency: 'EUR',
      allowed_origins: [site.origin],
    });
    partner = await upsertUser(t, tenant.key, { full_name: 'Maria' });
    child = await upsertUser(t, tenant.key, {
      full_name: 'Jonas',
      referrer_user_id: partner.serviceUserId,
    });
    const leadId = await createLead(t, tenant.key, partner.serviceUserId, {
      contact: { name: 'Buyer', email: 'buyer@example.org' },
    });
    await registerConversion(t, tenant.key, {
      lead_id: leadId,
      amount_kopecks: 1_234_567,
      currency: 'EUR',
      external_order_id: 'de-1',
    });
    const manual = await admin('post', `/admin/v1/tenants/${tenant.slug}/bonuses`).send({
      user_id: partner.serviceUserId,
      amount_kopecks: 250_000,
      currency: 'EUR',
      reason: 'Kampagne',
    });
    expect(manual.status).toBe(201);
    const approved = await admin(
      'post',
      `/admin/v1/tenants/${tenant.slug}/bonuses/${manual.body.bonus_id}/approve`,
    );
    expect(approved.status).toBe(200);
  }, 120_000);

  afterAll(() => suite?.close());

  it("a page that names no locale shows the de-DE tenant's: German amounts and dates, English labels", async () => {
    const context = await suite!.newContext();
    const page = await context.newPage();
    await page.goto(
      site!.page({ widgets: ['cabinet', 'bonuses', 'leads', 'partners', 'lead-form'] }),
    );
    const cabinet = await embed('cabinet');

    const cab = await settled(page, 'cabinet');
    expect(await cab.getAttribute('lang')).toBe('de-DE');
    expect(await cab.locator('h2').textContent()).toBe('Partner cabinet');
    expect(await cab.locator('[data-kpi=available] span').textContent()).toBe('Available');
    expect(await cab.locator('[data-metric=available]').textContent()).toBe(
      money(250_000, 'EUR', 'de-DE'),
    );
    expect(await cab.locator('[data-metric=pending]').textContent()).toBe(
      money(123_456, 'EUR', 'de-DE'),
    );
    expect(cabinet.kpi.pending_formatted).toBe(money(123_456, 'EUR', 'de-DE'));
    expect(await texts(cab.locator('[data-list=transactions] .amt'))).toEqual(
      cabinet.transactions.map((x: { amount_formatted: string }) => x.amount_formatted),
    );
    expect(await texts(cab.locator('[data-list=transactions] .chip'))).toEqual([
      'Approved',
      'Pending',
    ]);
    expect(await texts(cab.locator('[data-list=leads] .chip'))).toEqual(['Converted']);
    const times = recentTimes('de-DE');
    for (const time of await texts(cab.locator('[data-list] li small'))) {
      expect(times).toContain(time);
    }

    const bon = await settled(page, 'bonuses');
    expect(await bon.locator('h2').textContent()).toBe('Bonuses');
    expect(await bon.locator('[data-metric=pending]').textContent()).toBe(
      money(123_456, 'EUR', 'de-DE'),
    );

    const led = await settled(page, 'leads');
    expect(await led.locator('[data-part=total]').textContent()).toBe('Leads: 1');

    // The partner list's dates in German, as this browser's Intl prints them.
    const par = await settled(page, 'partners');
    const joined = (await embed('partners')).partners[0].joined_at as string;
    const german = await page.evaluate(
      (iso) => new Intl.DateTimeFormat('de-DE', { dateStyle: 'medium' }).format(new Date(iso)),
      joined,
    );
    expect(await par.locator(`[data-user-id="${child.memberId}"] small`).textContent()).toBe(
      `since ${german}`,
    );

    // A widget that reads nothing takes the tenant's locale too.
    const form = await settled(page, 'lead-form', ['empty']);
    expect(await form.getAttribute('lang')).toBe('de-DE');
    expect(await form.locator('[data-part=no-ref]').textContent()).toBe(
      'This form works when you arrive through a partner’s link.',
    );
    await widgetScreenshot(page.locator('[data-service-widget=cabinet]'), 'cabinet-de-DE');
    await context.close();
  });

  it.each([
    // how the page asks, the locale, the widget texts' language
    [{ locale: 'kk-KZ' }, 'kk-KZ', 'en'],
    [{ lang: 'kk-kz' }, 'kk-KZ', 'en'],
    [{ lang: 'ru-KZ' }, 'ru-KZ', 'ru'],
  ] as const)('a page that asks for %j shows %s, texts in %s', async (asks, locale, language) => {
    const context = await suite!.newContext();
    const page = await context.newPage();
    await page.goto(site!.page({ widgets: ['cabinet'], ...asks }));
    const cab = await settled(page, 'cabinet');
    expect(await cab.getAttribute('lang')).toBe(locale);
    expect(await cab.locator('h2').textContent()).toBe(
      language === 'ru' ? 'Кабинет партнёра' : 'Partner cabinet',
    );
    expect(await cab.locator('[data-metric=pending]').textContent()).toBe(
      money(123_456, 'EUR', locale),
    );
    expect(await cab.locator('[data-metric=available]').textContent()).toBe(
      money(250_000, 'EUR', locale),
    );
    expect(await texts(cab.locator('[data-list=leads] .chip'))).toEqual([
      language === 'ru' ? 'Конвертирован' : 'Converted',
    ]);
    const times = recentTimes(locale);
    for (const time of await texts(cab.locator('[data-list] li small'))) {
      expect(times).toContain(time);
    }
    await widgetScreenshot(page.locator('[data-service-widget=cabinet]'), `cabinet-${locale}`);
    await context.close();
  });
});
