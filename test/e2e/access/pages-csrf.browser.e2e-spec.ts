/**
 * docs/security.md, in a real Chromium: a hostile page on another port of the same
 * host (same-site, so SameSite=Lax cookies still go along) or on another loopback host
 * (cross-site) auto-submits a form to the service. It must not approve a bonus with the staff
 * member's session (finding 1), and it must not sign the victim's browser in to the attacker's
 * account, neither in the popup nor on the admin pages (finding 3, login CSRF). The popup's
 * consent page names who is signed in and lets them switch account.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { createLead, registerConversion } from '../../factories/money.factory';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { createChain, upsertUser } from '../../factories/users.factory';
import { signIn as orgSignInInBrowser } from '../../utils/admin-pages-browser';
import { type OpenerServer, openerState, screenshot, startOpenerServer } from '../../utils/browser';
import { type BrowserSuite, startBrowserSuite } from '../../utils/browser-suite';
import type { TestApp } from '../../utils/create-test-app';
import { formTicket } from '../../utils/pages-http';
import type { SmtpCatcher } from '../../utils/smtp-catcher';

/** A page server for the attacker: `/p/<id>` answers the HTML registered under `id`. */
interface HostileSite {
  port: number;
  /** Registers `html` and returns its path. */
  page: (html: string) => string;
  close: () => Promise<void>;
}

async function startHostileSite(): Promise<HostileSite> {
  const pages = new Map<string, string>();
  const server = http.createServer((req, res) => {
    const html = pages.get((req.url ?? '').replace(/^\/p\//, ''));
    if (req.method !== 'GET' || html === undefined) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => done());
  });
  return {
    port: (server.address() as AddressInfo).port,
    page: (html) => {
      const id = randomBytes(6).toString('hex');
      pages.set(id, html);
      return `/p/${id}`;
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

const attr = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** A page that submits a form to `action` as soon as it loads. */
function autoSubmit(action: string, fields: Record<string, string>, enctype?: string): string {
  return `<!doctype html><html><body><h1>Win a prize</h1>
<form id="f" method="post" action="${attr(action)}"${enctype ? ` enctype="${enctype}"` : ''}>
${Object.entries(fields)
  .map(([k, v]) => `<input type="hidden" name="${attr(k)}" value="${attr(v)}">`)
  .join('\n')}
</form><script>document.getElementById('f').submit();</script></body></html>`;
}

describe('hostile pages cannot act or sign in through a victim browser (docs/security.md)', () => {
  let t: TestApp | undefined;
  let suite: BrowserSuite | undefined;
  let smtp: SmtpCatcher | undefined;
  let opener: OpenerServer | undefined;
  let hostile: HostileSite | undefined;
  let base: string;
  let org: TestTenant;
  let attackerOrg: TestTenant;
  let manager: string;
  let attackerOwner: string;
  let pending: string[];

  const app = () => t!;
  /** Same site as the service (127.0.0.1, another port): Lax cookies are sent along. */
  const sameSite = (path: string) => `http://127.0.0.1:${hostile!.port}${path}`;
  /** Another site on loopback (localhost is not 127.0.0.1): Lax cookies stay home on a POST. */
  const crossSite = (path: string) => `http://localhost:${hostile!.port}${path}`;

  beforeAll(async () => {
    suite = await startBrowserSuite({ smtp: true });
    ({ t, base, smtp } = suite);
    opener = await startOpenerServer();
    hostile = await startHostileSite();
    suite.onClose(() => opener?.close());
    suite.onClose(() => hostile?.close());
    org = await createTenant(t, { allowed_origins: [opener.origin] });
    attackerOrg = await createTenant(t);
    manager = await createStaffToken(t, org.slug, 'manager');
    attackerOwner = await createStaffToken(t, attackerOrg.slug, 'owner');
    const chain = await createChain(t, org.key, 2);
    const conversion = await registerConversion(t, org.key, {
      lead_id: await createLead(t, org.key, chain[1].serviceUserId),
      amount_kopecks: 10_000,
      external_order_id: 'o-1',
    });
    pending = conversion.cascaded_bonuses.map((b) => b.bonus_id);
  }, 60_000);

  afterAll(() => suite?.close());

  const newContext = () => suite!.newContext();

  /** Opens `url` in `page` and returns the service's answer to the form the page submits. */
  async function visitHostile(page: Page, url: string, target: string) {
    const answer = page.waitForResponse(
      (res) => res.url().startsWith(target) && res.request().method() === 'POST',
    );
    await page.goto(url);
    const res = await answer;
    await page.waitForLoadState('load');
    return res;
  }

  const statusOf = async (bonusId: string) =>
    (
      await app().db.query(`SELECT status FROM bonuses WHERE tenant_id = $1 AND id = $2`, [
        org.orgId,
        bonusId,
      ])
    )[0].status as string;

  /** Every cookie the context holds for the service's host (any path). */
  const cookieNames = async (context: BrowserContext) =>
    (await context.cookies()).filter((c) => c.domain === '127.0.0.1').map((c) => c.name);

  const params = (state: string) => ({
    client_id: org.slug,
    response_type: 'code',
    scope: 'profile:read',
    state,
    popup: '1',
  });

  async function newMember(label: string) {
    const email = `${label}-${randomBytes(4).toString('hex')}@example.com`;
    const user = await upsertUser(app(), org.key, { email, full_name: `Member ${label}` });
    return { email, memberId: user.memberId };
  }

  /** The attacker's own sign-in code (and their own form ticket), obtained over plain HTTP. */
  async function attackerCode(email: string, state: string) {
    const ticket = await formTicket(
      app().http,
      `/oauth/authorize?${new URLSearchParams(params(state)).toString()}`,
    );
    const sent = await app()
      .http()
      .post('/oauth/authorize/email')
      .set('Cookie', ticket.cookie)
      .type('form')
      .send({ ...params(state), email, ...(ticket.csrf ? { _csrf: ticket.csrf } : {}) });
    expect(sent.status).toBe(200);
    return { code: (await smtp!.take(email)).code!, csrf: ticket.csrf ?? '' };
  }

  /** Opens the popup from the tenant's site as the widget's "Get my link" does. */
  async function openPopup(context: BrowserContext, state: string) {
    const page = await context.newPage();
    await page.goto(opener!.pageUrl(base, org.slug, state));
    const popupOpened = context.waitForEvent('page');
    await page.click('#open');
    const popup = await popupOpened;
    await popup.waitForLoadState('domcontentloaded');
    await popup.locator('input[type=email], [data-action=allow]').first().waitFor();
    return { page, popup };
  }

  // ---------------------------------------------------------------------------------------------
  // Finding 1

  it.each([
    ['text/plain with a guessed token', 'text/plain', 415],
    ['multipart/form-data with a guessed token', 'multipart/form-data', 415],
    ['a plain form with a guessed token', undefined, 403],
  ] as const)(
    'a same-site page posting %s does not approve a bonus with the manager’s cookie',
    async (_label, enctype, status) => {
      const context = await newContext();
      const page = await context.newPage();
      await orgSignInInBrowser(page, base, manager);
      expect(new URL(page.url()).pathname).toBe(`/org/${org.slug}/bonuses`);
      const [target] = pending;
      expect(await statusOf(target)).toBe('pending');

      const approve = `${base}/org/${org.slug}/bonuses/${target}/approve`;
      const res = await visitHostile(
        page,
        sameSite(hostile!.page(autoSubmit(approve, { _csrf: 'guessed' }, enctype))),
        approve,
      );
      // The session cookie did go along (same site); the post was refused anyway.
      expect((await res.request().allHeaders()).cookie).toMatch(/svc_admin=/);
      expect(res.status()).toBe(status);
      expect(await statusOf(target)).toBe('pending');
      await screenshot(page, `csrf-same-site-${enctype ?? 'urlencoded'}`);
      // The manager is still signed in and can approve it from the page itself.
      await page.goto(`${base}/org/${org.slug}/bonuses`);
      expect(new URL(page.url()).pathname).toBe(`/org/${org.slug}/bonuses`);
    },
  );

  // ---------------------------------------------------------------------------------------------
  // Finding 3

  it.each([
    ['a cross-site page', 'cross', false],
    ['a same-site page, after the victim opened the popup', 'same', true],
  ] as const)(
    "%s posting the attacker's email and code to the popup's code step signs nobody in",
    async (_label, site, visitedBefore) => {
      const attacker = await newMember('attacker');
      const victim = await newMember('victim');
      const context = await newContext();
      if (visitedBefore) {
        const { popup } = await openPopup(context, `st-${randomBytes(4).toString('hex')}`);
        await popup.close();
        expect(await cookieNames(context)).toContain('svc_login');
      }
      const state = `st-${randomBytes(4).toString('hex')}`;
      const { code, csrf } = await attackerCode(attacker.email, state);
      const action = `${base}/oauth/authorize/code`;
      const html = autoSubmit(action, {
        ...params(state),
        email: attacker.email,
        code,
        _csrf: csrf,
      });
      const url = site === 'cross' ? crossSite(hostile!.page(html)) : sameSite(hostile!.page(html));
      const page = await context.newPage();
      const res = await visitHostile(page, url, action);
      expect(res.status()).toBe(403);
      expect(await cookieNames(context)).not.toContain('svc_session');
      await screenshot(page, `login-csrf-popup-${site}`);

      // The victim's "Get my link": the popup asks who they are; it is not the attacker's account.
      const { page: opener2, popup } = await openPopup(context, state);
      expect(await popup.locator('[data-action=allow]').count()).toBe(0);
      await popup.locator('input[type=email]').fill(victim.email);
      await popup.locator('[data-action=submit]').click();
      await popup.locator('input[autocomplete=one-time-code]').waitFor();
      await popup
        .locator('input[autocomplete=one-time-code]')
        .fill((await smtp!.take(victim.email)).code!);
      await popup.locator('[data-action=submit]').click();
      await popup.locator('[data-action=allow]').waitFor();
      expect(await popup.locator('[data-field=signed-in-as]').textContent()).toBe(victim.email);
      const closed = popup.waitForEvent('close');
      await popup.locator('[data-action=allow]').click();
      await closed;
      await opener2.waitForFunction(
        () => ((globalThis as unknown as { __messages?: unknown[] }).__messages ?? []).length > 0,
      );
      const seen = await openerState(opener2);
      expect(seen.messages).toEqual([
        expect.objectContaining({ type: 'service:auth-success', user_id: victim.memberId }),
      ]);
      // The attacker's code was not even tried.
      const [{ attempts }] = await app().db.query(
        `SELECT attempts FROM sign_in_codes WHERE tenant_id = $1 AND email = $2`,
        [org.orgId, attacker.email],
      );
      expect(attempts).toBe(0);
    },
    45_000,
  );

  it.each([
    ['a cross-site page', 'cross'],
    ['a same-site page, after the victim opened the sign-in form', 'same'],
  ] as const)(
    "%s posting the attacker's staff token to /org/sign-in signs nobody in",
    async (_label, site) => {
      const context = await newContext();
      const page = await context.newPage();
      if (site === 'same') {
        await page.goto(`${base}/org/sign-in`);
        expect(await cookieNames(context)).toContain('svc_admin_login');
      }
      const { csrf } = await formTicket(app().http, '/org/sign-in');
      const action = `${base}/org/sign-in`;
      const html = autoSubmit(action, { token: attackerOwner, _csrf: csrf ?? '' });
      const url = site === 'cross' ? crossSite(hostile!.page(html)) : sameSite(hostile!.page(html));
      const res = await visitHostile(page, url, action);
      expect(res.status()).toBe(403);
      expect(await cookieNames(context)).not.toContain('svc_admin');
      await page.goto(`${base}/org`);
      expect(new URL(page.url()).pathname).toBe('/org/sign-in');
      await screenshot(page, `login-csrf-org-${site}`);
    },
  );

  it('the consent page names who is signed in, and "Use another account" switches', async () => {
    const alice = await newMember('alice');
    const bob = await newMember('bob');
    const context = await newContext();
    const state = `st-${randomBytes(4).toString('hex')}`;
    const { page, popup } = await openPopup(context, state);
    const signInAs = async (email: string) => {
      await popup.locator('input[type=email]').fill(email);
      await popup.locator('[data-action=submit]').click();
      await popup.locator('input[autocomplete=one-time-code]').waitFor();
      await popup
        .locator('input[autocomplete=one-time-code]')
        .fill((await smtp!.take(email)).code!);
      await popup.locator('[data-action=submit]').click();
      await popup.locator('[data-action=allow]').waitFor();
    };
    await signInAs(alice.email);
    expect(await popup.locator('[data-field=signed-in-as]').textContent()).toBe(alice.email);
    await screenshot(popup, 'consent-signed-in-as');

    await popup.locator('[data-action=switch]').click();
    await popup.locator('input[type=email]').waitFor();
    expect(await cookieNames(context)).not.toContain('svc_session');
    const [{ n }] = await app().db.query(
      `SELECT count(*)::int AS n FROM sessions WHERE tenant_id = $1 AND member_id = $2`,
      [org.orgId, alice.memberId],
    );
    expect(n).toBe(0);
    await signInAs(bob.email);
    expect(await popup.locator('[data-field=signed-in-as]').textContent()).toBe(bob.email);
    const closed = popup.waitForEvent('close');
    await popup.locator('[data-action=allow]').click();
    await closed;
    await page.waitForFunction(
      () => ((globalThis as unknown as { __messages?: unknown[] }).__messages ?? []).length > 0,
    );
    expect((await openerState(page)).messages).toEqual([
      expect.objectContaining({ type: 'service:auth-success', user_id: bob.memberId, state }),
    ]);
  }, 45_000);
});
