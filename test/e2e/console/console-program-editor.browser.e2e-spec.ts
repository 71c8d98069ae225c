/**
 * The console's program editor (docs/console.md, `/org/<slug>/program`; SPEC 15) in a real headless
 * Chromium: phases, qualification and compression edited on the page (in place with JavaScript,
 * by form posts without), a program made through the Admin API saved unchanged, the preview of
 * each phase, and axe-core on the new states. Groups, promotion and roles are in
 * console-program-groups.browser.e2e-spec.ts. The final screenshots go to docs/images/ when
 * PROGRAM_DOC_SHOTS=1.
 */
import type { Page } from 'playwright-core';
import { admin } from '../../factories/payouts.factory';
import { PHASED, programEditorKit } from '../../factories/program.factory';
import { clickAndWait, pageWidths, signIn } from '../../utils/admin-pages-browser';
import { violations } from '../../utils/axe';
import { type BrowserSuite, startBrowserSuite } from '../../utils/browser-suite';

describe('console program editor: phases, qualification, compression (SPEC 15)', () => {
  let suite: BrowserSuite | undefined;
  const s = () => suite!;
  const { seed, tenantProgram, createGroup, shot } = programEditorKit(() => s().t);
  const values = (page: Page, selector: string) =>
    page.locator(selector).evaluateAll((els) => els.map((e) => e.getAttribute('data-value')));
  const phaseEarns = (page: Page, p: number) =>
    values(page, `[data-preview-phase="${p}"] [data-preview-amount]`);
  /** Clicks an add/remove button: in place with JavaScript (the page stays), a post without. */
  const intent = async (page: Page, js: boolean, value: string, expectCards?: number) => {
    const button = page.locator(`button[data-intent="${value}"]`);
    if (js) {
      const url = page.url();
      await button.click();
      if (expectCards !== undefined) {
        await page.waitForFunction(
          (n) => document.querySelectorAll('[data-phase]').length === n,
          expectCards,
        );
      } else {
        await page.waitForLoadState('load');
      }
      expect(page.url()).toBe(url);
    } else {
      await clickAndWait(page, button);
    }
  };

  beforeAll(async () => {
    suite = await startBrowserSuite({ timeoutMs: 15_000 });
  }, 120_000);
  afterAll(() => suite?.close());

  it.each([
    { name: 'desktop', width: 1280 },
    { name: 'phone', width: 390 },
  ])(
    'a program made through the API shows every phase and rule, previews each phase, and saves back unchanged ($name)',
    async ({ name, width }) => {
      const d = await seed();
      const patched = await s()
        .t.http()
        .patch(`/admin/v1/tenants/${d.org.slug}`)
        .set(admin(s().t))
        .send({ program: PHASED });
      expect(patched.status).toBe(200);
      const before = await tenantProgram(d);
      const context = await s().newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      await signIn(page, s().base, d.owner);
      await page.goto(`${s().base}/org/${d.org.slug}/program`);
      // No notice about rules the form cannot show: it shows them all.
      expect(await page.locator('[role=status]').count()).toBe(0);
      expect(await page.locator('[data-phase]').count()).toBe(3);
      expect(await page.locator('[name=p0_qmin_1]').inputValue()).toBe('50000.00');
      expect(await page.locator('#compression').isChecked()).toBe(true);
      // The preview of each phase on 10 000,00 ₽.
      expect(await page.locator('[data-preview-phase-title]').allTextContents()).toEqual([
        'Этап 1 — первые 12 месяцев',
        'Этап 2 — следующие 3 конверсии',
        'Этап 3 — затем бессрочно',
      ]);
      expect(await phaseEarns(page, 0)).toEqual(['250000', '50000']);
      expect(await phaseEarns(page, 1)).toEqual(['150000']);
      expect(await phaseEarns(page, 2)).toEqual(['100000', '30000']);
      expect(await page.locator('[data-preview-qualify]').allTextContents()).toEqual([
        expect.stringMatching(/^нужны личные продажи от 50\s000,00\s₽ за 30 дн\.$/),
      ]);
      expect(await page.locator('[data-preview-compression]').textContent()).toMatch(
        /^Компрессия включена/,
      );
      const widths = await pageWidths(page);
      expect(widths.scrollWidth).toBeLessThanOrEqual(widths.innerWidth);
      await shot(page, `doc-console-program${width === 390 ? '-phone' : ''}`);

      await clickAndWait(page, page.locator('[data-action=save]'));
      expect(await page.locator('[role=status]').textContent()).toBe('Программа сохранена.');
      expect(await tenantProgram(d)).toEqual(before);
      await shot(page, `program-saved-${name}`);
      await context.close();
    },
    120_000,
  );

  it.each([
    { name: 'desktop-js', width: 1280, js: true },
    { name: 'phone-nojs', width: 390, js: false },
  ])(
    'an owner adds a phase, a tier, a qualification and compression, and the API shows them ($name)',
    async ({ name, width, js }) => {
      const d = await seed();
      const context = await s().newContext({
        viewport: { width, height: 900 },
        javaScriptEnabled: js,
      });
      const page = await context.newPage();
      await signIn(page, s().base, d.owner);
      await page.goto(`${s().base}/org/${d.org.slug}/program?lang=en`);
      expect(await page.locator('[data-phase]').count()).toBe(1);
      expect(await page.locator('[data-phase-limit]').count()).toBe(0);

      await intent(page, js, 'add_phase', 2);
      expect(await page.locator('[data-phase]').count()).toBe(2);
      expect(await page.locator('[name=phase_0_limit]').inputValue()).toBe('months');
      await page.locator('[name=phase_0_count]').fill('6');
      await page.locator('[data-phase="1"] [data-tier-percent="0"]').fill('5');
      await intent(page, js, 'add_tier_1');
      await page.locator('[data-phase="1"] [data-tier-row]').nth(2).waitFor();
      await page.locator('[name=p1_fixed_2]').fill('100');
      await page.locator('[name=p1_qmin_1]').fill('500');
      await page.locator('[name=p1_qdays_1]').fill('30');
      await page.locator('#compression').check();
      if (js) {
        await page.waitForFunction(
          () =>
            document.querySelectorAll('[data-preview-phase]').length === 2 &&
            document.querySelector('[data-preview-qualify]') !== null,
        );
      } else {
        await clickAndWait(page, page.locator('[data-action=preview]'));
      }
      expect(await page.locator('[data-preview-phase-title]').allTextContents()).toEqual([
        'Phase 1 — first 6 months',
        'Phase 2 — then for ever',
      ]);
      expect(await phaseEarns(page, 0)).toEqual(['100000', '30000']);
      expect(await phaseEarns(page, 1)).toEqual(['50000', '30000', '10000']);
      expect(await page.locator('[data-preview-compression]').textContent()).toMatch(
        /^Compression on/,
      );
      await shot(page, `program-phases-${name}`);

      // A phase before the last one without its length is refused at its field.
      await page.locator('[name=phase_0_limit]').selectOption('');
      await clickAndWait(page, page.locator('[data-action=save]'));
      expect(await page.locator('[data-error-on=phase_0]').textContent()).toBe(
        'needs months or conversions (only the last phase may last for ever)',
      );
      expect((await tenantProgram(d)).phases).toBeUndefined();
      await page.locator('[name=phase_0_limit]').selectOption('months');
      await clickAndWait(page, page.locator('[data-action=save]'));
      expect(await page.locator('[role=status]').textContent()).toBe('Program saved.');
      expect(await tenantProgram(d)).toEqual({
        lead_bonus_kopecks: 0,
        grace_period_hours: 336,
        compression: true,
        phases: [
          {
            months: 6,
            tiers: [
              { tier: 'referrer', percent_bp: 1000 },
              { tier: 'upline_1', percent_bp: 300 },
            ],
          },
          {
            tiers: [
              { tier: 'referrer', percent_bp: 500 },
              {
                tier: 'upline_1',
                percent_bp: 300,
                qualify: { min_personal_sales_kopecks: 50_000, window_days: 30 },
              },
              { tier: 'upline_2', fixed_kopecks: 10_000 },
            ],
          },
        ],
      });
      // Removing the first phase in the page and saving: one phase, still `phases`.
      await intent(page, js, 'remove_phase_0', 1);
      await clickAndWait(page, page.locator('[data-action=save]'));
      expect((await tenantProgram(d)).phases).toHaveLength(1);
      await context.close();
    },
    120_000,
  );

  it.each([1280, 390])(
    'axe-core finds no WCAG 2 A/AA violation on a phased program, a group and a refused form at %ipx',
    async (width) => {
      const d = await seed();
      await s()
        .t.http()
        .patch(`/admin/v1/tenants/${d.org.slug}`)
        .set(admin(s().t))
        .send({ program: PHASED });
      const gold = await createGroup(d, 'gold', 'Gold');
      const context = await s().newContext({ viewport: { width, height: 900 }, bypassCSP: true });
      const page = await context.newPage();
      await signIn(page, s().base, d.owner);
      const found: string[] = [];
      for (const lang of ['ru', 'en']) {
        for (const path of [`/program?lang=${lang}`, `/program?group=${gold}`]) {
          await page.goto(`${s().base}/org/${d.org.slug}${path}`);
          found.push(...(await violations(page)).map((v) => `${path}: ${v}`));
        }
        await page.locator('[name=phase_0_limit]').selectOption('');
        await page.locator('[name=p0_qdays_1]').fill('0');
        await page.locator('#promote_group').selectOption({ index: 1 });
        await clickAndWait(page, page.locator('[data-action=save]'));
        expect(await page.locator('[data-error-on]').count()).toBeGreaterThan(0);
        found.push(...(await violations(page)).map((v) => `refused ${lang}: ${v}`));
      }
      await shot(page, `program-refused-${width}`);
      expect(found).toEqual([]);
      await context.close();
    },
    120_000,
  );
});
