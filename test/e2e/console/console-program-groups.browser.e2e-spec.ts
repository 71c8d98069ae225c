/**
 * The console's program editor (docs/console.md, `/org/<slug>/program`; SPEC 15) for partner
 * groups, in a real headless Chromium: a group's program and promotion saved as `PATCH
 * …/groups/:id` does (a loop and an unknown group refused on the page), the roles of the Admin
 * API (a viewer changes nothing), a plain form post without JavaScript, hostile text escaped.
 */
import type { BrowserContext } from 'playwright-core';
import { programEditorKit } from '../../factories/program.factory';
import { clickAndWait, csrfOf, postForm, signIn } from '../../utils/admin-pages-browser';
import { type BrowserSuite, startBrowserSuite } from '../../utils/browser-suite';

describe('console program editor: groups, promotion and roles (SPEC 15)', () => {
  let suite: BrowserSuite | undefined;
  const s = () => suite!;
  const { seed, tenantProgram, createGroup, group, shot } = programEditorKit(() => s().t);

  beforeAll(async () => {
    suite = await startBrowserSuite({ timeoutMs: 15_000 });
  }, 120_000);
  afterAll(() => suite?.close());

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
});
