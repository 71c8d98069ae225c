/**
 * Accessibility of the program console and the widgets (docs/console.md): axe-core, a maintained WCAG
 * checker, runs in Chromium on every console page (Russian and English, desktop and phone
 * width) and on /demo with every widget rendered (their Shadow DOMs included), and finds no
 * WCAG 2 A or AA violation.
 */
import type { BrowserContext } from 'playwright-core';
import { DemoSeeder } from '../../../src/demo/demo-seeder.service';
import { createLead, registerConversion } from '../../factories/money.factory';
import { createTenant, type TestTenant } from '../../factories/tenants.factory';
import { createChain } from '../../factories/users.factory';
import { signIn } from '../../utils/admin-pages-browser';
import { type BrowserSuite, startBrowserSuite } from '../../utils/browser-suite';
import { violations } from '../../utils/axe';

describe('accessibility: axe-core finds no WCAG 2 A/AA violation (docs/console.md)', () => {
  let suite: BrowserSuite | undefined;
  let org: TestTenant;
  let partnerId: string;
  const s = () => suite!;

  beforeAll(async () => {
    suite = await startBrowserSuite({ timeoutMs: 20_000 });
    const t = suite.t;
    org = await createTenant(t, { locale: 'ru-RU' });
    const chain = await createChain(t, org.key, 3);
    partnerId = chain[1].memberId;
    for (let i = 0; i < 3; i++) {
      const lead = await createLead(t, org.key, chain[2].serviceUserId);
      await registerConversion(t, org.key, {
        lead_id: lead,
        amount_kopecks: 90_000 * (i + 1),
        external_order_id: `a11y-${i}`,
      });
    }
  }, 120_000);
  afterAll(() => suite?.close());

  async function context(width: number): Promise<BrowserContext> {
    // axe is added as a script tag: the pages' CSP (nonces only) would refuse it.
    return s().newContext({ viewport: { width, height: 900 }, bypassCSP: true });
  }

  it.each([1280, 390])(
    'every console page at %ipx, in Russian and English',
    async (width) => {
      const ctx = await context(width);
      const page = await ctx.newPage();
      await signIn(page, s().base, s().t.adminToken);
      const found: string[] = [];
      // Russian first (the tenant's), then English (remembered after ?lang=en).
      for (const lang of width > 600 ? ['ru', 'en'] : ['ru']) {
        for (const path of [
          `/org/${org.slug}?lang=${lang}`,
          `/org/${org.slug}?from=2026-01-01&to=2026-03-31`,
          `/org/${org.slug}/partners?q=member`,
          `/org/${org.slug}/partners/${partnerId}?notice=deactivated`,
        ]) {
          const res = await page.goto(`${s().base}${path}`);
          expect(res?.status()).toBe(200);
          // The daily table is folded away: open it so that it is checked too.
          await page
            .locator('details')
            .evaluateAll((els) => els.forEach((d) => d.setAttribute('open', '')));
          found.push(...(await violations(page)).map((v) => `${path}: ${v}`));
        }
      }
      expect(found).toEqual([]);
    },
    240_000,
  );

  it('/demo with every widget rendered', async () => {
    const demo = await s().t.app.get(DemoSeeder).ensureDemo();
    expect(demo.slug).toBeTruthy();
    const ctx = await context(1280);
    const page = await ctx.newPage();
    const found: string[] = [];
    for (const path of ['/demo', '/demo?lang=en']) {
      await page.goto(`${s().base}${path}`);
      // Every widget has rendered its data (not a skeleton): its shadow root holds content.
      await page.waitForFunction(
        () => {
          const hosts = Array.from(document.querySelectorAll('[data-service-widget]'));
          return (
            hosts.length >= 7 &&
            hosts.every((h) => (h.shadowRoot?.textContent ?? '').trim().length > 20) &&
            !hosts.some((h) => h.shadowRoot?.querySelector('[aria-busy=true], .skeleton'))
          );
        },
        undefined,
        { timeout: 20_000 },
      );
      found.push(...(await violations(page)).map((v) => `${path}: ${v}`));
    }
    expect(found).toEqual([]);
  }, 240_000);
});
