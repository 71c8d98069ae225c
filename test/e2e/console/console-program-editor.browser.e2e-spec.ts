/**
 * The console's program editor (docs/console.md, `/org/<slug>/program`; SPEC 15) in a real headless
 * Chromium: phases, qualification and compression edited on the page (in place with JavaScript,
 * by form posts without), a program made through the Admin API saved unchanged, a group's program
 * and promotion (a loop refused on the page), the preview of each phase, the roles of the Admin
 * API, hostile text escaped. The final screenshots go to docs/images/ when PROGRAM_DOC_SHOTS=1.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { admin } from '../../factories/payouts.factory';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import {
  clickAndWait,
  csrfOf,
  pageWidths,
  postForm,
  signIn,
} from '../../utils/admin-pages-browser';
import { violations } from '../../utils/axe';
import { type BrowserSuite, startBrowserSuite } from '../../utils/browser-suite';

const SHOTS = process.env.CONSOLE_SHOTS ?? '/tmp/console-shots-program';
const DOC_IMAGES = resolve(__dirname, '..', '..', '..', 'docs', 'images');

const PHASED = {
  lead_bonus_kopecks: 5000,
  grace_period_hours: 72,
  compression: true,
  phases: [
    {
      months: 12,
      tiers: [
        { tier: 'referrer', percent_bp: 2500 },
        {
          tier: 'upline_1',
          percent_bp: 500,
          qualify: { min_personal_sales_kopecks: 5_000_000, window_days: 30 },
        },
      ],
    },
    { conversions: 3, tiers: [{ tier: 'referrer', fixed_kopecks: 150_000 }] },
    {
      tiers: [
        { tier: 'referrer', percent_bp: 1000 },
        { tier: 'upline_1', percent_bp: 300 },
      ],
    },
  ],
};

interface Seeded {
  org: TestTenant;
  owner: string;
  manager: string;
  viewer: string;
}

describe('console program editor: phases, qualification, groups and promotion (SPEC 15)', () => {
  let suite: BrowserSuite | undefined;
  const s = () => suite!;

  async function seed(): Promise<Seeded> {
    const t = s().t;
    const org = await createTenant(t, { locale: 'ru-RU', display_name: 'Магазин Ромашка' });
    return {
      org,
      owner: await createStaffToken(t, org.slug, 'owner'),
      manager: await createStaffToken(t, org.slug, 'manager'),
      viewer: await createStaffToken(t, org.slug, 'viewer'),
    };
  }
  const tenantProgram = async (d: Seeded) =>
    (await s().t.http().get(`/admin/v1/tenants/${d.org.slug}`).set(admin(s().t))).body.program;
  const createGroup = async (d: Seeded, slug: string, name: string, extra: object = {}) => {
    const res = await s()
      .t.http()
      .post(`/admin/v1/tenants/${d.org.slug}/groups`)
      .set(admin(s().t))
      .send({ slug, name, ...extra });
    expect(res.status).toBe(201);
    return res.body.group_id as string;
  };
  const group = async (d: Seeded, id: string) =>
    (await s().t.http().get(`/admin/v1/tenants/${d.org.slug}/groups/${id}`).set(admin(s().t))).body;
  const values = (page: Page, selector: string) =>
    page.locator(selector).evaluateAll((els) => els.map((e) => e.getAttribute('data-value')));
  const phaseEarns = (page: Page, p: number) =>
    values(page, `[data-preview-phase="${p}"] [data-preview-amount]`);
  const shot = async (page: Page, name: string) => {
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
    if (process.env.PROGRAM_DOC_SHOTS === '1' && name.startsWith('doc-')) {
      await page.screenshot({ path: `${DOC_IMAGES}/${name.slice(4)}.png`, fullPage: true });
    }
  };
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

  it('a manager edits a group’s program and promotion; a loop is refused on the page', async () => {
    const d = await seed();
    const gold = await createGroup(d, 'gold', 'Золото');
    const silver = await createGroup(d, 'silver', 'Серебро', {
      promote_to: { group_id: gold, min_conversions: 10, window_days: 30 },
    });
    const bronze = await createGroup(d, 'bronze', '<b>Бронза</b>');
    const context = await s().newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, s().base, d.manager);
    await page.goto(`${s().base}/org/${d.org.slug}/program`);
    await clickAndWait(page, page.locator(`[data-group="${silver}"]`));
    expect(await page.locator('h2#program-h').textContent()).toBe('Программа группы «Серебро»');
    expect(await page.locator('input[name=use_default]').isChecked()).toBe(true);
    expect(await page.locator('#promote_group').inputValue()).toBe(gold);
    expect(await page.locator('#promote_conversions').inputValue()).toBe('10');
    // The hostile name is text.
    expect(await page.locator('#promote_group option').allTextContents()).toContain(
      '<b>Бронза</b>',
    );

    // Its own program and a promotion by revenue to bronze.
    await page.locator('input[name=use_default]').uncheck();
    await page.locator('[data-tier-percent="0"]').fill('15');
    await page.locator('#promote_group').selectOption(bronze);
    await page.locator('#promote_conversions').fill('');
    await page.locator('#promote_revenue').fill('1000,50');
    await page.locator('#promote_days').fill('60');
    await clickAndWait(page, page.locator('[data-action=save]'));
    expect(await page.locator('[role=status]').textContent()).toBe('Программа сохранена.');
    const saved = await group(d, silver);
    expect(saved.program.tiers[0]).toEqual({ tier: 'referrer', percent_bp: 1500 });
    expect(saved.promote_to).toEqual({
      group_id: bronze,
      min_revenue_kopecks: 100_050,
      window_days: 60,
    });

    // Gold → silver would loop (silver → bronze → gold): 400 on the page.
    const bronzeUp = await s()
      .t.http()
      .patch(`/admin/v1/tenants/${d.org.slug}/groups/${bronze}`)
      .set(`Authorization`, `Bearer ${d.manager}`)
      .send({ promote_to: { group_id: gold, min_conversions: 1, window_days: 1 } });
    expect(bronzeUp.status).toBe(200);
    await page.goto(`${s().base}/org/${d.org.slug}/program?group=${gold}`);
    await page.locator('#promote_group').selectOption(silver);
    await page.locator('#promote_conversions').fill('5');
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      clickAndWait(page, page.locator('[data-action=save]')),
    ]);
    expect(response.status()).toBe(400);
    expect(await page.locator('[data-error-on=promote_group]').textContent()).toBe(
      'такое повышение замкнёт группы в круг',
    );
    expect((await group(d, gold)).promote_to).toBeNull();
    // A wrong threshold, and the group back on the default program.
    await page.locator('#promote_days').fill('0');
    await clickAndWait(page, page.locator('[data-action=save]'));
    expect(await page.locator('[data-error-on=promote_days]').textContent()).toBe(
      'окно — целое число дней от 1 до 3660',
    );
    await page.goto(`${s().base}/org/${d.org.slug}/program?group=${silver}`);
    await page.locator('input[name=use_default]').check();
    await page.locator('#promote_group').selectOption('');
    await clickAndWait(page, page.locator('[data-action=save]'));
    expect(await group(d, silver)).toMatchObject({ program: null, promote_to: null });
    await shot(page, 'program-group');
    await context.close();
  }, 120_000);

  it('roles as the Admin API: a viewer changes nothing; a form post without JavaScript saves; hostile text is escaped', async () => {
    const d = await seed();
    const gold = await createGroup(d, 'gold', 'Gold');
    const base = `${s().base}/org/${d.org.slug}/program`;
    const viewer: BrowserContext = await s().newContext({ javaScriptEnabled: false });
    const vp = await viewer.newPage();
    await signIn(vp, s().base, d.viewer);
    await vp.goto(`${base}?group=${gold}`);
    expect(await vp.locator('[data-action=save], button[data-intent]').count()).toBe(0);
    expect(await vp.locator('#promote_group').isDisabled()).toBe(true);
    expect(await vp.locator('[data-tier-percent="0"]').isDisabled()).toBe(true);
    const csrf = await csrfOf(vp);
    for (const fields of [
      [
        ['intent', 'save'],
        ['p0_percent_0', '50'],
      ],
      [
        ['intent', 'save'],
        ['group', gold],
        ['p0_percent_0', '50'],
      ],
      [
        ['intent', 'add_phase'],
        ['p0_percent_0', '50'],
      ],
    ] as [string, string][][]) {
      expect((await postForm(viewer, base, [['_csrf', csrf], ...fields])).status()).toBe(403);
    }
    expect((await group(d, gold)).program).toBeNull();

    // An owner's plain form post (what a browser without JavaScript sends).
    const owner = await s().newContext({ javaScriptEnabled: false });
    const op = await owner.newPage();
    await signIn(op, s().base, d.owner);
    await op.goto(base);
    const ownerCsrf = await csrfOf(op);
    const saved = await postForm(owner, base, [
      ['_csrf', ownerCsrf],
      ['intent', 'save'],
      ['lead_bonus', '10'],
      ['grace_period_hours', '24'],
      ['phased', '1'],
      ['phase_0_limit', 'conversions'],
      ['phase_0_count', '2'],
      ['p0_percent_0', '30'],
      ['phase_1_limit', ''],
      ['p1_percent_0', '10'],
      ['p1_percent_1', '2,5'],
      ['p1_qmin_1', '100'],
      ['p1_qdays_1', '7'],
      ['compression', 'on'],
    ]);
    expect(saved.status()).toBe(303);
    expect(await tenantProgram(d)).toEqual({
      lead_bonus_kopecks: 1000,
      grace_period_hours: 24,
      compression: true,
      phases: [
        { conversions: 2, tiers: [{ tier: 'referrer', percent_bp: 3000 }] },
        {
          tiers: [
            { tier: 'referrer', percent_bp: 1000 },
            {
              tier: 'upline_1',
              percent_bp: 250,
              qualify: { min_personal_sales_kopecks: 10_000, window_days: 7 },
            },
          ],
        },
      ],
    });
    // Hostile text in every kind of field comes back as text, with a 400 and never a 5xx.
    const hostile = '"><img src=x onerror=alert(1)><script>alert(2)</script>';
    const refused = await postForm(owner, base, [
      ['_csrf', ownerCsrf],
      ['intent', 'save'],
      ['lead_bonus', hostile],
      ['grace_period_hours', hostile],
      ['p0_percent_0', hostile],
      ['p0_qmin_0', hostile],
      ['phase_0_limit', hostile],
      ['phase_0_count', hostile],
      ['amount', hostile],
    ]);
    expect(refused.status()).toBe(400);
    const html = await refused.text();
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<script>alert(2)');
    const groupPost = await postForm(owner, base, [
      ['_csrf', ownerCsrf],
      ['intent', 'save'],
      ['group', gold],
      ['p0_percent_0', '10'],
      ['promote_group', hostile],
      ['promote_conversions', hostile],
      ['promote_days', '30'],
    ]);
    expect(groupPost.status()).toBe(400);
    expect(await groupPost.text()).not.toContain('<img src=x');
    const unknown = await postForm(owner, base, [
      ['_csrf', ownerCsrf],
      ['intent', 'save'],
      ['group', gold],
      ['p0_percent_0', '10'],
      ['grace_period_hours', '336'],
      ['promote_group', 'grp_01JD0Z6V2Y8K3M4N5P6Q7R8S9T'],
      ['promote_conversions', '3'],
      ['promote_days', '30'],
    ]);
    expect(unknown.status()).toBe(400);
    const unknownHtml = await unknown.text();
    expect(unknownHtml.match(/role="alert">[^<]*/)?.[0]).toBe(
      'role="alert">Перевести в группу: нет такой группы',
    );
    expect((await group(d, gold)).promote_to).toBeNull();
  }, 120_000);
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
