/**
 * The widget browser specs' shared setup (test/e2e/widget/widgets-*.browser; README.md, docs/embedding.md):
 * the service on a loopback port with the SMTP catcher (the popup's sign-in code), the demo tenant
 * seeded through the services, a tenant's own site (allowed) and a foreign one (not), and the
 * widget and Embed Data API reads the specs make. The fields are set by the hooks: read them
 * inside a test.
 */
import { isDeepStrictEqual } from 'node:util';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { DemoSeeder, type DemoInfo } from '../../src/demo/demo-seeder.service';
import { DEMO_LOCK_KEY } from '../../src/demo/demo.repository';
import { adminApi, embedApi } from './api-client';
import { type BrowserSuite, startBrowserSuite } from './browser-suite';
import type { TestApp } from './create-test-app';
import type { SmtpCatcher } from './smtp-catcher';
import { startWidgetSite, type WidgetPageSpec, type WidgetSite } from './widget-site';

export interface Json {
  [key: string]: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it deep-equals `expected` (or `timeoutMs` passes); the last answer is asserted. */
export async function until<T>(
  probe: () => Promise<T>,
  expected: T,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = await probe();
  while (!isDeepStrictEqual(last, expected) && Date.now() < deadline) {
    await sleep(100);
    last = await probe();
  }
  expect(last).toEqual(expected);
}

export const widget = (page: Page, name: string): Locator =>
  page.locator(`[data-service-widget="${name}"]`).first();

/** The widget's root inside its shadow root (Playwright's CSS locators pierce open shadows). */
export const box = (page: Page, name: string): Locator => widget(page, name).locator('.w');

/** The widget's root once it is in one of `states`. */
export async function settled(page: Page, name: string, states = ['ready']): Promise<Locator> {
  const root = box(page, name);
  await root
    .and(page.locator(states.map((s) => `[data-state="${s}"]`).join(', ')))
    .waitFor({ timeout: 10_000 });
  return root;
}

/** Computed style properties of an element (inside a shadow root too). */
export const computed = (locator: Locator, names: string[]) =>
  locator.evaluate((el, props) => {
    const view = globalThis as unknown as {
      getComputedStyle: (e: unknown) => { getPropertyValue: (name: string) => string };
    };
    const style = view.getComputedStyle(el);
    return Object.fromEntries(props.map((p) => [p, style.getPropertyValue(p)]));
  }, names);

export const texts = (locator: Locator) =>
  locator.evaluateAll((els) => els.map((e) => e.textContent));

export const attrs = (locator: Locator, name: string) =>
  locator.evaluateAll((els, attr) => els.map((e) => e.getAttribute(attr)), name);

/**
 * `sites: true` also starts a site of the demo tenant on its own origin (allowed) and a foreign one
 * (not allowed).
 */
export function widgetsSuite(options: { sites?: boolean } = {}) {
  const s = {} as {
    suite: BrowserSuite;
    t: TestApp;
    base: string;
    smtp: SmtpCatcher;
    demo: DemoInfo;
    /** A site of the demo tenant on its own origin, in its allowed_origins (`sites: true`). */
    partnerSite: WidgetSite;
    /** A site on an origin the tenant does not allow (`sites: true`). */
    foreignSite: WidgetSite;
    /** Console lines of every page that mention a Content-Security-Policy violation. */
    cspViolations: string[];
  };

  beforeAll(async () => {
    s.suite = await startBrowserSuite({
      smtp: true,
      env: { MAIL_FROM: 'Referral service <signin@referrals.test>' },
      context: { viewport: { width: 1280, height: 900 } },
      timeoutMs: 30_000,
    });
    ({ t: s.t, base: s.base, smtp: s.smtp, cspViolations: s.cspViolations } = s.suite);
    // The test database is shared by the run's test files (never empty): seed explicitly.
    s.demo = await s.t.app.get(DemoSeeder).ensureDemo();
    if (options.sites) {
      s.partnerSite = await startWidgetSite();
      s.foreignSite = await startWidgetSite();
      s.suite.onClose(() => s.partnerSite.close());
      s.suite.onClose(() => s.foreignSite.close());
      await allowOnDemo(s.partnerSite.origin);
    }
  }, 120_000);

  afterAll(() => s.suite?.close());

  /**
   * Adds `origin` to the demo tenant's allowed_origins through the Admin API, under the demo
   * seeder's lock: another spec file's seeder, adding its own origin at the same moment, would
   * otherwise lose its write or this one.
   */
  async function allowOnDemo(origin: string): Promise<void> {
    await s.t.db.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1)', [DEMO_LOCK_KEY]);
      const admin = adminApi(s.t, s.t.adminToken);
      const current = await admin.getTenant(s.demo.slug);
      expect(current.status).toBe(200);
      const patched = await admin.updateTenant(s.demo.slug, {
        allowed_origins: [...current.body.allowed_origins, origin],
      });
      expect(patched.status).toBe(200);
    });
  }

  /** What the Embed Data API answers the demo page (the widgets must show exactly this). */
  async function embed(
    what: string,
    query: Record<string, string | number> = {},
    memberId = s.demo.partner.memberId,
  ): Promise<Json> {
    const params = new URLSearchParams({ tenant: s.demo.slug, locale: 'ru' });
    for (const [k, v] of Object.entries(query)) params.set(k, String(v));
    const res = await embedApi(s.t, s.base, s.demo.slug).raw(
      'get',
      `/embed/v1/data/${what}/${memberId}?${params.toString()}`,
    );
    expect(res.status).toBe(200);
    return res.body as Json;
  }

  const newContext = () => s.suite.newContext();

  async function openDemo(context: BrowserContext, path = '/demo'): Promise<Page> {
    const page = await context.newPage();
    const response = await page.goto(`${s.base}${path}`);
    expect(response?.status()).toBe(200);
    return page;
  }

  function sitePage(
    spec: Partial<WidgetPageSpec> & { widgets: string[] },
    site: WidgetSite = s.partnerSite,
  ) {
    return site.pageUrl({
      base: s.base,
      tenant: s.demo.slug,
      userId: s.demo.partner.memberId,
      ...spec,
    });
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
      const mail = await s.smtp.take(email);
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
    expect(new URL(popup.url()).searchParams.get('client_id')).toBe(s.demo.slug);
    await signInAndAllow(popup, s.demo.partner.email);
    await settled(page, 'referral-link');
    const shortUrl = await root.locator('[data-field=short-url]').inputValue();
    const note = await root
      .locator('[data-part=reused], [data-part=created]')
      .getAttribute('data-part');
    return { shortUrl, note: note! };
  }

  return Object.assign(s, { embed, newContext, openDemo, sitePage, getMyLink, signInAndAllow });
}
