/**
 * The console's conversions, leads, bonus queue and ban (docs/console.md) in a real headless
 * Chromium, as a manager goes through them: find a partner's conversions, reverse one and see it
 * reversed; the leads list and its CSV; the flagged bonus queue with names and amounts, approve;
 * ban a partner and their link answers 410. Once with JavaScript disabled at desktop width, once
 * at a phone's width (390 px). The numbers on the pages equal the API's. A viewer's posts are
 * refused (403), another tenant's staff see nothing, a missing or foreign CSRF token is refused.
 * Screenshots go to /tmp/console-shots/.
 */
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { formatMoney } from '../../../src/common/i18n/format';
import { createLink, type ReferralLink } from '../../factories/fraud.factory';
import { createLead, registerConversion } from '../../factories/money.factory';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { createChain, upsertUser, type UpsertedMember } from '../../factories/users.factory';
import { clickAndWait, csrfOf, pageWidths, signIn } from '../../utils/admin-pages-browser';
import { type BrowserSuite, startBrowserSuite } from '../../utils/browser-suite';

const SHOTS = process.env.CONSOLE_SHOTS ?? '/tmp/console-shots';
const VARIANTS = [
  { v: 0, name: 'desktop-nojs', width: 1280, javaScriptEnabled: false },
  { v: 1, name: 'phone', width: 390, javaScriptEnabled: true },
] as const;

interface Fixture {
  seller: UpsertedMember;
  cheat: UpsertedMember;
  cheatLink: ReferralLink;
  flaggedCustomer: string;
}

describe('console conversions, leads, bonus queue and ban in a real browser (docs/console.md)', () => {
  let suite: BrowserSuite | undefined;
  let base: string;
  let org: TestTenant;
  let managerToken: string;
  let viewerToken: string;
  let strangerToken: string;
  const fixtures: Fixture[] = [];

  const s = () => suite!;
  const api = async (path: string) => {
    const res = await s()
      .t.http()
      .get(`/admin/v1/tenants/${org.slug}${path}`)
      .set('Authorization', `Bearer ${viewerToken}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const one = async <T = Record<string, unknown>>(sql: string, params: unknown[]): Promise<T> => {
    const rows: T[] = await s().t.db.query(sql, params);
    return rows[0];
  };
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
  const rub = (kopecks: number) => formatMoney(kopecks, 'RUB', 'ru-RU');

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    suite = await startBrowserSuite({ timeoutMs: 15_000 });
    base = suite.base;
    const t = suite.t;
    org = await createTenant(t, {
      locale: 'ru-RU',
      display_name: 'Магазин Ромашка',
      program: {
        lead_bonus_kopecks: 900,
        tiers: [
          { tier: 'referrer', percent_bp: 1000 },
          { tier: 'upline_1', percent_bp: 300 },
        ],
      },
    });
    managerToken = await createStaffToken(t, org.slug, 'manager');
    viewerToken = await createStaffToken(t, org.slug, 'viewer');
    const stranger = await createTenant(t);
    strangerToken = await createStaffToken(t, stranger.slug, 'manager');
    const [root] = await createChain(t, org.key, 1);
    for (const { v } of VARIANTS) {
      const seller = await upsertUser(t, org.key, {
        full_name: `Ольга Сидорова ${v}`,
        email: `olga${v}@shop.example`,
        referrer_user_id: root.serviceUserId,
      });
      for (let i = 0; i < 3; i++) {
        const lead = await createLead(t, org.key, seller.serviceUserId, {
          contact: { name: `Покупатель ${v}-${i}`, email: `buyer${v}${i}@shop.example` },
        });
        await registerConversion(t, org.key, {
          lead_id: lead,
          amount_kopecks: 120_000 * (i + 1),
          external_order_id: `ord-${v}-${i}`,
        });
      }
      await createLead(t, org.key, seller.serviceUserId, {
        contact: { name: `Холодный ${v}`, email: `cold${v}@shop.example` },
      });
      const flaggedCustomer = `Клиент Спорный ${v}`;
      await createLead(t, org.key, seller.serviceUserId, {
        contact: { name: flaggedCustomer, email: `spor${v}@mailinator.com` },
      });
      const cheat = await upsertUser(t, org.key, {
        full_name: `Нарушитель ${v}`,
        referrer_user_id: root.serviceUserId,
      });
      const cheatLink = await createLink(t, org, cheat);
      fixtures.push({ seller, cheat, cheatLink, flaggedCustomer });
    }
  }, 180_000);
  afterAll(() => suite?.close());

  it.each(VARIANTS)(
    'a manager reverses a conversion, reads the leads, approves a flagged bonus and bans a partner ($name)',
    async ({ v, name, width, javaScriptEnabled }) => {
      const f = fixtures[v];
      const context = await s().newContext({ viewport: { width, height: 900 }, javaScriptEnabled });
      const page = await context.newPage();
      await signIn(page, base, managerToken);
      await page.goto(`${base}/org/${org.slug}`);

      // Conversions: open from the navigation, filter by the partner.
      await clickAndWait(page, page.locator('nav a', { hasText: 'Конверсии' }));
      expect(new URL(page.url()).pathname).toBe(`/org/${org.slug}/conversions`);
      expect(await page.locator('nav a[aria-current=page]').textContent()).toBe('Конверсии');
      await page.locator('input[name=user_id]').fill(f.seller.memberId);
      await clickAndWait(page, page.locator('form[role=search] button[type=submit]'));
      const listed = await api(`/conversions?user_id=${f.seller.memberId}`);
      expect(listed.pagination.total).toBe(3);
      expect(await page.locator('[data-total]').getAttribute('data-total')).toBe('3');
      const onPage = await page
        .locator('[data-conversion]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-conversion')));
      expect(onPage).toEqual(listed.items.map((c: { conversion_id: string }) => c.conversion_id));
      const amounts = await page
        .locator('[data-amount]')
        .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-amount'))));
      expect(amounts).toEqual(
        listed.items.map((c: { amount_kopecks: number }) => c.amount_kopecks),
      );
      const commissions = await page
        .locator('[data-commission]')
        .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-commission'))));
      expect(commissions).toEqual(
        listed.items.map((c: { commission_kopecks: number }) => c.commission_kopecks),
      );
      // Newest first: the last registered order (3 600,00 ₽) leads, formatted in ru-RU.
      expect(listed.items[0].external_order_id).toBe(`ord-${v}-2`);
      expect(await page.locator('[data-amount]').first().textContent()).toBe(rub(360_000));
      expect(rub(360_000)).toMatch(/3\s600,00\s₽/);
      const widths = await pageWidths(page);
      expect(widths.scrollWidth).toBeLessThanOrEqual(widths.innerWidth);
      await shot(page, `conversions-${name}`);

      // The CSV link: the conversions export with the same filter.
      const csvHref = await page.locator('.csv a').getAttribute('href');
      expect(csvHref).toBe(`/org/${org.slug}/conversions.csv?user_id=${f.seller.memberId}`);
      const csv = await page.request.get(`${base}${csvHref}`);
      expect(csv.status()).toBe(200);
      expect(csv.headers()['content-type']).toMatch(/^text\/csv/);
      const lines = (await csv.text()).trim().split('\r\n');
      expect(lines[0]).toBe(
        'conversion_id,lead_id,external_order_id,amount_kopecks,currency,status,reversed_at,reverse_reason,created_at',
      );
      expect(
        lines
          .slice(1)
          .map((l) => l.split(',')[0])
          .sort(),
      ).toEqual([...onPage].sort());

      // Reverse the newest: it is shown reversed, its commission written off.
      const target = listed.items[0].conversion_id as string;
      const row = page.locator('tr', { has: page.locator(`[data-conversion="${target}"]`) });
      await row.locator('input[name=reason]').fill('возврат товара');
      await clickAndWait(page, row.locator('[data-action=reverse]'));
      expect(await page.locator('[role=status]').textContent()).toContain(target);
      expect(new URL(page.url()).searchParams.get('user_id')).toBe(f.seller.memberId);
      const after = page.locator('tr', { has: page.locator(`[data-conversion="${target}"]`) });
      expect(await after.locator('[data-status]').getAttribute('data-status')).toBe('reversed');
      expect(await after.textContent()).toContain('возврат товара');
      expect(await after.locator('[data-commission]').getAttribute('data-commission')).toBe('0');
      await shot(page, `conversions-reversed-${name}`);
      expect(
        (
          await one<{ status: string }>(
            'SELECT status FROM conversions WHERE tenant_id = $1 AND id = $2',
            [org.orgId, target],
          )
        ).status,
      ).toBe('reversed');
      const reversedApi = await api(`/conversions?status=reversed&user_id=${f.seller.memberId}`);
      expect(reversedApi.items.map((c: { conversion_id: string }) => c.conversion_id)).toEqual([
        target,
      ]);

      // The conversion's page: its cascade as the API gives it, every bonus written off.
      await clickAndWait(page, after.locator('[data-conversion]'));
      expect(new URL(page.url()).pathname).toBe(`/org/${org.slug}/conversions/${target}`);
      const detail = await api(`/conversions/${target}`);
      expect(detail.bonuses.map((b: { tier: string }) => b.tier)).toEqual(['referrer', 'upline_1']);
      const cascade = await page
        .locator('[data-bonus]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-bonus')));
      expect(cascade).toEqual(detail.bonuses.map((b: { bonus_id: string }) => b.bonus_id));
      const cascadeAmounts = await page
        .locator('[data-bonus-amount]')
        .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-bonus-amount'))));
      expect(cascadeAmounts).toEqual([36_000, 10_800]);
      expect(cascadeAmounts).toEqual(
        detail.bonuses.map((b: { amount_kopecks: number }) => b.amount_kopecks),
      );
      const cascadeStatuses = await page
        .locator('[data-bonus-status]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-bonus-status')));
      expect(cascadeStatuses).toEqual(['reversed', 'reversed']);
      expect(await page.locator('[data-action=reverse]').count()).toBe(0);

      // Another one reversed from its own page.
      const second = listed.items[1].conversion_id as string;
      await page.goto(`${base}/org/${org.slug}/conversions/${second}`);
      expect(await page.locator('[data-amount]').textContent()).toBe(rub(240_000));
      await page.locator('form.actions input[name=reason]').fill('отказ клиента');
      await shot(page, `conversion-${name}`);
      await clickAndWait(page, page.locator('[data-action=reverse]'));
      expect(new URL(page.url()).pathname).toBe(`/org/${org.slug}/conversions/${second}`);
      expect(await page.locator('[role=status]').textContent()).toContain(second);
      expect(await page.locator('dd [data-status]').getAttribute('data-status')).toBe('reversed');
      expect((await api(`/conversions/${second}`)).conversion.reverse_reason).toBe('отказ клиента');
      await shot(page, `conversion-reversed-${name}`);

      // Leads: the partner's four, newest first, as the API lists them; the CSV of the same.
      await clickAndWait(page, page.locator('nav a', { hasText: 'Лиды' }));
      await page.locator('form[role=search] input[name=user_id]').fill(f.seller.serviceUserId);
      await page.locator('form[role=search] select[name=status]').selectOption('converted');
      await clickAndWait(page, page.locator('form[role=search] button[type=submit]'));
      const leads = await api(`/leads?user_id=${f.seller.serviceUserId}&status=converted`);
      expect(leads.pagination.total).toBe(3);
      const leadIds = await page
        .locator('[data-lead]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-lead')));
      expect(leadIds).toEqual(leads.items.map((l: { lead_id: string }) => l.lead_id));
      expect(await page.locator('[data-lead]').first().textContent()).toBe(`Покупатель ${v}-2`);
      const leadsCsv = await page.request.get(
        `${base}${await page.locator('.csv a').getAttribute('href')}`,
      );
      expect(leadsCsv.status()).toBe(200);
      const leadLines = (await leadsCsv.text()).trim().split('\r\n');
      expect(leadLines.length).toBe(4);
      expect(leadLines.slice(1).every((l) => l.includes(',converted,'))).toBe(true);
      const leadWidths = await pageWidths(page);
      expect(leadWidths.scrollWidth).toBeLessThanOrEqual(leadWidths.innerWidth);
      await shot(page, `leads-${name}`);

      // A new lead rejected with a reason: gone from the new ones, shown rejected with it.
      await page.locator('form[role=search] select[name=status]').selectOption('new');
      await clickAndWait(page, page.locator('form[role=search] button[type=submit]'));
      expect(await page.locator('[data-lead]').count()).toBe(2);
      const cold = page.locator('tr', {
        has: page.locator('[data-lead]', { hasText: `Холодный ${v}` }),
      });
      const coldId = (await cold.locator('[data-lead]').getAttribute('data-lead'))!;
      await cold.locator('form select[name=status]').selectOption('rejected');
      await cold.locator('form input[name=reason]').fill('не дозвонились');
      await shot(page, `leads-new-${name}`);
      await clickAndWait(page, cold.locator('[data-action=lead-status]'));
      expect(await page.locator('[role=status]').textContent()).toContain(coldId);
      expect(new URL(page.url()).searchParams.get('status')).toBe('new');
      expect(await page.locator('[data-lead]').count()).toBe(1);
      const rejected = await api(`/leads?user_id=${f.seller.memberId}&status=rejected`);
      expect(rejected.items.map((l: { lead_id: string }) => l.lead_id)).toEqual([coldId]);
      expect(rejected.items[0].status_reason).toBe('не дозвонились');
      const coldBonus = await one<{ status: string }>(
        `SELECT status FROM bonuses WHERE tenant_id = $1 AND source_type = 'lead' AND source_id = $2`,
        [org.orgId, coldId],
      );
      expect(coldBonus.status).toBe('rejected');
      await page.goto(`${base}/org/${org.slug}/leads?status=rejected&user_id=${f.seller.memberId}`);
      expect(await page.locator('[data-status=rejected]').count()).toBe(1);
      expect(await page.locator('main table').textContent()).toContain('не дозвонились');

      // The bonus queue: the flagged lead bonus with the partner's name, the customer, the amount.
      await clickAndWait(page, page.locator('nav a', { hasText: 'Бонусы' }));
      await page.goto(`${base}/org/${org.slug}/bonuses?status=pending&review=flagged`);
      const queue = await api(
        `/bonuses?status=pending&review=flagged&user_id=${f.seller.memberId}`,
      );
      expect(queue.items).toHaveLength(1);
      const flagged = queue.items[0];
      const bonusRow = page.locator('tr', {
        has: page.locator('[data-customer]', { hasText: f.flaggedCustomer }),
      });
      expect(await bonusRow.count()).toBe(1);
      expect(await bonusRow.locator('[data-partner-name]').textContent()).toBe(
        `Ольга Сидорова ${v}`,
      );
      expect(await bonusRow.locator('[data-amount]').getAttribute('data-amount')).toBe(
        String(flagged.amount_kopecks),
      );
      expect(await bonusRow.locator('[data-amount]').textContent()).toBe(rub(900));
      expect(await bonusRow.textContent()).toContain('disposable_email');
      await shot(page, `bonus-queue-${name}`);
      const queueWidths = await pageWidths(page);
      expect(queueWidths.scrollWidth).toBeLessThanOrEqual(queueWidths.innerWidth);
      // The same queue in English (?lang=), then back to Russian for the rest.
      await page.goto(`${base}/org/${org.slug}/bonuses?status=pending&review=flagged&lang=en`);
      expect(await page.locator('html').getAttribute('lang')).toBe('en');
      expect(await page.locator('header nav [aria-current=page]').textContent()).toBe('Bonuses');
      expect(await bonusRow.locator('[data-action=approve]').textContent()).toBe('Approve');
      await shot(page, `bonus-queue-en-${name}`);
      await page.goto(`${base}/org/${org.slug}/bonuses?status=pending&review=flagged&lang=ru`);
      expect(await bonusRow.locator('[data-action=approve]').textContent()).toBe('Одобрить');
      // Its CSV: the bonuses export of the same filters, as many as the API lists.
      const bonusCsvHref = await page.locator('[data-link=csv]').getAttribute('href');
      expect(bonusCsvHref).toBe(`/org/${org.slug}/bonuses.csv?status=pending&review=flagged`);
      const bonusCsv = await page.request.get(`${base}${bonusCsvHref}`);
      expect(bonusCsv.status()).toBe(200);
      const bonusLines = (await bonusCsv.text()).trim().split('\r\n');
      const allFlagged = await api('/bonuses?status=pending&review=flagged&page_size=100');
      expect(
        bonusLines
          .slice(1)
          .map((l) => l.split(',')[0])
          .sort(),
      ).toEqual(allFlagged.items.map((b: { bonus_id: string }) => b.bonus_id).sort());
      expect(bonusLines.slice(1).length).toBeGreaterThan(0);
      await clickAndWait(page, bonusRow.locator('[data-action=approve]'));
      expect(await page.locator('[role=status]').textContent()).toContain(flagged.bonus_id);
      const approved = await api(`/bonuses?user_id=${f.seller.memberId}&review=cleared`);
      expect(approved.items.map((b: { bonus_id: string }) => b.bonus_id)).toEqual([
        flagged.bonus_id,
      ]);
      expect(approved.items[0].status).toBe('approved');

      // Ban: the partner's page, a reason, the confirming button; their link answers 410.
      expect((await s().t.http().get(`/s/${f.cheatLink.code}`)).status).toBe(302);
      await page.goto(`${base}/org/${org.slug}/partners/${f.cheat.memberId}`);
      await page.locator('[data-action=open-ban]').click();
      await page.locator('details.ban input[name=reason]').fill('накрутка кликов');
      await shot(page, `partner-ban-${name}`);
      await clickAndWait(page, page.locator('[data-action=ban]'));
      expect(await page.locator('[role=status]').textContent()).toBe(
        'Партнёр заблокирован: его бонусы в ожидании отклонены, ссылки отключены.',
      );
      expect(await page.locator('[data-banned]').textContent()).toContain('накрутка кликов');
      expect(await page.locator('[data-status]').getAttribute('data-status')).toBe('inactive');
      expect(await page.locator('[data-action=ban]').count()).toBe(0);
      expect(await page.locator('[data-action=activate]').count()).toBe(0);
      const banned = await one<{ banned_at: Date | null }>(
        'SELECT banned_at FROM members WHERE tenant_id = $1 AND id = $2',
        [org.orgId, f.cheat.memberId],
      );
      expect(banned.banned_at).not.toBeNull();
      const audit = await one<{ n: number }>(
        `SELECT count(*)::int AS n FROM audit_log
          WHERE tenant_id = $1 AND action = 'user.banned' AND target_id = $2`,
        [org.orgId, f.cheat.memberId],
      );
      expect(audit.n).toBe(1);
      const link = await s().t.http().get(`/s/${f.cheatLink.code}`);
      expect(link.status).toBe(410);
      await shot(page, `partner-banned-${name}`);
      // Lifting the ban: active again, the link works again.
      await clickAndWait(page, page.locator('[data-action=unban]'));
      expect(await page.locator('[role=status]').textContent()).toBe(
        'Блокировка снята: партнёр снова активен.',
      );
      expect(await page.locator('[data-banned]').count()).toBe(0);
      expect(await page.locator('[data-status]').getAttribute('data-status')).toBe('active');
      expect((await s().t.http().get(`/s/${f.cheatLink.code}`)).status).toBe(302);

      // English for the rest of the session.
      await page.goto(`${base}/org/${org.slug}/conversions?lang=en`);
      expect(await page.locator('h1').textContent()).toBe('Conversions');
      await page.goto(`${base}/org/${org.slug}/leads`);
      expect(await page.locator('html').getAttribute('lang')).toBe('en');
      expect(await page.locator('h1').textContent()).toBe('Leads');
      await shot(page, `leads-en-${name}`);
      await context.close();
    },
    240_000,
  );

  /** Every form post of the new pages, for a given session's CSRF token. */
  async function everyPost(page: Page, csrf: string | undefined) {
    const conversion = (
      await one<{ id: string }>(
        `SELECT id FROM conversions WHERE tenant_id = $1 AND status = 'registered' LIMIT 1`,
        [org.orgId],
      )
    ).id;
    const bonus = (
      await one<{ id: string }>(
        `SELECT id FROM bonuses WHERE tenant_id = $1 AND status = 'pending' LIMIT 1`,
        [org.orgId],
      )
    ).id;
    const lead = (
      await one<{ id: string }>(
        `SELECT id FROM leads WHERE tenant_id = $1 AND status = 'new' LIMIT 1`,
        [org.orgId],
      )
    ).id;
    const partner = fixtures[0].seller.memberId;
    const posts: [string, Record<string, string>][] = [
      [`/org/${org.slug}/leads/${lead}/status`, { status: 'rejected', reason: 'x' }],
      [`/org/${org.slug}/conversions/${conversion}/reverse`, { reason: 'x' }],
      [`/org/${org.slug}/partners/${partner}/ban`, { reason: 'x' }],
      [`/org/${org.slug}/partners/${partner}/unban`, {}],
      [`/org/${org.slug}/bonuses/${bonus}/approve`, {}],
      [`/org/${org.slug}/bonuses/${bonus}/reject`, { reason: 'x' }],
    ];
    const statuses: number[] = [];
    for (const [path, fields] of posts) {
      const res = await page.request.post(`${base}${path}`, {
        form: { ...(csrf === undefined ? {} : { _csrf: csrf }), ...fields },
        headers: { Origin: base },
        maxRedirects: 0,
      });
      statuses.push(res.status());
    }
    const unchanged = await one<{ c: string; b: string; m: Date | null; l: string }>(
      `SELECT (SELECT status FROM conversions WHERE tenant_id = $1 AND id = $2) AS c,
              (SELECT status FROM bonuses WHERE tenant_id = $1 AND id = $3) AS b,
              (SELECT banned_at FROM members WHERE tenant_id = $1 AND id = $4) AS m,
              (SELECT status FROM leads WHERE tenant_id = $1 AND id = $5) AS l`,
      [org.orgId, conversion, bonus, partner, lead],
    );
    expect(unchanged).toEqual({ c: 'registered', b: 'pending', m: null, l: 'new' });
    return statuses;
  }

  it('a viewer sees no form that changes anything, and every post of theirs is refused', async () => {
    const context = await s().newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await signIn(page, base, viewerToken);
    await page.goto(`${base}/org/${org.slug}/conversions`);
    expect(await page.locator('[data-total]').getAttribute('data-total')).toBe('6');
    expect(await page.locator('[data-action=reverse]').count()).toBe(0);
    const registered = (
      await one<{ id: string }>(
        `SELECT id FROM conversions WHERE tenant_id = $1 AND status = 'registered' LIMIT 1`,
        [org.orgId],
      )
    ).id;
    await page.goto(`${base}/org/${org.slug}/conversions/${registered}`);
    expect(await page.locator('[data-bonus]').count()).toBe(2);
    expect(await page.locator('[data-action=reverse]').count()).toBe(0);
    await page.goto(`${base}/org/${org.slug}/partners/${fixtures[0].seller.memberId}`);
    expect(await page.locator('[data-action=ban]').count()).toBe(0);
    await page.goto(`${base}/org/${org.slug}/leads`);
    expect(await page.locator('[data-total]').getAttribute('data-total')).toBe('10');
    expect(await page.locator('[data-action=lead-status]').count()).toBe(0);
    expect(await everyPost(page, await csrfOf(page))).toEqual([403, 403, 403, 403, 403, 403]);
    await context.close();
  }, 60_000);

  it('a manager post without the CSRF token, or with another session’s, is refused', async () => {
    const viewer = await (await s().newContext()).newPage();
    await signIn(viewer, base, viewerToken);
    const foreign = await csrfOf(viewer);
    const context = await s().newContext();
    const page = await context.newPage();
    await signIn(page, base, managerToken);
    await page.goto(`${base}/org/${org.slug}/conversions`);
    expect(await csrfOf(page)).not.toBe(foreign);
    expect(await everyPost(page, undefined)).toEqual([403, 403, 403, 403, 403, 403]);
    expect(await everyPost(page, foreign)).toEqual([403, 403, 403, 403, 403, 403]);
    await context.close();
  }, 60_000);

  it('a filter the API refuses is refused by the page, the CSV and the API alike', async () => {
    const context = await s().newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await signIn(page, base, managerToken);
    for (const query of [
      'from=a',
      'from=2026-02-30',
      'from=0000-01-01',
      'from=2026-03-02&to=2026-03-01',
      'user_id=mbr_x',
      'status=lost',
    ]) {
      for (const list of ['conversions', 'leads']) {
        const api = await s()
          .t.http()
          .get(`/admin/v1/tenants/${org.slug}/${list}?${query}`)
          .set('Authorization', `Bearer ${viewerToken}`);
        expect([list, query, api.status]).toEqual([list, query, 400]);
        const csv = await page.request.get(`${base}/org/${org.slug}/${list}.csv?${query}`);
        expect([list, query, csv.status()]).toEqual([list, query, 400]);
        const res = await page.goto(`${base}/org/${org.slug}/${list}?${query}`);
        expect(res?.status()).toBe(200);
        expect(await page.locator('[role=alert]').count()).toBe(1);
        expect(await page.locator('[data-total]').count()).toBe(0);
      }
    }
    for (const query of ['status=lost', 'review=x', 'user_id=mbr_x', 'created_from=a']) {
      const csv = await page.request.get(`${base}/org/${org.slug}/bonuses.csv?${query}`);
      expect([query, csv.status()]).toEqual([query, 400]);
    }
    await context.close();
  }, 60_000);

  it('staff of another organisation see nothing and change nothing', async () => {
    const context = await s().newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await signIn(page, base, strangerToken);
    const csrf = await csrfOf(page);
    const someConversion = (
      await one<{ id: string }>('SELECT id FROM conversions WHERE tenant_id = $1 LIMIT 1', [
        org.orgId,
      ])
    ).id;
    for (const path of [
      'conversions',
      `conversions/${someConversion}`,
      'conversions.csv',
      'leads',
      'leads.csv',
      'bonuses?review=flagged',
      'bonuses.csv',
      `partners/${fixtures[0].seller.memberId}`,
    ]) {
      const res = await page.request.get(`${base}/org/${org.slug}/${path}`, { maxRedirects: 0 });
      expect([path, res.status()]).toEqual([path, 403]);
      expect(await res.text()).not.toContain('Ольга');
    }
    for (const path of ['conversions', 'leads', `conversions/${someConversion}`]) {
      const res = await s()
        .t.http()
        .get(`/admin/v1/tenants/${org.slug}/${path}`)
        .set('Authorization', `Bearer ${strangerToken}`);
      expect(res.status).toBe(403);
    }
    expect(await everyPost(page, csrf)).toEqual([403, 403, 403, 403, 403, 403]);
    await context.close();
  }, 60_000);
});
