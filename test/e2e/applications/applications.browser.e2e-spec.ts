/**
 * docs/partners.md, "Applications", in Chromium: the join form (with JavaScript off: plain forms),
 * its errors, the mailed link's confirmation page and the console's applications page, at desktop
 * and phone widths, in English and Russian; axe-core finds no WCAG 2 A/AA violation on any of
 * them. Screenshots go to test-output/screenshots/ (and NOTES_SHOTS, when set).
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { signRef } from '../../../src/members/signed-ref';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { clickAndWait, signIn } from '../../utils/admin-pages-browser';
import { adminApi } from '../../utils/api-client';
import { violations } from '../../utils/axe';
import { screenshot } from '../../utils/browser';
import { type BrowserSuite, startBrowserSuite } from '../../utils/browser-suite';

describe('partner applications in the browser', () => {
  let suite: BrowserSuite | undefined;
  let org: TestTenant;
  let manager: string;
  let ref: string;
  const s = () => suite!;
  const HOSTILE = `<script>alert(1)</script>"'`;

  beforeAll(async () => {
    suite = await startBrowserSuite({ smtp: true, timeoutMs: 20_000 });
    const t = suite.t;
    org = await createTenant(t, { locale: 'ru-RU', display_name: 'Acme Shop' });
    manager = await createStaffToken(t, org.slug, 'manager');
    const [row] = await t.db.query(
      `SELECT id FROM groups WHERE tenant_id = $1 AND slug = 'default'`,
      [org.orgId],
    );
    const open = await adminApi(t, manager).raw(
      'patch',
      `/admin/v1/tenants/${org.slug}/groups/${row.id}`,
      {
        name: 'Bloggers',
        signup: {
          enabled: true,
          fields: [
            { name: 'site', label: 'Your site', type: 'url', required: true },
            {
              name: 'channel',
              label: 'Main channel',
              type: 'select',
              required: true,
              options: ['Blog', 'YouTube', 'Telegram'],
            },
            { name: 'about', label: 'About your audience', type: 'textarea', required: false },
          ],
        },
      },
    );
    expect(open.status).toBe(200);
    const recruiter = await upsertUser(t, org.key, { full_name: 'Rita Recruiter' });
    ref = signRef(
      { t: org.orgId, r: recruiter.serviceUserId, d: 'dl_01JD0Z6V2Y8K3M4N5P6Q7R8S9T' },
      t.config.refSigningSecret,
    );
  }, 120_000);
  afterAll(() => suite?.close());

  async function shot(page: Page, name: string): Promise<void> {
    const path = await screenshot(page, `apply-${name}`);
    const notes = process.env.NOTES_SHOTS;
    if (notes) {
      mkdirSync(notes, { recursive: true });
      copyFileSync(path, join(notes, `apply-${name}.png`));
    }
  }

  async function axe(page: Page, found: string[]): Promise<void> {
    found.push(...(await violations(page)).map((v) => `${page.url()}: ${v}`));
  }

  it.each([1280, 390])(
    'join, confirm and approve at %ipx: no script needed, no axe violation',
    async (width) => {
      const lang = width > 600 ? 'en' : 'ru';
      const email = `applicant-${width}@example.com`;
      const found: string[] = [];
      // The applicant's browser runs no script at all; axe needs one, so it reads a second page.
      const applicant = await (
        await s().newContext({ viewport: { width, height: 900 }, javaScriptEnabled: false })
      ).newPage();
      const checker = await (
        await s().newContext({ viewport: { width, height: 900 }, bypassCSP: true })
      ).newPage();
      const check = async (url: string, name: string) => {
        await checker.goto(url);
        await axe(checker, found);
        await shot(checker, `${name}-${width}`);
      };

      const joinUrl = `${s().base}/p/${org.slug}/join?lang=${lang}&ref=${encodeURIComponent(ref)}`;
      await applicant.goto(joinUrl);
      await check(joinUrl, 'join');
      expect(await applicant.locator('form[data-form=application] select').count()).toBe(1);
      expect(await applicant.locator('main').textContent()).toContain('Rita Recruiter');

      // Sent with a missing answer: the form again, its errors beside their fields.
      const form = applicant.locator('form[data-form=application]');
      await form.locator('input[name=full_name]').fill(HOSTILE);
      await form.locator('input[type=email]').fill(email);
      await clickAndWait(applicant, form.locator('[data-action=submit]'));
      expect(await applicant.locator('[aria-invalid=true]').count()).toBe(2);
      expect(await applicant.locator('input[name=full_name]').inputValue()).toBe(HOSTILE);
      // The checker sees the same refused form (its own cookie and token).
      await checker.goto(joinUrl);
      const checkerForm = checker.locator('form[data-form=application]');
      await checkerForm.locator('input[name=full_name]').fill('x');
      await clickAndWait(checker, checkerForm.locator('[data-action=submit]'));
      await axe(checker, found);
      await shot(checker, `join-errors-${width}`);

      await form.locator('input[name="answers.site"]').fill('https://blog.example');
      await form.locator('select[name="answers.channel"]').selectOption('YouTube');
      await form.locator('textarea[name="answers.about"]').fill(`Readers ${HOSTILE}`);
      await clickAndWait(applicant, form.locator('[data-action=submit]'));
      expect(await applicant.locator('[role=status]').textContent()).toMatch(
        lang === 'en' ? /confirm your application/ : /подтверждения заявки/,
      );
      await shot(applicant, `sent-${width}`);

      const mail = await s().smtp.take(email);
      const link = /http:\/\/\S+\/join\/confirm\?token=[A-Za-z0-9_-]+/.exec(mail.text)![0];
      await applicant.goto(link);
      expect(await applicant.locator('[data-field=full_name]').textContent()).toBe(HOSTILE);
      expect(await applicant.locator('[data-field=group]').textContent()).toBe('Bloggers');
      expect(await applicant.locator('[data-field=recruiter]').textContent()).toBe(
        'Rita Recruiter',
      );
      await check(link, 'confirm');
      await clickAndWait(applicant, applicant.locator('[data-action=submit]'));
      expect(await applicant.locator('[role=status]').count()).toBe(1);
      await shot(applicant, `confirmed-${width}`);
      // The language switch of that page shows the same words in the other language, not the
      // spent link's "does not work".
      const said = await applicant.locator('[role=status]').textContent();
      const other = lang === 'en' ? 'ru' : 'en';
      await clickAndWait(applicant, applicant.locator(`header a[lang=${other}]`));
      expect(new URL(applicant.url()).pathname).toBe(`/p/${org.slug}/join/confirmed`);
      const translated = await applicant.locator('[role=status]').textContent();
      expect(translated).toBeTruthy();
      expect(translated).not.toBe(said);
      expect(await applicant.locator('.error').count()).toBe(0);

      // The console: the application waits with its answers; a manager approves it.
      const staff = await (
        await s().newContext({ viewport: { width, height: 900 }, bypassCSP: true })
      ).newPage();
      await signIn(staff, s().base, manager);
      await staff.goto(`${s().base}/org/${org.slug}/applications?lang=${lang}`);
      const card = staff.locator('section.application').filter({ hasText: email });
      expect(await card.count()).toBe(1);
      expect(await card.locator('h2').textContent()).toBe(HOSTILE);
      expect(await card.getByText(`Readers ${HOSTILE}`).count()).toBe(1);
      await axe(staff, found);
      await shot(staff, `console-${width}`);
      await clickAndWait(staff, card.locator('[data-action=approve]'));
      expect(staff.url()).toContain('notice=approved');
      expect(await staff.locator('section.application').filter({ hasText: email }).count()).toBe(0);
      await axe(staff, found);

      expect(found).toEqual([]);
      expect(s().cspViolations).toEqual([]);
    },
    120_000,
  );
});
