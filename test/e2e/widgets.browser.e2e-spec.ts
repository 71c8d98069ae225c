/**
 * The embeddable widgets of README.md and the demo of README.md, driven in a real headless Chromium:
 * the service listens on a loopback port with real PostgreSQL and Redis, the demo tenant is seeded
 * through the services, the sign-in code arrives over real SMTP, and tenants' sites are node:http
 * servers on their own origins. Every widget is photographed into test-output/screenshots/.
 */
import { createHash, randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { BrowserContext, ConsoleMessage, Locator, Page } from 'playwright-core';
import request from 'supertest';
import { DemoSeeder, type DemoInfo } from '../../src/demo/demo-seeder.service';
import { type BrowserSuite, startBrowserSuite } from '../utils/browser-suite';
import type { TestApp } from '../utils/create-test-app';
import type { SmtpCatcher } from '../utils/smtp-catcher';
import {
  SITE_ACCENT,
  startWidgetSite,
  type WidgetPageSpec,
  type WidgetSite,
  widgetScreenshot,
} from '../utils/widget-site';

const GZIP_BUDGET = 30 * 1024;
const ALL_WIDGETS = [
  'cabinet',
  'bonuses',
  'leads',
  'referral-tree',
  'partners',
  'referral-link',
  'lead-form',
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it deep-equals `expected` (or `timeoutMs` passes); the last answer is asserted. */
async function until<T>(probe: () => Promise<T>, expected: T, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = await probe();
  while (!isDeepStrictEqual(last, expected) && Date.now() < deadline) {
    await sleep(100);
    last = await probe();
  }
  expect(last).toEqual(expected);
}

interface Json {
  [key: string]: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe('embeddable widgets in a real browser (README.md, README.md)', () => {
  let suite: BrowserSuite | undefined;
  let smtp: SmtpCatcher | undefined;
  let t: TestApp | undefined;
  let partnerSite: WidgetSite | undefined;
  let foreignSite: WidgetSite | undefined;
  let base: string;
  let demo: DemoInfo;
  /** Console lines of every page that mention a Content-Security-Policy violation. */
  let cspViolations: string[] = [];

  const app = () => t!;

  beforeAll(async () => {
    suite = await startBrowserSuite({
      smtp: true,
      env: { MAIL_FROM: 'Referral service <signin@referrals.test>' },
      context: { viewport: { width: 1280, height: 900 } },
      timeoutMs: 30_000,
    });
    ({ t, base, smtp, cspViolations } = suite);
    partnerSite = await startWidgetSite();
    foreignSite = await startWidgetSite();
    suite.onClose(() => partnerSite?.close());
    suite.onClose(() => foreignSite?.close());
    // The test database is shared by the run's test files (never empty): seed explicitly.
    demo = await t.app.get(DemoSeeder).ensureDemo();
    // A tenant's own site on another origin is allowed as well; the foreign site is not.
    const current = await admin().get(`/admin/v1/tenants/${demo.slug}`);
    const patched = await admin()
      .patch(`/admin/v1/tenants/${demo.slug}`)
      .send({ allowed_origins: [...current.body.allowed_origins, partnerSite.origin] });
    expect(patched.status).toBe(200);
  }, 120_000);

  afterAll(() => suite?.close());

  // ---------------------------------------------------------------------------------------------
  // Helpers

  function admin() {
    const agent = request(app().app.getHttpServer());
    const auth = { Authorization: `Bearer ${app().adminToken}` };
    return {
      get: (path: string) => agent.get(path).set(auth),
      patch: (path: string) => agent.patch(path).set(auth),
    };
  }

  /** What the Embed Data API answers the demo page (the widgets must show exactly this). */
  async function embed(
    what: string,
    query: Record<string, string | number> = {},
    memberId = demo.partner.memberId,
  ): Promise<Json> {
    const params = new URLSearchParams({ tenant: demo.slug, locale: 'ru' });
    for (const [k, v] of Object.entries(query)) params.set(k, String(v));
    const res = await app()
      .http()
      .get(`/embed/v1/data/${what}/${memberId}?${params.toString()}`)
      .set('Origin', base);
    expect(res.status).toBe(200);
    return res.body as Json;
  }

  const newContext = () => suite!.newContext();

  const widget = (page: Page, name: string): Locator =>
    page.locator(`[data-service-widget="${name}"]`).first();
  /** The widget's root inside its shadow root (Playwright's CSS locators pierce open shadows). */
  const box = (page: Page, name: string): Locator => widget(page, name).locator('.w');

  async function settled(page: Page, name: string, states = ['ready']): Promise<Locator> {
    const root = box(page, name);
    await root
      .and(page.locator(states.map((s) => `[data-state="${s}"]`).join(', ')))
      .waitFor({ timeout: 10_000 });
    return root;
  }

  /** Computed style properties of an element (inside a shadow root too). */
  const computed = (locator: Locator, names: string[]) =>
    locator.evaluate((el, props) => {
      const view = globalThis as unknown as {
        getComputedStyle: (e: unknown) => { getPropertyValue: (name: string) => string };
      };
      const style = view.getComputedStyle(el);
      return Object.fromEntries(props.map((p) => [p, style.getPropertyValue(p)]));
    }, names);
  const texts = (locator: Locator) => locator.evaluateAll((els) => els.map((e) => e.textContent));
  const attrs = (locator: Locator, name: string) =>
    locator.evaluateAll((els, attr) => els.map((e) => e.getAttribute(attr)), name);

  async function openDemo(context: BrowserContext, path = '/demo'): Promise<Page> {
    const page = await context.newPage();
    const response = await page.goto(`${base}${path}`);
    expect(response?.status()).toBe(200);
    return page;
  }

  function sitePage(spec: Partial<WidgetPageSpec> & { widgets: string[] }, site = partnerSite!) {
    return site.pageUrl({ base, tenant: demo.slug, userId: demo.partner.memberId, ...spec });
  }

  /** The popup of docs/embedding.md up to the consent page: email, the code from the caught mail, code. */
  async function signInAndAllow(popup: Page, email: string): Promise<void> {
    await popup.waitForLoadState('domcontentloaded');
    const emailField = popup.locator('input[type=email]');
    const allow = popup.locator('[data-action=allow]');
    await emailField.or(allow).first().waitFor();
    if (await emailField.count()) {
      await emailField.fill(email);
      await popup.locator('[data-action=submit]').click();
      const code = popup.locator('input[autocomplete=one-time-code]');
      await code.waitFor();
      const mail = await smtp!.take(email);
      await code.fill(mail.code!);
      await popup.locator('[data-action=submit]').click();
    }
    const closed = popup.waitForEvent('close', { timeout: 10_000 });
    await allow.click().catch((error: unknown) => {
      if (!popup.isClosed()) throw error;
    });
    await closed;
  }

  /** Clicks "Get my link", completes the popup and returns the link the widget shows. */
  async function getMyLink(page: Page): Promise<{ shortUrl: string; note: string }> {
    const root = await settled(page, 'referral-link', ['idle']);
    const popupOpened = page.context().waitForEvent('page');
    await root.locator('[data-action=get-link]').click();
    const popup = await popupOpened;
    expect(new URL(popup.url()).pathname).toBe('/oauth/authorize');
    expect(new URL(popup.url()).searchParams.get('client_id')).toBe(demo.slug);
    await signInAndAllow(popup, demo.partner.email);
    await settled(page, 'referral-link');
    const shortUrl = await root.locator('[data-field=short-url]').inputValue();
    const note = await root
      .locator('[data-part=reused], [data-part=created]')
      .getAttribute('data-part');
    return { shortUrl, note: note! };
  }

  // ---------------------------------------------------------------------------------------------
  // The script itself

  it('serves widget.js under its size budget, with cache headers and an immutable versioned URL', async () => {
    const latest = await app()
      .http()
      .get('/embed/v1/widget.js')
      .set('Accept-Encoding', 'identity')
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(latest.status).toBe(200);
    expect(latest.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(latest.headers['cache-control']).toBe('public, max-age=300');
    expect(latest.headers['access-control-allow-origin']).toBe('*');
    expect(latest.headers['cross-origin-resource-policy']).toBe('cross-origin');
    const source = latest.body as Buffer;
    const gzipped = gzipSync(source).length;
    process.stdout.write(`widget.js: ${source.length} bytes, ${gzipped} bytes gzipped\n`);
    expect(gzipped).toBeLessThan(GZIP_BUDGET);

    // Browsers get it gzipped; the bytes are the same.
    const compressed = await app()
      .http()
      .get('/embed/v1/widget.js')
      .set('Accept-Encoding', 'gzip, deflate, br')
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(compressed.headers['content-encoding']).toBe('gzip');
    expect(compressed.headers['vary']).toMatch(/Accept-Encoding/i);

    const manifest = await app().http().get('/embed/v1/widget.json');
    expect(manifest.status).toBe(200);
    expect(manifest.body).toEqual({
      version: expect.stringMatching(/^[0-9a-f]{16}$/),
      url: `${base}/embed/v1/widget.js`,
      versioned_url: `${base}/embed/v1/widget.${manifest.body.version}.js`,
      integrity: `sha384-${createHash('sha384').update(source).digest('base64')}`,
      bytes: source.length,
      gzip_bytes: expect.any(Number),
    });
    expect(manifest.body.gzip_bytes).toBeLessThan(GZIP_BUDGET);

    const versionedPath = new URL(manifest.body.versioned_url).pathname;
    const pinned = await app().http().get(versionedPath).set('Accept-Encoding', 'identity');
    expect(pinned.status).toBe(200);
    expect(pinned.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(pinned.text)).toEqual(source);
    expect(gunzipSync(gzipSync(source))).toEqual(source);

    // Revalidation is a 304; another build's URL does not exist.
    const etag = String(pinned.headers['etag']);
    const again = await app()
      .http()
      .get(versionedPath)
      .set('Accept-Encoding', 'identity')
      .set('If-None-Match', etag);
    expect(again.status).toBe(304);
    const stale = await app().http().get('/embed/v1/widget.0123456789abcdef.js');
    expect(stale.status).toBe(404);
    expect(stale.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  // ---------------------------------------------------------------------------------------------
  // The demo page

  it('the demo page embeds every widget, each showing the demo tenant’s real data', async () => {
    const [cabinet, bonuses, leads, tree, partners] = await Promise.all([
      embed('cabinet'),
      embed('bonuses', { page: 1, page_size: 10 }),
      embed('leads', { page: 1, page_size: 10 }),
      embed('referral-tree', { max_depth: 3 }),
      embed('partners', { page: 1, page_size: 10 }),
    ]);
    // A realistic network: dozens of members, leads and bonuses in every state.
    expect(tree.total_downline).toBeGreaterThanOrEqual(20);
    expect(tree.hit_depth_cap).toBe(true);
    expect(leads.pagination.total).toBeGreaterThan(20);
    expect(bonuses.pagination.total).toBeGreaterThan(20);
    for (const status of ['new', 'processed', 'converted', 'rejected']) {
      expect((await embed('leads', { status })).pagination.total).toBeGreaterThan(0);
    }
    const bonusStates = await app().db.query<{ status: string }[]>(
      'SELECT DISTINCT status FROM bonuses WHERE tenant_id = $1',
      [demo.tenantId],
    );
    expect(bonusStates.map((r) => r.status).sort()).toEqual([
      'approved',
      'pending',
      'rejected',
      'reversed',
    ]);
    expect(partners.partners.some((p: Json) => !p.is_active)).toBe(true);
    expect(cabinet.kpi.clicks_count).toBeGreaterThan(0);

    const context = await newContext();
    const page = await openDemo(context);
    const headers = (await page.goto(`${base}/demo`))!.headers();
    expect(headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect(headers['cross-origin-opener-policy']).toBeUndefined();
    expect(await page.locator('[data-service-widget]').count()).toBe(ALL_WIDGETS.length);
    for (const name of ALL_WIDGETS) {
      const host = widget(page, name);
      expect(await host.evaluate((el) => el.shadowRoot?.mode)).toBe('open');
    }

    // Cabinet: KPIs, the 5 newest leads, the 10 newest transactions.
    const cab = await settled(page, 'cabinet');
    expect(await cab.locator('[data-field=display-name]').textContent()).toBe(
      cabinet.user.display_name,
    );
    expect(await cab.locator('[data-kpi=leads] b').textContent()).toBe(
      String(cabinet.kpi.leads_count),
    );
    expect(await cab.locator('[data-kpi=clicks] b').textContent()).toBe(
      String(cabinet.kpi.clicks_count),
    );
    expect(await cab.locator('[data-kpi=cleared] b').textContent()).toBe(
      cabinet.kpi.cleared_formatted,
    );
    expect(await cab.locator('[data-kpi=pending] b').textContent()).toBe(
      cabinet.kpi.pending_formatted,
    );
    expect(await texts(cab.locator('[data-list=leads] [data-field=name]'))).toEqual(
      cabinet.recent_leads.map((l: Json) => l.contact_name),
    );
    expect(await attrs(cab.locator('[data-list=transactions] li'), 'data-bonus-id')).toEqual(
      cabinet.transactions.map((b: Json) => b.bonus_id),
    );
    expect(await texts(cab.locator('[data-list=transactions] .amt'))).toEqual(
      cabinet.transactions.map((b: Json) => b.amount_formatted),
    );
    await widgetScreenshot(widget(page, 'cabinet'), 'cabinet');

    // Bonuses: totals and the first page of transactions.
    const bon = await settled(page, 'bonuses');
    expect(await bon.locator('[data-kpi=cleared] b').textContent()).toBe(
      bonuses.totals.cleared_formatted,
    );
    expect(await bon.locator('[data-kpi=pending] b').textContent()).toBe(
      bonuses.totals.pending_formatted,
    );
    expect(await attrs(bon.locator('[data-list=transactions] li'), 'data-bonus-id')).toEqual(
      bonuses.transactions.map((b: Json) => b.bonus_id),
    );
    expect(await bon.locator('[data-part=page]').textContent()).toBe(
      `Страница 1 из ${bonuses.pagination.total_pages}`,
    );
    await widgetScreenshot(widget(page, 'bonuses'), 'bonuses');

    // Leads: the first page with its statuses in Russian.
    const led = await settled(page, 'leads');
    expect(await texts(led.locator('[data-list=leads] [data-field=name]'))).toEqual(
      leads.leads.map((l: Json) => l.contact_name),
    );
    expect(await texts(led.locator('[data-list=leads] .chip'))).toEqual(
      leads.leads.map((l: Json) => l.status_human),
    );
    expect(await led.locator('select[name=status]').inputValue()).toBe('all');
    await widgetScreenshot(widget(page, 'leads'), 'leads');

    // Referral tree: the root and its first line; the depth cap is stated.
    const tr = await settled(page, 'referral-tree');
    expect(await tr.locator('li[data-depth="0"] > .node [data-field=name]').textContent()).toBe(
      tree.root.display_name,
    );
    expect(await attrs(tr.locator('li[data-depth="1"]'), 'data-user-id')).toEqual(
      tree.levels[1].map((n: Json) => n.user_id),
    );
    expect(await tr.locator('[data-part=downline]').textContent()).toContain(
      String(tree.total_downline),
    );
    expect(await tr.locator('[data-part=depth-cap]').textContent()).toContain('3');
    await widgetScreenshot(widget(page, 'referral-tree'), 'referral-tree');

    // Partners: the first line, newest first, the deactivated one marked.
    const par = await settled(page, 'partners');
    expect(await attrs(par.locator('[data-list=partners] > li'), 'data-user-id')).toEqual(
      partners.partners.map((p: Json) => p.user_id),
    );
    expect(await par.locator('[data-part=inactive]').count()).toBe(
      partners.partners.filter((p: Json) => !p.is_active).length,
    );
    await widgetScreenshot(widget(page, 'partners'), 'partners');

    // "Get my link" waits for a click; the lead form needs a ref in the page's query.
    const link = await settled(page, 'referral-link', ['idle']);
    expect(await link.locator('[data-action=get-link]').textContent()).toBe('Получить ссылку');
    const form = await settled(page, 'lead-form', ['empty']);
    expect(await form.locator('[data-part=no-ref]').isVisible()).toBe(true);
    expect(await page.locator('[data-demo=short-link]').getAttribute('href')).toBe(demo.shortUrl);

    // The same page in English.
    const en = await openDemo(context, '/demo?lang=en');
    const enCab = await settled(en, 'cabinet');
    expect(await enCab.locator('h2').textContent()).toBe('Partner cabinet');
    expect(await enCab.locator('[data-kpi=leads] span').textContent()).toBe('Leads');
    expect(cspViolations).toEqual([]);
    await context.close();
  }, 60_000);

  it('paging, the status filter and the tree’s levels work', async () => {
    const context = await newContext();
    const page = await openDemo(context);

    // Bonuses: next page, then back.
    const bon = await settled(page, 'bonuses');
    const [first, second] = await Promise.all([
      embed('bonuses', { page: 1, page_size: 10 }),
      embed('bonuses', { page: 2, page_size: 10 }),
    ]);
    const ids = () => attrs(bon.locator('[data-list=transactions] li'), 'data-bonus-id');
    await bon.locator('[data-action=next]').click();
    await until(
      () => bon.locator('[data-part=page]').textContent(),
      `Страница 2 из ${first.pagination.total_pages}`,
    );
    expect(await ids()).toEqual(second.transactions.map((b: Json) => b.bonus_id));
    await bon.locator('[data-action=prev]').click();
    await until(
      ids,
      first.transactions.map((b: Json) => b.bonus_id),
    );
    expect(await bon.locator('[data-action=prev]').isDisabled()).toBe(true);

    // Leads: each status filter shows exactly that status; paging within "all".
    const led = await settled(page, 'leads');
    const leadIds = () => attrs(led.locator('[data-list=leads] li'), 'data-lead-id');
    for (const status of ['converted', 'rejected', 'processed', 'new']) {
      const expected = await embed('leads', { status, page: 1, page_size: 10 });
      await led.locator('select[name=status]').selectOption(status);
      await until(
        leadIds,
        expected.leads.map((l: Json) => l.id),
      );
      expect(new Set(await attrs(led.locator('[data-list=leads] li'), 'data-status'))).toEqual(
        new Set([status]),
      );
      expect(await led.locator('[data-part=total]').textContent()).toBe(
        `Лиды: ${expected.pagination.total}`,
      );
      if (status === 'converted') await widgetScreenshot(widget(page, 'leads'), 'leads-converted');
    }
    await led.locator('select[name=status]').selectOption('all');
    const all2 = await embed('leads', { page: 2, page_size: 10 });
    await settled(page, 'leads');
    await led.locator('[data-action=next]').click();
    await until(
      leadIds,
      all2.leads.map((l: Json) => l.id),
    );

    // Tree: expand every level, then look deeper than the cap.
    const tr = await settled(page, 'referral-tree');
    const deep = await embed('referral-tree', { max_depth: 3 });
    expect(await tr.locator('li[data-depth="2"]').count()).toBe(0); // collapsed below level 1
    await tr.locator('[data-action=expand]').click();
    for (const depth of [1, 2, 3]) {
      expect(await tr.locator(`li[data-depth="${depth}"]`).count()).toBe(deep.levels[depth].length);
    }
    await widgetScreenshot(widget(page, 'referral-tree'), 'referral-tree-expanded');
    await tr.locator('[data-action=collapse]').click();
    const withChildren = tr.locator('li[data-depth="1"][aria-expanded=false]').first();
    await withChildren.locator('[data-action=toggle]').first().click();
    expect(
      await tr.locator('li[data-depth="1"][aria-expanded=true] li[data-depth="2"]').count(),
    ).toBeGreaterThan(0);
    const full = await embed('referral-tree', { max_depth: 6 });
    expect(full.hit_depth_cap).toBe(false);
    await tr.locator('[data-action=deeper]').click();
    await until(
      async () => (await tr.locator('[data-part=depth]').textContent())?.includes('6'),
      true,
    );
    await tr.locator('[data-action=expand]').click();
    expect(await tr.locator('li[data-depth="6"]').count()).toBe(full.levels[6].length);
    expect(await tr.locator('[data-part=depth-cap]').count()).toBe(0);
    await context.close();
  }, 60_000);

  it('"Get my link" completes the popup flow and shows the short link; the token stays in memory', async () => {
    const context = await newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const page = await openDemo(context);
    const { shortUrl, note } = await getMyLink(page);
    expect(shortUrl).toMatch(new RegExp(`^${base.replace(/\./g, '\\.')}/s/[A-Za-z0-9]{8}$`));
    expect(note).toBe('created');
    const code = shortUrl.split('/').pop();
    const rows = await app().db.query<{ member_id: string; target_id: string }[]>(
      'SELECT member_id, target_id FROM deeplinks WHERE tenant_id = $1 AND code = $2',
      [demo.tenantId, code],
    );
    expect(rows).toEqual([{ member_id: demo.partner.memberId, target_id: 'spring-sale' }]);

    // Copy puts the link on the clipboard.
    const root = box(page, 'referral-link');
    await root.locator('[data-action=copy]').click();
    await until(() => root.locator('[data-action=copy]').textContent(), 'Скопировано');
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(shortUrl);

    // Nothing of the token is kept where it would outlive the page.
    const stored = await page.evaluate<Json>(
      '({ local: localStorage.length, session: sessionStorage.length, cookie: document.cookie })',
    );
    expect(stored).toEqual({ local: 0, session: 0, cookie: '' });
    await widgetScreenshot(widget(page, 'referral-link'), 'referral-link');

    // Signing in cleared claim_required.
    expect((await embed('cabinet')).user.claim_required).toBe(false);
    expect(cspViolations).toEqual([]);
    await context.close();
  }, 60_000);

  it('the lead form takes the ref from the page and creates a lead, shown in the leads widget', async () => {
    const context = await newContext();
    const page = await context.newPage();
    // A visitor follows the partner's short link: it leads back to /demo with ?ref=.
    await page.goto(demo.shortUrl!);
    const landed = new URL(page.url());
    expect(landed.pathname).toBe('/demo');
    expect(landed.searchParams.get('ref')).toMatch(/^[\w-]+\.[\w-]+$/);

    const form = await settled(page, 'lead-form');
    await settled(page, 'leads');
    const name = `Виктория Тестова ${randomBytes(3).toString('hex')}`;
    await form.locator('input[name=name]').fill(name);
    await form.locator('[data-action=submit]').click();
    // Email or phone is required: the form says so before sending anything.
    expect(await form.locator('[data-part=error]').textContent()).toBe(
      'Укажите email или телефон.',
    );
    await form.locator('input[name=email]').fill(`${randomBytes(4).toString('hex')}@example.com`);
    await form.locator('input[name=phone]').fill('+7 900 555-12-34');
    await widgetScreenshot(widget(page, 'lead-form'), 'lead-form');
    await form.locator('[data-action=submit]').click();
    await settled(page, 'lead-form', ['sent']);
    expect(await form.locator('[data-part=sent]').textContent()).toBe(
      'Спасибо! Заявка отправлена.',
    );
    await widgetScreenshot(widget(page, 'lead-form'), 'lead-form-sent');

    const stored = await app().db.query<{ source: string; referrer_member_id: string }[]>(
      'SELECT source, referrer_member_id FROM leads WHERE tenant_id = $1 AND contact_name = $2',
      [demo.tenantId, name],
    );
    expect(stored).toEqual([{ source: 'lead_form', referrer_member_id: demo.partner.memberId }]);

    // The leads widget on the same page refreshes; so does a fresh page.
    const led = box(page, 'leads');
    await until(() => led.locator('[data-field=name]').first().textContent(), name);
    const fresh = await openDemo(context);
    const again = await settled(fresh, 'leads');
    expect(await again.locator('[data-field=name]').first().textContent()).toBe(name);
    expect(
      await (await settled(fresh, 'cabinet')).locator('[data-field=name]').first().textContent(),
    ).toBe(name);
    await context.close();
  }, 60_000);

  // ---------------------------------------------------------------------------------------------
  // On tenants' own sites

  it('on a tenant’s own origin: pinned with integrity, themed, untouched by the host CSS; the link is reused', async () => {
    const manifest = (await app().http().get('/embed/v1/widget.json')).body as Json;
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(
      sitePage({
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
    const cabinet = await embed('cabinet');
    expect(await cab.locator('[data-kpi=leads] b').textContent()).toBe(
      String(cabinet.kpi.leads_count),
    );

    // Paging through the partner list, five at a time.
    const par = await settled(page, 'partners');
    const second = await embed('partners', { page: 2, page_size: 5 });
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

    // "Get my link" from another origin: the popup posts to this allowed opener. Asking twice
    // (here after a reload: the token lived in the page's memory only) gives the same link.
    const first = await getMyLink(page);
    expect(first.shortUrl).toMatch(/\/s\/[A-Za-z0-9]{8}$/);
    await page.reload();
    const second2 = await getMyLink(page); // the service session skips the email step
    expect(second2).toEqual({ shortUrl: first.shortUrl, note: 'reused' });
    expect(await box(page, 'referral-link').locator('[data-part=reused]').textContent()).toBe(
      'This is the link you created before.',
    );
    await widgetScreenshot(widget(page, 'referral-link'), 'referral-link-reused-en');
    expect(cspViolations).toEqual([]);
    await context.close();
  }, 90_000);

  it('loading, empty and error states (an outage can be retried)', async () => {
    const context = await newContext();
    const page = await context.newPage();

    // Loading: hold the cabinet's answer until the widget has shown it is loading.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/embed/v1/data/cabinet/**', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(sitePage({ widgets: ['cabinet'], locale: 'ru' }));
    const loading = await settled(page, 'cabinet', ['loading']);
    expect(await loading.locator('[data-part=loading]').textContent()).toBe('Загрузка…');
    expect(await loading.getAttribute('aria-busy')).toBe('true');
    await widgetScreenshot(widget(page, 'cabinet'), 'state-loading');
    release();
    await settled(page, 'cabinet');
    await page.unroute('**/embed/v1/data/cabinet/**');

    // An outage: the error state with a retry that works once the service answers again.
    await page.route('**/embed/v1/data/leads/**', (route) => route.abort('connectionrefused'));
    await page.goto(sitePage({ widgets: ['leads'] }));
    const failed = await settled(page, 'leads', ['error']);
    expect(await failed.locator('[data-part=error]').getAttribute('data-code')).toBe('network');
    await widgetScreenshot(widget(page, 'leads'), 'state-network-error');
    await page.unroute('**/embed/v1/data/leads/**');
    await failed.locator('[data-action=retry]').click();
    await settled(page, 'leads');

    // Empty: a newcomer with nobody below and nothing earned.
    await page.goto(
      sitePage({
        userId: demo.newcomerMemberId,
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
      sitePage({ userId: 'mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T', widgets: ['cabinet'], locale: 'ru' }),
    );
    const unknown = await settled(page, 'cabinet', ['error']);
    expect(await unknown.locator('[data-part=error]').textContent()).toBe(
      'Участник программы не найден.',
    );
    expect(hints.join('\n')).toContain('404 user_not_found');
    await context.close();
  }, 60_000);

  it('a page on a disallowed origin shows the error state and tells its developer why', async () => {
    const context = await newContext();
    const page = await context.newPage();
    const consoleLines: string[] = [];
    page.on('console', (message: ConsoleMessage) => {
      if (message.type() === 'error') consoleLines.push(message.text());
    });
    await page.goto(
      sitePage(
        { widgets: ['cabinet', 'leads', 'partners', 'referral-link'], locale: 'en' },
        foreignSite,
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
    expect(hint[0]).toContain(foreignSite!.origin);
    expect(hint[0]).toContain(`allowed_origins of tenant "${demo.slug}"`);

    // The API itself refused (no data reached the page): 403 with an empty allow-origin.
    const refused = await app()
      .http()
      .get(`/embed/v1/data/cabinet/${demo.partner.memberId}?tenant=${demo.slug}`)
      .set('Origin', foreignSite!.origin);
    expect(refused.status).toBe(403);
    expect(refused.headers['access-control-allow-origin']).toBe('');
    await context.close();
  }, 60_000);

  it('the demo seeding is idempotent and serialised across processes', async () => {
    const seeder = app().app.get(DemoSeeder);
    const [a, b] = await Promise.all([seeder.ensureDemo(), seeder.ensureDemo()]);
    expect(a).toEqual(demo);
    expect(b).toEqual(demo);
    const [{ count }] = await app().db.query<{ count: number }[]>(
      'SELECT count(*)::int AS count FROM tenants WHERE slug = $1',
      [demo.slug],
    );
    expect(count).toBe(1);
    // The database is not empty, so a start-up would not seed anything new.
    expect(await seeder.seedIfEmpty()).toEqual(demo);
  });
});
