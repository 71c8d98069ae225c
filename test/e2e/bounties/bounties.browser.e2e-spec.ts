/**
 * Bounties in Chromium (docs/console.md, docs/partners.md): the console's page (a manager creates a
 * bounty with the form, a refused form shows what is wrong) and the partner portal's Home with the
 * partner's progress, at desktop and phone widths, in English and Russian; axe-core finds no WCAG 2
 * A/AA violation. Screenshots go to test-output/screenshots/ (and NOTES_SHOTS, when set).
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { createLead } from '../../factories/money.factory';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { upsertUser, type UpsertedMember } from '../../factories/users.factory';
import { clickAndWait, signIn } from '../../utils/admin-pages-browser';
import { adminApi, federationApi } from '../../utils/api-client';
import { violations } from '../../utils/axe';
import { screenshot } from '../../utils/browser';
import { type BrowserSuite, startBrowserSuite } from '../../utils/browser-suite';

describe('bounties in the browser', () => {
  let suite: BrowserSuite | undefined;
  let org: TestTenant;
  let manager: string;
  let partner: UpsertedMember;
  const email = 'petra@example.com';
  const s = () => suite!;
  const HOSTILE = `<script>alert(1)</script>"'`;

  beforeAll(async () => {
    suite = await startBrowserSuite({ smtp: true, timeoutMs: 20_000 });
    const t = suite.t;
    org = await createTenant(t, { locale: 'ru-RU', display_name: 'Acme Shop' });
    manager = await createStaffToken(t, org.slug, 'manager');
    partner = await upsertUser(t, org.key, { email, full_name: `Petra ${HOSTILE}` });
    const created = await adminApi(t, manager).raw(
      'post',
      `/admin/v1/tenants/${org.slug}/bounties`,
      {
        name: `Sprint ${HOSTILE}`,
        metric: 'conversions',
        threshold: 3,
        amount_kopecks: 500_000,
        currency: 'RUB',
        starts_at: new Date(Date.now() - 60_000).toISOString(),
      },
    );
    expect(created.status).toBe(201);
    for (let i = 0; i < 2; i++) {
      const leadId = await createLead(t, org.key, partner.serviceUserId, {
        contact: { name: 'Customer', email: `c${i}@example.org` },
      });
      const sold = await federationApi(t, org.key).registerConversion({
        lead_id: leadId,
        amount_kopecks: 10_000,
        currency: 'RUB',
        external_order_id: `browser-${i}`,
      });
      expect(sold.status).toBe(200);
    }
  }, 120_000);
  afterAll(() => suite?.close());

  async function shot(page: Page, name: string): Promise<void> {
    const path = await screenshot(page, `bounties-${name}`);
    const notes = process.env.NOTES_SHOTS;
    if (notes) {
      mkdirSync(notes, { recursive: true });
      copyFileSync(path, join(notes, `bounties-${name}.png`));
    }
  }

  it.each([1280, 390])(
    'the console page and the portal at %ipx: no axe violation',
    async (width) => {
      const lang = width > 600 ? 'en' : 'ru';
      const found: string[] = [];
      const axe = async (page: Page) =>
        found.push(...(await violations(page)).map((v) => `${page.url()}: ${v}`));

      const staff = await (
        await s().newContext({ viewport: { width, height: 900 }, bypassCSP: true })
      ).newPage();
      await signIn(staff, s().base, manager);
      await staff.goto(`${s().base}/org/${org.slug}/bounties?lang=${lang}`);
      const sprint = staff.locator('section.bounty').filter({ hasText: 'Sprint' }).first();
      expect(await sprint.locator('h2').textContent()).toBe(`Sprint ${HOSTILE}`);
      expect(await sprint.locator('tbody tr').count()).toBe(1);
      await axe(staff);
      await shot(staff, `console-${width}`);

      // A refused form: what is wrong shows above the form.
      const form = staff.locator('form[action$="/bounties"]');
      await form.locator('input[name=name]').fill(`Winter ${width}`);
      await form.locator('input[name=threshold]').fill('0');
      await form.locator('input[name=amount]').fill('1000');
      await form.locator('input[name=starts_at]').fill('2026-12-01T10:00');
      await clickAndWait(staff, form.locator('[data-action=create-bounty]'));
      expect(await staff.locator('[role=alert]').textContent()).toContain('threshold');
      await axe(staff);
      await shot(staff, `console-error-${width}`);

      await form.locator('input[name=name]').fill(`Winter ${width}`);
      await form.locator('input[name=threshold]').fill('5');
      await form.locator('input[name=amount]').fill('1000,50');
      await form.locator('input[name=starts_at]').fill('2026-12-01T10:00');
      await clickAndWait(staff, form.locator('[data-action=create-bounty]'));
      expect(staff.url()).toContain('notice=created');
      expect(
        await staff
          .locator('section.bounty')
          .filter({ hasText: `Winter ${width}` })
          .count(),
      ).toBe(1);

      const portal = await (
        await s().newContext({ viewport: { width, height: 900 }, bypassCSP: true })
      ).newPage();
      await portal.goto(`${s().base}/p/${org.slug}?lang=${lang}`);
      await portal.locator('input[type=email]').fill(email);
      await portal.locator('[data-action=submit]').click();
      const code = portal.locator('input[autocomplete=one-time-code]');
      await code.waitFor();
      await code.fill((await s().smtp.take(email)).code!);
      await portal.locator('[data-action=submit]').click();
      await portal.locator('[data-section=bounties]').waitFor();
      const item = portal.locator('[data-section=bounties] li').filter({ hasText: 'Sprint' });
      expect(await item.locator('strong').first().textContent()).toBe(`Sprint ${HOSTILE}`);
      expect(await item.locator('progress').getAttribute('value')).toBe('2');
      await axe(portal);
      await shot(portal, `portal-${width}`);

      expect(found).toEqual([]);
      expect(s().cspViolations).toEqual([]);
    },
    120_000,
  );
});
