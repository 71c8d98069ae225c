/**
 * The partner portal (docs/partners.md, "The partner portal") driven as a partner drives it: a
 * real Chromium with JavaScript off signs in with the code the service mailed through real SMTP,
 * then opens every page at desktop (1280 px) and phone (390 px) width. axe-core finds no WCAG 2.2
 * A/AA violation on any of them, no page scrolls sideways, the figures are the Admin API's, and
 * hostile strings in the partner's data are shown as text. Screenshots go to
 * test-output/screenshots (and /work/notes/shots when it exists).
 */
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { DeeplinksService } from '../../../src/deeplinks/deeplinks.service';
import { createLead, registerConversion } from '../../factories/money.factory';
import { admin, approveBonus, runPayouts } from '../../factories/payouts.factory';
import { createTenant, type TestTenant } from '../../factories/tenants.factory';
import { upsertUser, type UpsertedMember } from '../../factories/users.factory';
import { pageWidths } from '../../utils/admin-pages-browser';
import { violations } from '../../utils/axe';
import { screenshot } from '../../utils/browser';
import { type BrowserSuite, startBrowserSuite } from '../../utils/browser-suite';

const HOSTILE = `<script>window.__pwned=1</script>"'><img src=x onerror=alert(1)>`;
const SHOTS = '/work/notes/shots';
const PAGES = ['', '/links', '/referrals', '/earnings', '/payouts', '/notifications'];

describe('partner portal in a real browser, JavaScript off (docs/partners.md)', () => {
  let suite: BrowserSuite | undefined;
  let tenant: TestTenant;
  let partner: UpsertedMember;
  let email: string;
  const s = () => suite!;

  beforeAll(async () => {
    suite = await startBrowserSuite({ smtp: true, timeoutMs: 20_000 });
    const t = s().t;
    tenant = await createTenant(t, {
      display_name: 'Acme Shop',
      locale: 'ru-RU',
      allowed_origins: ['https://shop.example'],
      program: {
        tiers: [
          { tier: 'referrer', percent_bp: 1000 },
          { tier: 'upline_1', percent_bp: 500 },
        ],
      },
      payouts: { minimum_kopecks: 1 },
    });
    email = `anna-${Date.now()}@example.com`;
    partner = await upsertUser(t, tenant.key, { email, full_name: 'Анна Петрова' });
    // A group with a hostile name, the partner in it.
    const group = await t
      .http()
      .post(`/admin/v1/tenants/${tenant.slug}/groups`)
      .set(admin(t))
      .send({ slug: 'vip', name: `VIP ${HOSTILE}` });
    expect(group.status).toBe(201);
    const moved = await t
      .http()
      .post(`/admin/v1/tenants/${tenant.slug}/users/${partner.memberId}/group`)
      .set(admin(t))
      .send({ group_id: group.body.group_id });
    expect(moved.status).toBe(200);
    // Two partners below, one with a hostile name; leads with hostile names, sales, a payout.
    const child = await upsertUser(t, tenant.key, {
      full_name: `Child ${HOSTILE}`,
      referrer_user_id: partner.serviceUserId,
    });
    await upsertUser(t, tenant.key, {
      full_name: 'Grandchild',
      referrer_user_id: child.serviceUserId,
    });
    for (let i = 0; i < 3; i++) {
      const lead = await createLead(t, tenant.key, partner.serviceUserId, {
        contact: { name: `Lead ${i} ${HOSTILE}`, email: `lead${i}@example.org` },
      });
      const conv = await registerConversion(t, tenant.key, {
        lead_id: lead,
        amount_kopecks: 1_234_500 * (i + 1),
        external_order_id: `o-${i}`,
      });
      if (i < 2) {
        const own = conv.cascaded_bonuses.find((b) => b.user_id === partner.serviceUserId);
        await approveBonus(t, tenant.slug, own!.bonus_id);
      }
    }
    const run = await runPayouts(t, tenant.slug);
    expect(run.payouts_count).toBe(1);
    const childLead = await createLead(t, tenant.key, child.serviceUserId);
    await registerConversion(t, tenant.key, {
      lead_id: childLead,
      amount_kopecks: 500_000,
      external_order_id: 'o-child',
    });
  }, 120_000);
  afterAll(() => s().close());

  /** Signs in through the pages: email, the mailed code, Home. */
  async function signIn(page: Page, shots?: string): Promise<void> {
    await page.goto(`${s().base}/p/${tenant.slug}`);
    await page.locator('input[type=email]').fill(email);
    if (shots) await shot(page, `${shots}-signin`);
    await page.locator('[data-action=submit]').click();
    const code = page.locator('input[autocomplete=one-time-code]');
    await code.waitFor();
    const mail = await s().smtp.take(email);
    expect(mail.code).toMatch(/^\d{6}$/);
    // The mail is in the page's language (the tenant's: Russian).
    expect(mail.subject).toBe(`Кабинет партнёра Acme Shop: код ${mail.code}`);
    await code.fill(mail.code!);
    if (shots) await shot(page, `${shots}-code`);
    await page.locator('[data-action=submit]').click();
    await page.locator('[data-metric=available]').waitFor();
  }

  async function shot(page: Page, name: string): Promise<void> {
    const path = await screenshot(page, `portal-${name}`);
    if (existsSync(SHOTS)) copyFileSync(path, join(SHOTS, `portal-${name}.png`));
  }

  async function adminUser() {
    const res = await s()
      .t.http()
      .get(`/admin/v1/tenants/${tenant.slug}/users/${partner.memberId}`)
      .set(admin(s().t));
    expect(res.status).toBe(200);
    return res.body as {
      payout_balances: {
        currency: string;
        available_kopecks: number;
        in_payout_kopecks: number;
        paid_kopecks: number;
      }[];
    };
  }

  it.each([1280, 390])(
    'signs in by mailed code and shows every page at %ipx, accessible and escaped',
    async (width) => {
      const name = width > 600 ? 'desktop' : 'phone';
      const context: BrowserContext = await s().newContext({
        viewport: { width, height: 900 },
        javaScriptEnabled: false,
      });
      const page = await context.newPage();
      await signIn(page, name);

      // Home: the Admin API's figures, formatted as the tenant's locale writes them.
      const balance = (await adminUser()).payout_balances.find((b) => b.currency === 'RUB')!;
      const rub = (k: number) =>
        new Intl.NumberFormat('ru-RU', {
          style: 'currency',
          currency: 'RUB',
          minimumFractionDigits: 2,
          maximumFractionDigits: 2,
        }).format(k / 100);
      expect(await page.locator('[data-metric=available]').textContent()).toBe(
        rub(balance.available_kopecks),
      );
      expect(await page.locator('[data-metric=in_payout]').textContent()).toBe(
        rub(balance.in_payout_kopecks),
      );
      expect(await page.locator('[data-metric=paid]').textContent()).toBe(
        rub(balance.paid_kopecks),
      );
      expect(balance.in_payout_kopecks).toBeGreaterThan(0);
      expect(await page.locator('[data-count=leads]').textContent()).toBe('3');
      expect(await page.locator('[data-count=conversions]').textContent()).toBe('3');
      expect(await page.locator('svg[data-chart=activity]').count()).toBe(1);
      expect(await page.locator('[data-field=group]').textContent()).toContain(`VIP ${HOSTILE}`);

      // Links: make one to a page of the shop; it is listed with its QR code.
      await page.goto(`${s().base}/p/${tenant.slug}/links`);
      await page.locator('#target').fill(`https://shop.example/catalog?item=${width}`);
      await page.locator('#note').fill(`Note ${HOSTILE}`);
      await page.locator('form[data-form=link] [data-action=submit]').click();
      await page.locator('[role=status]').waitFor();
      const row = page.locator('[data-link]').first();
      expect(await row.locator('svg.qr path').count()).toBe(1);
      expect(await row.locator('[data-note]').textContent()).toBe(`Note ${HOSTILE}`);
      const short = await row.locator('input[data-copy]').inputValue();
      expect(short).toMatch(/\/s\/[A-Za-z0-9]{8}$/);
      // A click on it counts on the link and in Home's last 30 days.
      const click = await s().t.http().get(new URL(short).pathname);
      expect(click.status).toBe(302);
      await s().t.app.get(DeeplinksService).flushClicks();
      await page.goto(`${s().base}/p/${tenant.slug}/links`);
      expect(await row.locator('[data-clicks]').getAttribute('data-clicks')).toBe('1');
      await page.goto(`${s().base}/p/${tenant.slug}`);
      expect(await page.locator('[data-count=clicks]').textContent()).toBe(width > 600 ? '1' : '2');
      await page.goto(`${s().base}/p/${tenant.slug}/links`);
      // A site that is not the shop's: refused on the form, nothing made.
      await page.locator('#target').fill('https://evil.example/');
      await page.locator('form[data-form=link] [data-action=submit]').click();
      await page.locator('#target-error').waitFor();
      expect(await page.locator('[data-link]').count()).toBe(width > 600 ? 1 : 2);

      // Every page: no sideways scroll, hostile strings are text, a screenshot.
      for (const path of PAGES) {
        await page.goto(`${s().base}/p/${tenant.slug}${path}`);
        const widths = await pageWidths(page);
        expect(widths.scrollWidth).toBeLessThanOrEqual(widths.innerWidth);
        expect(await page.locator('img[src=x]').count()).toBe(0);
        await shot(page, `${path.slice(1) || 'home'}-${name}`);
      }

      // axe: the same pages in a context with this session (script allowed only for axe).
      const axeContext = await s().newContext({
        viewport: { width, height: 900 },
        bypassCSP: true,
      });
      await axeContext.addCookies(await context.cookies());
      const axePage = await axeContext.newPage();
      const found: string[] = [];
      for (const lang of ['ru', 'en']) {
        for (const path of PAGES) {
          const url = `${s().base}/p/${tenant.slug}${path}?lang=${lang}`;
          const res = await axePage.goto(url);
          expect(res?.status()).toBe(200);
          expect(await axePage.evaluate('window.__pwned')).toBeUndefined();
          found.push(
            ...(await violations(axePage, ['wcag22a', 'wcag22aa'])).map((v) => `${url}: ${v}`),
          );
        }
      }
      expect(found).toEqual([]);
    },
    180_000,
  );
});
