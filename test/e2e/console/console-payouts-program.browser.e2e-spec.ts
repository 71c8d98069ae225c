/**
 * The console's Payouts and Program pages (docs/payouts.md, docs/console.md) in a real headless Chromium, as a manager
 * goes through them: run payouts, download the run CSV, have a bad settle file refused with its
 * line named, settle by upload, mark one payout paid and one failed, see the partner page's
 * balances follow; edit the program and see the cascade preview change (live with JavaScript,
 * after Preview without). Once at desktop width with JavaScript and once at a phone's width
 * (390 px) without. The numbers on the pages equal the Admin API's. A viewer is refused (403) on
 * every form post, another tenant's staff see nothing, a missing or foreign CSRF token is
 * refused, and axe-core finds no WCAG 2 A/AA violation on the new pages. Screenshots go to
 * /tmp/console-shots2/.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { createLead, registerConversion } from '../../factories/money.factory';
import { admin, approveBonus } from '../../factories/payouts.factory';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { createChain, upsertUser, type UpsertedMember } from '../../factories/users.factory';
import {
  clickAndWait,
  csrfOf,
  pageWidths,
  postForm,
  signIn,
} from '../../utils/admin-pages-browser';
import { violations } from '../../utils/axe';
import { type BrowserSuite, startBrowserSuite } from '../../utils/browser-suite';

const SHOTS = process.env.CONSOLE_SHOTS ?? '/tmp/console-shots2';

const VARIANTS = [
  { name: 'desktop-js', width: 1280, javaScriptEnabled: true },
  { name: 'phone-nojs', width: 390, javaScriptEnabled: false },
] as const;

interface Seeded {
  org: TestTenant;
  manager: string;
  owner: string;
  viewer: string;
  /** Referred by `mid`; each brings one conversion. */
  x: UpsertedMember;
  y: UpsertedMember;
  mid: UpsertedMember;
  leadOfX: string;
}

describe('console payouts and program pages in a real browser (docs/payouts.md, docs/console.md)', () => {
  let suite: BrowserSuite | undefined;
  const s = () => suite!;

  async function seed(): Promise<Seeded> {
    const t = s().t;
    const org = await createTenant(t, {
      locale: 'ru-RU',
      display_name: 'Магазин Ромашка',
      payouts: { minimum_kopecks: 1000 },
    });
    const [, mid] = await createChain(t, org.key, 2);
    const x = await upsertUser(t, org.key, {
      full_name: 'Ольга Сидорова',
      referrer_user_id: mid.serviceUserId,
    });
    const y = await upsertUser(t, org.key, {
      full_name: 'Павел Орлов',
      referrer_user_id: mid.serviceUserId,
    });
    const leadOfX = await createLead(t, org.key, x.serviceUserId);
    const leadOfY = await createLead(t, org.key, y.serviceUserId);
    for (const [lead, amount, order] of [
      [leadOfX, 100_000, 'o-x'],
      [leadOfY, 200_000, 'o-y'],
    ] as const) {
      const c = await registerConversion(t, org.key, {
        lead_id: lead,
        amount_kopecks: amount,
        external_order_id: order,
      });
      for (const b of c.cascaded_bonuses) await approveBonus(t, org.slug, b.bonus_id);
    }
    return {
      org,
      manager: await createStaffToken(t, org.slug, 'manager'),
      owner: await createStaffToken(t, org.slug, 'owner'),
      viewer: await createStaffToken(t, org.slug, 'viewer'),
      x,
      y,
      mid,
      leadOfX,
    };
  }

  const api = async (d: Seeded, path: string) => {
    const res = await s()
      .t.http()
      .get(`/admin/v1/tenants/${d.org.slug}${path}`)
      .set('Authorization', `Bearer ${d.viewer}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const shot = async (page: Page, name: string) => {
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
  };
  const attr = (page: Page, selector: string, name: string) =>
    page.locator(selector).evaluateAll((els, n) => els.map((e) => e.getAttribute(n)), name);
  const balances = async (page: Page) =>
    Object.fromEntries(
      await page
        .locator('[data-balance]')
        .evaluateAll((els) =>
          els.map((e) => [e.getAttribute('data-balance'), Number(e.getAttribute('data-value'))]),
        ),
    );

  beforeAll(async () => {
    suite = await startBrowserSuite({ timeoutMs: 15_000 });
  }, 120_000);
  afterAll(() => suite?.close());

  it.each(VARIANTS)(
    'a manager runs, downloads, settles and marks payouts, and the partner page follows ($name)',
    async ({ name, width, javaScriptEnabled }) => {
      const d = await seed();
      const context = await s().newContext({
        viewport: { width, height: 900 },
        javaScriptEnabled,
        acceptDownloads: true,
      });
      const page = await context.newPage();
      await signIn(page, s().base, d.manager);
      await page.goto(`${s().base}/org/${d.org.slug}/partners`);
      await clickAndWait(page, page.locator('nav a', { hasText: 'Выплаты' }));
      expect(new URL(page.url()).pathname).toBe(`/org/${d.org.slug}/payouts`);
      expect(await page.locator('h1').textContent()).toBe('Выплаты');

      // Run: one payout per partner (x 10 %, y 10 %, mid 3 % of both).
      await clickAndWait(page, page.locator('[data-action=run]'));
      expect(await page.locator('[role=status]').textContent()).toBe('Запуск создан, выплат: 3.');
      const runs = await api(d, '/payouts/runs');
      expect(runs.items).toHaveLength(1);
      const run = runs.items[0];
      expect(run).toMatchObject({ payouts_count: 3, total_kopecks: 39_000 });
      expect(run.status_counts).toEqual({ pending: 3, paid: 0, failed: 0, canceled: 0 });
      expect(new URL(page.url()).searchParams.get('run')).toBe(run.run_id);
      expect(await attr(page, `[data-run-total="${run.run_id}"]`, 'data-value')).toEqual([
        String(run.total_kopecks),
      ]);
      const listed = await api(d, `/payouts?run_id=${run.run_id}`);
      expect(await attr(page, '[data-payout]', 'data-payout')).toEqual(
        listed.items.map((p: { payout_id: string }) => p.payout_id),
      );
      expect(await attr(page, '[data-amount]', 'data-amount')).toEqual(
        listed.items.map((p: { amount_kopecks: number }) => String(p.amount_kopecks)),
      );
      const widths = await pageWidths(page);
      expect(widths.scrollWidth).toBeLessThanOrEqual(widths.innerWidth);
      await shot(page, `payouts-${name}`);

      // The run's CSV, downloaded through the link, is the Admin API's file.
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.locator(`[data-run-csv="${run.run_id}"]`).click(),
      ]);
      const csv = readFileSync(await download.path(), 'utf8');
      const fromApi = await s()
        .t.http()
        .get(`/admin/v1/tenants/${d.org.slug}/payouts/runs/${run.run_id}.csv`)
        .set(admin(s().t));
      expect(csv).toBe(fromApi.text);
      const [header, ...lines] = csv.trim().split('\r\n');
      expect(lines).toHaveLength(3);
      const byPayout = new Map(lines.map((l) => [l.split(',')[0], l]));
      const payoutOf = (u: UpsertedMember) =>
        listed.items.find((p: { user_id: string }) => p.user_id === u.serviceUserId);
      const [px, py, pmid] = [payoutOf(d.x), payoutOf(d.y), payoutOf(d.mid)];

      // A bad file: the second payout's amount changed; refused with its line, nothing paid.
      const bad = [
        `${header},reference`,
        `${byPayout.get(pmid.payout_id)},REF-MID`,
        `${byPayout.get(px.payout_id)!.replace(',10000,100.00', ',10001,100.01')},REF-X`,
      ].join('\r\n');
      const settle = async (text: string) => {
        if (javaScriptEnabled) {
          // The file picker reads the file into the form's text.
          await page.locator('#settle-file').setInputFiles({
            name: 'settle.csv',
            mimeType: 'text/csv',
            buffer: Buffer.from(text),
          });
          // (a textarea's value has its line breaks as LF)
          await page.waitForFunction(
            (v) => (document.getElementById('settle-csv') as HTMLTextAreaElement).value === v,
            text.replace(/\r\n/g, '\n'),
          );
        } else {
          expect(await page.locator('#settle-file').isVisible()).toBe(false);
          await page.locator('#settle-csv').fill(text);
        }
        await clickAndWait(page, page.locator('[data-action=settle]'));
      };
      await settle(bad);
      expect(await attr(page, '[data-settle-error]', 'data-settle-error')).toEqual(['line 3']);
      expect(await page.locator('[data-settle-error]').textContent()).toBe(
        'строка 3: amount_kopecks 10001 не равно 10000',
      );
      expect((await api(d, `/payouts?run_id=${run.run_id}&status=paid`)).items).toHaveLength(0);
      await shot(page, `payouts-settle-refused-${name}`);

      // The good file settles the mid partner's payout only; the others stay pending.
      await settle([`${header},reference`, `${byPayout.get(pmid.payout_id)},REF-MID`].join('\r\n'));
      expect(await page.locator('[role=status]').textContent()).toBe('Отмечено выплаченными: 1.');
      expect((await api(d, `/payouts/${pmid.payout_id}`)).reference).toBe('REF-MID');

      // Y's partner page before: the payout is in payout.
      const partnerY = `${s().base}/org/${d.org.slug}/partners/${d.y.memberId}`;
      await page.goto(partnerY);
      expect(await balances(page)).toEqual({ available: 0, in_payout: 20_000, paid: 0 });

      // Mark X's payout paid and Y's failed, from their payout pages (filtered by status).
      await page.goto(`${s().base}/org/${d.org.slug}/payouts?run=${run.run_id}&status=pending`);
      expect((await attr(page, '[data-payout]', 'data-payout')).sort()).toEqual(
        [px.payout_id, py.payout_id].sort(),
      );
      await clickAndWait(page, page.locator(`[data-payout="${px.payout_id}"]`));
      await page.locator('input[name=reference]').fill('PP-42');
      await clickAndWait(page, page.locator('[data-action=paid]'));
      expect(await page.locator('[role=status]').textContent()).toBe(
        'Выплата отмечена выплаченной.',
      );
      expect(await page.locator('[data-reference]').textContent()).toBe('PP-42');
      await shot(page, `payout-paid-${name}`);
      await page.goto(`${s().base}/org/${d.org.slug}/payouts/${py.payout_id}`);
      await page.locator('input[name=reason]').fill('счёт закрыт');
      await clickAndWait(page, page.locator('[data-action=failed]'));
      expect((await api(d, `/payouts/${py.payout_id}`)).status).toBe('failed');
      expect((await api(d, `/payouts/${px.payout_id}`)).status).toBe('paid');
      expect((await api(d, '/payouts/runs')).items[0].status_counts).toEqual({
        pending: 0,
        paid: 2,
        failed: 1,
        canceled: 0,
      });

      // The partner pages follow, and equal the API's balances.
      for (const [who, expected] of [
        [d.y, { available: 20_000, in_payout: 0, paid: 0 }],
        [d.x, { available: 0, in_payout: 0, paid: 10_000 }],
      ] as const) {
        await page.goto(`${s().base}/org/${d.org.slug}/partners/${who.memberId}`);
        expect(await balances(page)).toEqual(expected);
        const detail = await api(d, `/users/${who.memberId}`);
        expect(detail.payout_balances).toEqual([
          {
            currency: 'RUB',
            available_kopecks: expected.available,
            in_payout_kopecks: expected.in_payout,
            paid_kopecks: expected.paid,
          },
        ]);
        expect(detail.payouts.total).toBe(1);
      }
      await shot(page, `partner-payouts-${name}`);
      await context.close();
    },
    240_000,
  );

  it.each(VARIANTS)(
    "an owner edits the program and sees the preview change; a manager an offer's ($name)",
    async ({ name, width, javaScriptEnabled }) => {
      const d = await seed();
      // The default program is the tenant's: owners save it, as PATCH …/tenants/:slug.
      const context = await s().newContext({ viewport: { width, height: 900 }, javaScriptEnabled });
      const page = await context.newPage();
      await signIn(page, s().base, d.owner);
      await page.goto(`${s().base}/org/${d.org.slug}`);
      await clickAndWait(page, page.locator('nav a', { hasText: 'Программа' }));
      expect(await page.locator('h1').textContent()).toBe('Программа');
      const earns = () =>
        attr(page, '[data-preview-row]:not([hidden]) [data-preview-amount]', 'data-value');

      // The default preview (10 000,00 ₽) equals the dry run for a lead with a full chain.
      const dry = await s()
        .t.http()
        .post(`/admin/v1/tenants/${d.org.slug}/conversions/preview`)
        .set('Authorization', `Bearer ${d.manager}`)
        .send({ lead_id: d.leadOfX, amount_kopecks: 1_000_000, currency: 'RUB' });
      expect(dry.status).toBe(200);
      const dryAmounts = dry.body.cascaded_bonuses.map((b: { amount_kopecks: number }) =>
        String(b.amount_kopecks),
      );
      expect(dryAmounts).toEqual(['100000', '30000']);
      expect(await earns()).toEqual(dryAmounts);
      expect(await page.locator('[data-preview-total]').getAttribute('data-value')).toBe('130000');
      await shot(page, `program-${name}`);

      // Add a tier (in place with JavaScript, a form post without), change the referrer's share
      // to 12,5 % and make the new upline_2 a fixed 100,00.
      const addTier = page.locator('button[data-intent="add_tier_0"]');
      if (javaScriptEnabled) await addTier.click();
      else await clickAndWait(page, addTier);
      await page.locator('[data-tier-fixed="2"]').waitFor();
      await page.locator('[data-tier-percent="0"]').fill('12,5');
      await page.locator('[data-tier-fixed="2"]').fill('100');
      await page.locator('#amount').fill('2000');
      const expected = ['25000', '6000', '10000'];
      if (javaScriptEnabled) {
        // Live: no navigation, the preview follows the fields.
        await page.waitForFunction(
          () =>
            document.querySelector('[data-preview-total]')?.getAttribute('data-value') === '41000',
        );
        expect(await earns()).toEqual(expected);
        expect(await page.locator('[data-preview-caption]').textContent()).toMatch(/2\s000,00/);
        await shot(page, `program-live-${name}`);
      } else {
        expect(await earns()).toEqual(['100000', '30000']);
        await clickAndWait(page, page.locator('[data-action=preview]'));
        expect(await earns()).toEqual(expected);
        expect(await page.locator('[role=status]').textContent()).toBe(
          'Расчёт по форме; ничего не сохранено.',
        );
        // Nothing saved by a preview.
        const tenant = await s().t.http().get(`/admin/v1/tenants/${d.org.slug}`).set(admin(s().t));
        expect(tenant.body.program.tiers[0]).toEqual({ tier: 'referrer', percent_bp: 1000 });
        await shot(page, `program-preview-${name}`);
      }
      expect(await page.locator('[data-preview-remains]').getAttribute('data-value')).toBe(
        String(200_000 - 41_000),
      );
      const widths = await pageWidths(page);
      expect(widths.scrollWidth).toBeLessThanOrEqual(widths.innerWidth);

      // A wrong form is refused with the tier named, and the preview says so.
      await page.locator('[data-tier-percent="1"]').fill('95');
      if (javaScriptEnabled) {
        await page.waitForFunction(
          () => !(document.querySelector('[data-preview-state]') as HTMLElement).hidden,
        );
      }
      await clickAndWait(page, page.locator('[data-action=save]'));
      expect(await page.locator('[role=alert]').textContent()).toBe(
        'Уровни: проценты всех уровней вместе больше 100 %',
      );
      expect(await page.locator('[data-preview-table]').isVisible()).toBe(false);
      await page.locator('[data-tier-percent="1"]').fill('3');

      // Save: the API's program is the form's, and the dry run pays by it.
      await clickAndWait(page, page.locator('[data-action=save]'));
      expect(await page.locator('[role=status]').textContent()).toBe('Программа сохранена.');
      const tenant = await s().t.http().get(`/admin/v1/tenants/${d.org.slug}`).set(admin(s().t));
      expect(tenant.body.program.tiers).toEqual([
        { tier: 'referrer', percent_bp: 1250 },
        { tier: 'upline_1', percent_bp: 300 },
        { tier: 'upline_2', fixed_kopecks: 10000 },
      ]);
      const again = await s()
        .t.http()
        .post(`/admin/v1/tenants/${d.org.slug}/conversions/preview`)
        .set('Authorization', `Bearer ${d.manager}`)
        .send({ lead_id: d.leadOfX, amount_kopecks: 200_000, currency: 'RUB' });
      expect(
        again.body.cascaded_bonuses.map((b: { amount_kopecks: number }) => b.amount_kopecks),
      ).toEqual([25000, 6000, 10000]);

      await context.close();

      // A manager previews the default program but may not save it (no button; 403, unchanged).
      const mc = await s().newContext({ viewport: { width, height: 900 }, javaScriptEnabled });
      const mp = await mc.newPage();
      await signIn(mp, s().base, d.manager);
      await mp.goto(`${s().base}/org/${d.org.slug}/program`);
      expect(await mp.locator('[data-action=save]').count()).toBe(0);
      expect(await mp.locator('[data-action=preview]').count()).toBe(1);
      const refused = await postForm(mc, `${s().base}/org/${d.org.slug}/program`, [
        ['_csrf', await csrfOf(mp)],
        ['intent', 'save'],
        ['p0_percent_0', '50'],
      ]);
      expect(refused.status()).toBe(403);
      const kept = await s().t.http().get(`/admin/v1/tenants/${d.org.slug}`).set(admin(s().t));
      expect(kept.body.program.tiers[0]).toEqual({ tier: 'referrer', percent_bp: 1250 });

      // An offer's own program: the manager saves it, as PATCH …/offers/:offer_id.
      const offer = await s()
        .t.http()
        .post(`/admin/v1/tenants/${d.org.slug}/offers`)
        .set(admin(s().t))
        .send({ name: 'Премиум' });
      const page2 = mp;
      await page2.goto(`${s().base}/org/${d.org.slug}/program?offer=${offer.body.offer_id}`);
      expect(await page2.locator('input[name=use_default]').isChecked()).toBe(true);
      await page2.locator('input[name=use_default]').uncheck();
      await page2.locator('[data-tier-percent="0"]').fill('20');
      await clickAndWait(page2, page2.locator('[data-action=save]'));
      expect(await page2.locator('[role=status]').textContent()).toBe('Программа сохранена.');
      const offers = await api(d, '/offers');
      expect(offers.items[0].program.tiers[0]).toEqual({ tier: 'referrer', percent_bp: 2000 });
      await page2.locator('input[name=use_default]').check();
      await clickAndWait(page2, page2.locator('[data-action=save]'));
      expect((await api(d, '/offers')).items[0].program).toBeNull();

      // The API twin: PATCH …/offers/:offer_id (manager; a viewer 403; a missing program 400).
      const patch = (token: string, body: object) =>
        s()
          .t.http()
          .patch(`/admin/v1/tenants/${d.org.slug}/offers/${offer.body.offer_id}`)
          .set('Authorization', `Bearer ${token}`)
          .send(body);
      const patched = await patch(d.manager, {
        program: { tiers: [{ tier: 'referrer', fixed_kopecks: 500 }] },
      });
      expect(patched.status).toBe(200);
      expect(patched.body.program.tiers).toEqual([{ tier: 'referrer', fixed_kopecks: 500 }]);
      expect((await patch(d.viewer, { program: null })).status).toBe(403);
      expect((await patch(d.manager, {})).status).toBe(400);
      expect((await patch(d.manager, { program: null })).body.program).toBeNull();
      await mc.close();
    },
    240_000,
  );

  it('a viewer can change nothing; missing or foreign CSRF and other tenants are refused', async () => {
    const d = await seed();
    const other = await seed();
    const t = s().t;
    const runRes = await t
      .http()
      .post(`/admin/v1/tenants/${d.org.slug}/payouts/runs`)
      .set(admin(t));
    const runId = runRes.body.run_id as string;
    const payoutId = (await api(d, `/payouts?run_id=${runId}`)).items[0].payout_id as string;
    const base = `${s().base}/org/${d.org.slug}`;
    const forms: [string, [string, string][]][] = [
      [`${base}/payouts/runs`, []],
      [`${base}/payouts/runs/${runId}/settle`, [['csv', 'payout_id,amount_kopecks,reference']]],
      [`${base}/payouts/${payoutId}/paid`, [['reference', 'R']]],
      [`${base}/payouts/${payoutId}/failed`, [['reason', 'R']]],
      [`${base}/payouts/${payoutId}/cancel`, []],
      [
        `${base}/program`,
        [
          ['intent', 'save'],
          ['p0_percent_0', '50'],
        ],
      ],
      [
        `${base}/program`,
        [
          ['intent', 'preview'],
          ['p0_percent_0', '50'],
        ],
      ],
    ];
    const unchanged = async () => {
      expect((await api(d, '/payouts/runs')).items).toHaveLength(1);
      expect((await api(d, `/payouts/${payoutId}`)).status).toBe('pending');
      const tenant = await t.http().get(`/admin/v1/tenants/${d.org.slug}`).set(admin(t));
      expect(tenant.body.program.tiers[0]).toEqual({ tier: 'referrer', percent_bp: 1000 });
    };

    // The viewer: pages without the forms, and every post refused.
    const viewer = await s().newContext({ javaScriptEnabled: false });
    const vp = await viewer.newPage();
    await signIn(vp, s().base, d.viewer);
    await vp.goto(`${base}/payouts?run=${runId}`);
    expect(await vp.locator('[data-action=run], [data-action=settle]').count()).toBe(0);
    await vp.goto(`${base}/payouts/${payoutId}`);
    expect(await vp.locator('[data-action=paid], [data-action=failed]').count()).toBe(0);
    await vp.goto(`${base}/program`);
    expect(await vp.locator('[data-action=save]').count()).toBe(0);
    expect(await vp.locator('#lead_bonus').isDisabled()).toBe(true);
    const viewerCsrf = await csrfOf(vp);
    for (const [url, fields] of forms) {
      const res = await postForm(viewer, url, [['_csrf', viewerCsrf], ...fields]);
      expect([url, res.status()]).toEqual([url, 403]);
    }

    // A manager without the token, or with another session's: refused.
    const manager = await s().newContext({ javaScriptEnabled: false });
    const mp = await manager.newPage();
    await signIn(mp, s().base, d.manager);
    for (const [url, fields] of forms) {
      expect((await postForm(manager, url, fields)).status()).toBe(403);
      expect((await postForm(manager, url, [['_csrf', viewerCsrf], ...fields])).status()).toBe(403);
    }
    await unchanged();

    // Another tenant's manager sees nothing of this one.
    const stranger = await s().newContext({ javaScriptEnabled: false });
    const sp = await stranger.newPage();
    await signIn(sp, s().base, other.manager);
    for (const path of [
      '/payouts',
      `/payouts/${payoutId}`,
      `/payouts/runs/${runId}.csv`,
      '/program',
      `/partners/${d.x.memberId}`,
    ]) {
      const res = await sp.request.get(`${base}${path}`, { maxRedirects: 0 });
      expect([path, res.status()]).toEqual([path, 403]);
      expect(await res.text()).not.toContain(payoutId);
    }
    const strangerCsrf = await csrfOf(sp);
    for (const [url, fields] of forms) {
      expect((await postForm(stranger, url, [['_csrf', strangerCsrf], ...fields])).status()).toBe(
        403,
      );
    }
    // Their own payout id on their own pages is 404 for this tenant's payout.
    const foreign = await sp.request.get(`${s().base}/org/${other.org.slug}/payouts/${payoutId}`, {
      maxRedirects: 0,
    });
    expect(foreign.status()).toBe(404);
    await unchanged();

    // The manager cancels the payout from its page: its amount is back in the balance, once.
    await mp.goto(`${base}/payouts/${payoutId}`);
    await clickAndWait(mp, mp.locator('[data-action=cancel]'));
    expect(await mp.locator('[role=status]').textContent()).toBe(
      'Выплата отменена; сумма вернулась на баланс.',
    );
    expect(await mp.locator('[data-payout-status]').getAttribute('data-payout-status')).toBe(
      'canceled',
    );
    expect(await mp.locator('[data-action=cancel], [data-action=paid]').count()).toBe(0);
    const canceled = await api(d, `/payouts/${payoutId}`);
    expect(canceled.status).toBe('canceled');
    const owner = await api(d, `/users/${canceled.user_id}`);
    expect(owner.payout_balances[0]).toMatchObject({
      in_payout_kopecks: 0,
      available_kopecks: canceled.amount_kopecks,
    });
    // A second cancel (a stale page) is refused and changes nothing.
    const again = await postForm(manager, `${base}/payouts/${payoutId}/cancel`, [
      ['_csrf', await csrfOf(mp)],
    ]);
    expect(again.status()).toBe(303);
    expect(again.headers().location).toContain('error=');
    expect((await api(d, `/payouts/${payoutId}`)).status).toBe('canceled');
  }, 120_000);

  it.each([1280, 390])(
    'axe-core finds no WCAG 2 A/AA violation on the payouts and program pages at %ipx',
    async (width) => {
      const d = await seed();
      const t = s().t;
      const run = await t.http().post(`/admin/v1/tenants/${d.org.slug}/payouts/runs`).set(admin(t));
      const payoutId = (await api(d, `/payouts?run_id=${run.body.run_id}`)).items[0].payout_id;
      const ctx: BrowserContext = await s().newContext({
        viewport: { width, height: 900 },
        bypassCSP: true,
      });
      const page = await ctx.newPage();
      await signIn(page, s().base, d.manager);
      const base = `/org/${d.org.slug}`;
      const found: string[] = [];
      for (const lang of ['ru', 'en']) {
        for (const path of [
          `${base}/payouts?lang=${lang}`,
          `${base}/payouts?run=${run.body.run_id}&status=pending`,
          `${base}/payouts/${payoutId}?notice=paid`,
          `${base}/partners/${d.x.memberId}`,
          `${base}/program`,
        ]) {
          await page.goto(`${s().base}${path}`);
          found.push(...(await violations(page)).map((v) => `${path}: ${v}`));
        }
        // The pages after a refused settle file and a refused program form.
        await page.goto(`${s().base}${base}/payouts?run=${run.body.run_id}`);
        await page.locator('#settle-csv').fill('payout_id,amount_kopecks,reference\r\nnope,1,R');
        await clickAndWait(page, page.locator('[data-action=settle]'));
        found.push(...(await violations(page)).map((v) => `settle refused: ${v}`));
        await page.goto(`${s().base}${base}/program`);
        await page.locator('[data-tier-percent="0"]').fill('abc');
        await clickAndWait(page, page.locator('[data-action=preview]'));
        found.push(...(await violations(page)).map((v) => `program refused: ${v}`));
        if (width === 1280) await shot(page, `program-refused-${lang}`);
      }
      await shot(page, `program-refused-${width}`);
      expect(found).toEqual([]);
    },
    180_000,
  );
});
