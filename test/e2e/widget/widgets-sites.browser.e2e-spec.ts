/**
 * The embeddable widgets of README.md on tenants' own sites, driven in a real headless Chromium:
 * "Get my link" through the sign-in popup (the code arrives over real SMTP), a tenant's own origin
 * (pinned with integrity, themed, untouched by the host CSS), loading, empty and error states, and
 * a disallowed origin. Tenants' sites are node:http servers on their own origins. Every widget is
 * photographed into test-output/screenshots/. Setup: test/utils/widgets-suite.ts.
 */
import type { ConsoleMessage } from 'playwright-core';
import { SITE_ACCENT, widgetScreenshot } from '../../utils/widget-site';
import {
  attrs,
  box,
  computed,
  type Json,
  settled,
  until,
  widget,
  widgetsSuite,
} from '../../utils/widgets-suite';

describe("embeddable widgets in a real browser: tenants' own sites and the sign-in popup (README.md)", () => {
  const d = widgetsSuite({ sites: true });

  it('"Get my link" completes the popup flow and shows the short link; the session is kept for the tab only', async () => {
    const context = await d.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.base });
    const page = await d.openDemo(context);
    const { shortUrl, note } = await d.getMyLink(page);
    expect(shortUrl).toMatch(new RegExp(`^${d.base.replace(/\./g, '\\.')}/s/[A-Za-z0-9]{8}$`));
    expect(note).toBe('created');
    const code = shortUrl.split('/').pop();
    const rows = await d.t.db.query<{ member_id: string; target_id: string }[]>(
      'SELECT member_id, target_id FROM deeplinks WHERE tenant_id = $1 AND code = $2',
      [d.demo.tenantId, code],
    );
    expect(rows).toEqual([{ member_id: d.demo.partner.memberId, target_id: 'spring-sale' }]);

    // Copy puts the link on the clipboard.
    const root = box(page, 'referral-link');
    await root.locator('[data-action=copy]').click();
    await until(() => root.locator('[data-action=copy]').textContent(), 'Скопировано');
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(shortUrl);

    // The session is kept for the tab (docs/embedding.md §11.3), nowhere that outlives it.
    const stored = await page.evaluate<Json>(
      '({ local: localStorage.length, session: Object.keys(sessionStorage), cookie: document.cookie })',
    );
    expect(stored).toEqual({
      local: 0,
      session: [`service-widgets:session:${d.demo.slug}`],
      cookie: '',
    });
    await widgetScreenshot(widget(page, 'referral-link'), 'referral-link');

    // Signing in cleared claim_required.
    expect((await d.embed('cabinet')).user.claim_required).toBe(false);
    expect(d.cspViolations).toEqual([]);
    await context.close();
  }, 60_000);

  it('on a tenant’s own origin: pinned with integrity, themed, untouched by the host CSS; the link is reused', async () => {
    const manifest = (await d.t.http().get('/embed/v1/widget.json')).body as Json;
    const context = await d.newContext();
    const page = await context.newPage();
    await page.goto(
      d.sitePage({
        widgets: ['cabinet', 'partners', 'referral-link'],
        locale: 'en',
        pageSize: 5,
        pinned: { src: manifest.versioned_url, integrity: manifest.integrity },
        attributes: {
          'referral-link': { 'data-target-type': 'offer', 'data-target-id': 'spring-sale' },
        },
      }),
    );
    const cab = await settled(page, 'cabinet');
    expect(await cab.locator('h2').textContent()).toBe('Partner cabinet');
    const cabinet = await d.embed('cabinet');
    expect(await cab.locator('[data-kpi=leads] b').textContent()).toBe(
      String(cabinet.kpi.leads_count),
    );

    // Paging through the partner list, five at a time.
    const par = await settled(page, 'partners');
    const second = await d.embed('partners', { page: 2, page_size: 5 });
    await par.locator('[data-action=next]').click();
    await until(
      () => attrs(par.locator('[data-list=partners] > li'), 'data-user-id'),
      second.partners.map((p: Json) => p.user_id),
    );
    expect(await par.locator('[data-part=page]').textContent()).toBe(
      `Page 2 of ${second.pagination.total_pages}`,
    );

    // The host page's `* {…!important}` and `button {display: none}` stay outside.
    const next = par.locator('[data-action=prev]');
    expect(await next.isVisible()).toBe(true);
    const style = await computed(cab, ['font-family', 'color', 'letter-spacing', 'text-transform']);
    expect(style['font-family']).not.toMatch(/comic/i);
    expect(style).toMatchObject({
      color: 'rgb(29, 35, 48)',
      'letter-spacing': 'normal',
      'text-transform': 'none',
    });
    // …while its --sw-accent themes them.
    const getLink = box(page, 'referral-link').locator('[data-action=get-link]');
    expect((await computed(getLink, ['background-color']))['background-color']).toBe(SITE_ACCENT);
    await widgetScreenshot(widget(page, 'cabinet'), 'cabinet-tenant-site-en');
    await widgetScreenshot(widget(page, 'partners'), 'partners-tenant-site-page-2');

    // "Get my link" from another origin: the popup posts to this allowed opener. After a reload
    // the tab's session needs no popup: the widget finds the same link among the partner's.
    const first = await d.getMyLink(page);
    expect(first.shortUrl).toMatch(/\/s\/[A-Za-z0-9]{8}$/);
    await page.reload();
    const again = await settled(page, 'referral-link');
    expect(await again.locator('[data-field=short-url]').inputValue()).toBe(first.shortUrl);
    expect(await again.locator('[data-part=reused]').textContent()).toBe(
      'This is the link you created before.',
    );
    expect(context.pages()).toHaveLength(1); // no popup was opened
    await widgetScreenshot(widget(page, 'referral-link'), 'referral-link-reused-en');
    expect(d.cspViolations).toEqual([]);
    await context.close();
  }, 90_000);

  it('loading, empty and error states (an outage can be retried)', async () => {
    const context = await d.newContext();
    const page = await context.newPage();

    // Loading: hold the cabinet's answer until the widget has shown it is loading.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/embed/v1/data/cabinet/**', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(d.sitePage({ widgets: ['cabinet'], locale: 'ru' }));
    const loading = await settled(page, 'cabinet', ['loading']);
    expect(await loading.locator('[data-part=loading]').textContent()).toBe('Загрузка…');
    expect(await loading.getAttribute('aria-busy')).toBe('true');
    await widgetScreenshot(widget(page, 'cabinet'), 'state-loading');
    release();
    await settled(page, 'cabinet');
    await page.unroute('**/embed/v1/data/cabinet/**');

    // An outage: the error state with a retry that works once the service answers again.
    await page.route('**/embed/v1/data/leads/**', (route) => route.abort('connectionrefused'));
    await page.goto(d.sitePage({ widgets: ['leads'] }));
    const failed = await settled(page, 'leads', ['error']);
    expect(await failed.locator('[data-part=error]').getAttribute('data-code')).toBe('network');
    await widgetScreenshot(widget(page, 'leads'), 'state-network-error');
    await page.unroute('**/embed/v1/data/leads/**');
    await failed.locator('[data-action=retry]').click();
    await settled(page, 'leads');

    // Empty: a newcomer with nobody below and nothing earned.
    await page.goto(
      d.sitePage({
        userId: d.demo.newcomerMemberId,
        widgets: ['cabinet', 'bonuses', 'leads', 'referral-tree', 'partners'],
        locale: 'ru',
      }),
    );
    for (const name of ['cabinet', 'bonuses', 'leads', 'referral-tree', 'partners']) {
      const root = await settled(page, name, ['empty']);
      expect(await root.locator('[data-part=empty]').first().isVisible()).toBe(true);
    }
    expect(await box(page, 'partners').locator('[data-part=empty]').textContent()).toBe(
      'Партнёров пока нет.',
    );
    await widgetScreenshot(widget(page, 'cabinet'), 'state-empty-cabinet');
    await widgetScreenshot(widget(page, 'referral-tree'), 'state-empty-referral-tree');

    // A wrong data-user-id is an error for users and a hint for the developer.
    const hints: string[] = [];
    page.on('console', (message: ConsoleMessage) => hints.push(message.text()));
    await page.goto(
      d.sitePage({ userId: 'mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T', widgets: ['cabinet'], locale: 'ru' }),
    );
    const unknown = await settled(page, 'cabinet', ['error']);
    expect(await unknown.locator('[data-part=error]').textContent()).toBe(
      'Участник программы не найден.',
    );
    expect(hints.join('\n')).toContain('404 user_not_found');
    await context.close();
  }, 60_000);

  it('a page on a disallowed origin shows the error state and tells its developer why', async () => {
    const context = await d.newContext();
    const page = await context.newPage();
    const consoleLines: string[] = [];
    page.on('console', (message: ConsoleMessage) => {
      if (message.type() === 'error') consoleLines.push(message.text());
    });
    await page.goto(
      d.sitePage(
        { widgets: ['cabinet', 'leads', 'partners', 'referral-link'], locale: 'en' },
        d.foreignSite,
      ),
    );
    for (const name of ['cabinet', 'leads', 'partners']) {
      const root = await settled(page, name, ['error']);
      const error = root.locator('[data-part=error]');
      expect(await error.getAttribute('data-code')).toBe('origin_not_allowed');
      expect(await error.textContent()).toBe('This widget is not enabled for this site.');
      expect(await root.locator('[data-action=retry]').count()).toBe(0);
    }
    await widgetScreenshot(widget(page, 'cabinet'), 'disallowed-origin-cabinet');
    const hint = consoleLines.filter((line) => line.startsWith('[service widget]'));
    expect(hint).toHaveLength(1); // said once, not once per widget
    expect(hint[0]).toContain('403 origin_not_allowed');
    expect(hint[0]).toContain(d.foreignSite.origin);
    expect(hint[0]).toContain(`allowed_origins of tenant "${d.demo.slug}"`);

    // The API itself refused (no data reached the page): 403 with an empty allow-origin.
    const refused = await d.t
      .http()
      .get(`/embed/v1/data/cabinet/${d.demo.partner.memberId}?tenant=${d.demo.slug}`)
      .set('Origin', d.foreignSite.origin);
    expect(refused.status).toBe(403);
    expect(refused.headers['access-control-allow-origin']).toBe('');
    await context.close();
  }, 60_000);
});
