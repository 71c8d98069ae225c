// Docs as tests, in a browser: the copy-paste snippet of docs/embedding.md (section 8, the block
// after `<!-- snippet -->`) run as printed, with only its three CONFIG values set, in Chromium,
// from a partner page on its own origin, against the real service. It checks what the page
// says the snippet does, so an edit of the snippet, or of the service, that breaks it fails here.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import { createTenant, type TestTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { type BrowserSuite, startBrowserSuite } from '../../utils/browser-suite';
import type { TestApp } from '../../utils/create-test-app';
import type { SmtpCatcher } from '../../utils/smtp-catcher';

const EMBEDDING = resolve(__dirname, '../../../docs/embedding.md');

/** The snippet as printed, with the CONFIG values of this run (each must be there once). */
function snippet(config: { service: string; tenant: string; target: string }): string {
  const text = readFileSync(EMBEDDING, 'utf8');
  const found = /<!-- snippet -->\n```html\n([\s\S]*?)\n```/.exec(text);
  if (!found) throw new Error('docs/embedding.md has no <!-- snippet --> html block');
  let html = found[1];
  for (const [name, value] of [
    ['SERVICE_ORIGIN', config.service],
    ['TENANT', config.tenant],
    ['TARGET_URL', config.target],
  ]) {
    const line = new RegExp(`const ${name} = '[^']*';`);
    if (!line.test(html)) throw new Error(`the snippet has no "const ${name} = '…';"`);
    html = html.replace(line, `const ${name} = '${value}';`);
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body>${html}</body></html>`;
}

describe('the copy-paste snippet of docs/embedding.md, in Chromium', () => {
  let smtp: SmtpCatcher;
  let suite: BrowserSuite | undefined;
  let t: TestApp;
  let site: http.Server;
  let tenant: TestTenant;
  let base: string;
  let siteOrigin: string;
  let page = '';
  const email = 'maria.snippet@example.com';

  beforeAll(async () => {
    suite = await startBrowserSuite({ smtp: true });
    ({ t, base, smtp } = suite);
    // The partner's site on `localhost`, so that an http: page may be a website link target.
    site = http.createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page);
    });
    await new Promise<void>((done) => site.listen(0, '127.0.0.1', done));
    suite.onClose(() => new Promise((done) => site?.close(done)));
    siteOrigin = `http://localhost:${(site.address() as AddressInfo).port}`;
    tenant = await createTenant(t, { allowed_origins: [siteOrigin] });
    await upsertUser(t, tenant.key, { email, full_name: 'Maria Ivanova' });
    page = snippet({ service: base, tenant: tenant.slug, target: `${siteOrigin}/catalog` });
  }, 60_000);

  afterAll(() => suite?.close());

  const newContext = () => suite!.newContext();

  /** Clicks the button; resolves with the popup it opened. */
  async function click(context: BrowserContext, shop: Page): Promise<Page> {
    const opened = context.waitForEvent('page');
    await shop.click('#referral-get-link');
    const popup = await opened;
    await popup.waitForLoadState('domcontentloaded');
    return popup;
  }

  async function signIn(popup: Page): Promise<void> {
    await popup.locator('input[type=email]').fill(email);
    await popup.locator('[data-action=submit]').click();
    const code = popup.locator('input[autocomplete=one-time-code]');
    await code.waitFor();
    await code.fill((await smtp.take(email)).code!);
    await popup.locator('[data-action=submit]').click();
    await popup.locator('[data-action=allow]').waitFor();
  }

  async function decide(popup: Page, decision: 'allow' | 'deny'): Promise<void> {
    const closed = popup.waitForEvent('close');
    await popup
      .locator(`[data-action=${decision}]`)
      .click()
      .catch((error: unknown) => {
        if (!popup.isClosed()) throw error;
      });
    await closed;
  }

  const status = (shop: Page) => shop.locator('#referral-status');
  const link = (shop: Page) => shop.locator('#referral-short-url');

  it('signs in through the popup, shows the short link, and ignores forged messages', async () => {
    const context = await newContext();
    await context.clock.install();
    const shop = await context.newPage();
    await shop.goto(`${siteOrigin}/`);
    const popup = await click(context, shop);

    const opened = new URL(popup.url());
    expect(`${opened.origin}${opened.pathname}`).toBe(`${base}/oauth/authorize`);
    const params = Object.fromEntries(opened.searchParams);
    expect(params).toEqual({
      client_id: tenant.slug,
      response_type: 'code',
      scope: 'profile:read',
      state: expect.stringMatching(/^[0-9a-f]{32}$/) as unknown,
      popup: '1',
    });
    // A forged success from the page's own origin, with the right state, and one from the
    // service's origin (the popup) with a wrong state: both must be ignored.
    await shop.evaluate((state) => {
      window.postMessage({ type: 'service:auth-success', token: 'forged', state }, '*');
    }, params.state);
    await popup.evaluate(() => {
      window.opener.postMessage({ type: 'service:auth-success', token: 'forged', state: 'x' }, '*');
    });

    await signIn(popup);
    await decide(popup, 'allow');
    await link(shop).waitFor({ state: 'visible' });
    const shortUrl = await link(shop).getAttribute('href');
    expect(shortUrl).toMatch(new RegExp(`^${base}/s/[A-Za-z0-9]{8}$`));
    expect(await link(shop).textContent()).toBe(shortUrl);
    expect(await status(shop).textContent()).toBe('Your referral link:');
    const click1 = await request(base).get(new URL(shortUrl!).pathname);
    expect(click1.status).toBe(302);
    expect(click1.headers.location).toMatch(new RegExp(`^${siteOrigin}/catalog\\?ref=[\\w.-]+$`));

    // A second click reuses the token in memory: no popup, the same link.
    const pages = context.pages().length;
    await shop.click('#referral-get-link');
    await shop.waitForFunction(() => !document.querySelector('button')!.disabled);
    expect(context.pages()).toHaveLength(pages);
    expect(await link(shop).getAttribute('href')).toBe(shortUrl);

    // Nothing stored on the page's origin.
    expect(
      await shop.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie]),
    ).toEqual([0, 0, '']);

    // Past expires_at (one hour), the next click opens the popup again: consent only, since
    // the service's session is kept.
    await context.clock.fastForward('01:01:00');
    const again = await click(context, shop);
    await again.locator('[data-action=allow]').waitFor();
    await decide(again, 'allow');
    await shop.waitForFunction(() => !document.querySelector('button')!.disabled);
    expect(await link(shop).getAttribute('href')).toBe(shortUrl);
    await context.close();
  });

  it('says "You declined" on Deny and "Sign-in was cancelled." when the popup is closed', async () => {
    const context = await newContext();
    const shop = await context.newPage();
    await shop.goto(`${siteOrigin}/`);
    const popup = await click(context, shop);
    await signIn(popup);
    await decide(popup, 'deny');
    await shop.waitForFunction(() => !document.querySelector('button')!.disabled);
    expect(await status(shop).textContent()).toBe('You declined; no link was created.');

    const closing = await click(context, shop);
    await closing.close();
    await shop.waitForFunction(() => !document.querySelector('button')!.disabled);
    expect(await status(shop).textContent()).toBe('Sign-in was cancelled.');
    await context.close();
  });
});
