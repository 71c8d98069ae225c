/**
 * The console (docs/console.md): the integration page, a webhook event's page and the audit log are console
 * pages: the console's navigation with the page marked, the tenant's language (Russian here) or the
 * one `?lang=` chose for the session, a phone's width without sideways scrolling of the page, and
 * no WCAG 2 A/AA violation found by axe-core (Russian and English, 1280 and 390 px, owner and
 * viewer). Screenshots go to CONSOLE_SHOTS (or test-output/screenshots).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { createLead, eventsOf } from '../../factories/money.factory';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { createChain } from '../../factories/users.factory';
import {
  clickAndWait,
  pageWidths,
  pollFor,
  signIn,
  tableRows,
} from '../../utils/admin-pages-browser';
import { SCREENSHOT_DIR } from '../../utils/browser';
import { type BrowserSuite, startBrowserSuite } from '../../utils/browser-suite';
import { type HttpsReceiver, startHttpsReceiver } from '../../utils/https-receiver';
import { newRunId } from '../../utils/test-env';
import { violations } from '../../utils/axe';

const SHOTS = process.env.CONSOLE_SHOTS ?? SCREENSHOT_DIR;

describe('console integration and audit log pages: languages, phone width, accessibility (docs/console.md)', () => {
  let suite: BrowserSuite | undefined;
  let receiver: HttpsReceiver | undefined;
  let org: TestTenant;
  let viewerToken: string;
  let deadEventId: string;
  const s = () => suite!;
  const at = (path: string) => `${s().base}/org/${org.slug}/${path}`;
  const shot = async (page: Page, name: string) => {
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  };

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    receiver.script = () => ({ status: 500 });
    suite = await startBrowserSuite({
      env: {
        WEBHOOK_CA_FILE: receiver.caFile,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RETRY_DELAYS_MS: '100,100',
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_SWEEP_MS: '500',
        QUEUE_PREFIX: `consoleintegration_${newRunId()}`,
      },
      timeoutMs: 20_000,
    });
    suite.onClose(() => receiver?.close());
    const t = suite.t;
    org = await createTenant(t, { locale: 'ru-RU' });
    viewerToken = await createStaffToken(t, org.slug, 'viewer');
    const put = await t
      .http()
      .put(`/admin/v1/tenants/${org.slug}/webhook`)
      .set('Authorization', `Bearer ${t.adminToken}`)
      .send({ url: receiver.url, events: ['lead.created'], enabled: true });
    expect(put.status).toBe(200);
    const chain = await createChain(t, org.key, 2);
    const leadId = await createLead(t, org.key, chain[1].serviceUserId, {
      contact: { name: 'Клиент', email: 'client@shop.example' },
    });
    const [event] = (await eventsOf(t, org.orgId, 'lead.created')).filter(
      (x) => x.payload.lead_id === leadId,
    );
    deadEventId = event.event_id;
    const dead = await pollFor(async () => {
      const rows = await t.db.query(
        `SELECT 1 FROM audit_log WHERE tenant_id = $1 AND action = 'webhook.dead_lettered'`,
        [org.orgId],
      );
      return rows.length > 0;
    }, 20_000);
    expect(dead).toBe(true);
  }, 120_000);
  afterAll(() => suite?.close());

  it("speaks the tenant's language, switches with ?lang= for the session, and marks the page in the navigation", async () => {
    const ctx = await s().newContext({ viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    await signIn(page, s().base, s().t.adminToken);

    await page.goto(at('integration'));
    expect(await page.locator('html').getAttribute('lang')).toBe('ru');
    expect(await page.locator('h1').textContent()).toBe('Интеграция');
    expect(await page.locator('header nav a[aria-current="page"]').textContent()).toBe(
      'Интеграция',
    );
    expect(await page.locator('h2').allTextContents()).toEqual([
      'Источники и домены ссылок',
      'Ключи организации',
      'Вебхук',
      'Последние доставки',
    ]);
    const dead = page.locator('tr.dead', { hasText: deadEventId });
    expect(await dead.locator('.badge').textContent()).toBe('не доставлено');
    expect(await dead.locator('form[action$="/replay"] button').textContent()).toBe(
      'Отправить снова',
    );

    // A key made here is shown once, in Russian, with the page's forms and CSRF as before.
    const keyForm = page.locator('form[data-form="create-key"]');
    await keyForm.locator('input[name="name"]').fill('ключ-1');
    await clickAndWait(page, keyForm.locator('[data-action="create-key"]'));
    expect(await page.locator('p.notice').textContent()).toBe('Ключ создан.');
    expect(await page.locator('#new-key').textContent()).toMatch(/^tk_[A-Za-z0-9_-]{32,}$/);
    expect(await page.locator('main').textContent()).toContain('Ключ организации ключ-1');
    // The copy button is the page's own script's (under the answer's CSP nonce), in Russian.
    expect(await page.locator('button[data-copy="new-key"]').isVisible()).toBe(true);
    expect(await page.locator('button[data-copy="new-key"]').textContent()).toBe('Копировать');
    // The language switch of the page after a post leads to the page, not to the post's URL.
    expect(await page.locator('.lang a[lang="en"]').getAttribute('href')).toBe(
      `/org/${org.slug}/integration?lang=en`,
    );
    await shot(page, 'integration-ru-key-created');
    await clickAndWait(page, page.locator('tr', { hasText: 'ключ-1' }).locator('button'));
    expect(await page.locator('p.notice').textContent()).toBe('Ключ отозван.');

    await clickAndWait(page, page.locator('header nav a', { hasText: 'Журнал' }));
    expect(new URL(page.url()).pathname).toBe(`/org/${org.slug}/audit-log`);
    expect(await page.locator('h1').textContent()).toBe('Журнал');
    expect(await page.locator('header nav a[aria-current="page"]').textContent()).toBe('Журнал');
    const filter = page.locator('form.filters');
    await filter.locator('input[name="action"]').fill('webhook.dead_lettered');
    await clickAndWait(page, filter.locator('button[type="submit"]'));
    const rows = await tableRows(page.locator('main'));
    expect(rows).toHaveLength(1);
    expect(rows[0][1]).toBe('webhooks (система)');
    expect(rows[0][3]).toBe(deadEventId);

    await clickAndWait(page, page.locator(`tr.dead a[href$="/webhook-events/${deadEventId}"]`));
    expect(await page.locator('h1').textContent()).toBe(`Событие ${deadEventId}`);
    expect(await page.locator('header nav a[aria-current="page"]').textContent()).toBe(
      'Интеграция',
    );
    expect(await page.locator('main .badge').first().textContent()).toBe('не доставлено');

    // ?lang=en switches, and the choice holds for the session's other pages.
    await page.goto(at('audit-log?lang=en'));
    expect(await page.locator('h1').textContent()).toBe('Audit log');
    await page.goto(at('integration'));
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    expect(await page.locator('h1').textContent()).toBe('Integration');
    expect(await page.locator('tr.dead .badge').first().textContent()).toBe('dead');
    await page.goto(at(`webhook-events/${deadEventId}`));
    expect(await page.locator('h1').textContent()).toBe(`Event ${deadEventId}`);
    await ctx.close();
  }, 120_000);

  const PATHS = () => [
    'integration',
    'integration?notice=Settings%20saved.',
    'integration?error=allowed_origins%3A%20bad',
    `webhook-events/${deadEventId}`,
    'audit-log',
    'audit-log?action=webhook.dead_lettered',
  ];

  it.each([
    ['owner', 1280],
    ['owner', 390],
    ['viewer', 1280],
    ['viewer', 390],
  ] as const)(
    'as %s at %ipx, in Russian and English: no axe violation, the page as wide as the screen',
    async (who, width) => {
      const ctx = await s().newContext({ viewport: { width, height: 900 }, bypassCSP: true });
      const page = await ctx.newPage();
      await signIn(page, s().base, who === 'viewer' ? viewerToken : s().t.adminToken);
      const found: string[] = [];
      const wide: string[] = [];
      for (const lang of ['ru', 'en']) {
        await page.goto(at(`audit-log?lang=${lang}`));
        for (const path of PATHS()) {
          const res = await page.goto(at(path));
          expect(res?.status()).toBe(200);
          expect(await page.locator('html').getAttribute('lang')).toBe(lang);
          found.push(...(await violations(page)).map((v) => `${lang} ${path}: ${v}`));
          const { scrollWidth, innerWidth } = await pageWidths(page);
          if (scrollWidth > innerWidth + 1) wide.push(`${lang} ${path}: ${scrollWidth}px`);
          const name = path.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
          await shot(page, `${who}-${width}-${lang}-${name}`);
        }
        if (who === 'owner') {
          // The page as a post shows it: a new key, once.
          await page.goto(at('integration'));
          const keyForm = page.locator('form[data-form="create-key"]');
          await keyForm.locator('input[name="name"]').fill(`a11y-${lang}-${width}`);
          await clickAndWait(page, keyForm.locator('[data-action="create-key"]'));
          expect(await page.locator('#new-key').count()).toBe(1);
          found.push(...(await violations(page)).map((v) => `${lang} new key: ${v}`));
          const { scrollWidth, innerWidth } = await pageWidths(page);
          if (scrollWidth > innerWidth + 1) wide.push(`${lang} new key: ${scrollWidth}px`);
          await shot(page, `${who}-${width}-${lang}-new-key`);
          // Two active keys at most: this one goes again.
          const row = page.locator('tr', { hasText: `a11y-${lang}-${width}` });
          await clickAndWait(page, row.locator('form[action$="/revoke"] button'));
          expect(await page.locator('p.notice').count()).toBe(1);
        }
      }
      expect(found).toEqual([]);
      expect(wide).toEqual([]);
      await ctx.close();
    },
    240_000,
  );
});
