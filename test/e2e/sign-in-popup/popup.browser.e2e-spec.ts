/**
 * The popup sign-in of seed 4.4 / docs/embedding.md driven the way a person and a partner's site drive it:
 * a real Chromium opens the popup from an opener page on its own origin, the code arrives through
 * a real SMTP exchange, and the opener reads what the popup posts to it. Nothing is mocked: the
 * service listens on a loopback port with real PostgreSQL and Redis behind it.
 */
import { randomBytes } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import type { Response } from 'supertest';
import { createTenant, type TestTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { type OpenerServer, openerState, screenshot, startOpenerServer } from '../../utils/browser';
import { type BrowserSuite, startBrowserSuite } from '../../utils/browser-suite';
import type { TestApp } from '../../utils/create-test-app';
import { type FormTicket, formTicket, hiddenField } from '../../utils/pages-http';
import { expectPopupPage, messageOf } from '../../utils/popup-pages';
import type { SmtpCatcher } from '../../utils/smtp-catcher';

interface AuthSuccess {
  type: string;
  token: string;
  user_id: string;
  org_id: string;
  expires_at: number;
  state: string;
}

const MAIL_FROM_ADDRESS = 'signin@referrals.test';
const DISPLAY_NAME = 'Acme & <Sons> "Shop"';
const HOUR_MS = 60 * 60 * 1000;
const DAY_S = 24 * 60 * 60;
/** How long a test waits to be sure that something (a message, a mail) does not come. */
const QUIET_MS = 1000;

const STATE_SCRIPT = '</script><script>window.__pwned=1</script>';
const STATE_ATTRIBUTE = `"'><img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>&amp;<!--`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const newState = () => `st-${randomBytes(8).toString('hex')}`;

describe('popup sign-in in a real browser (seed 4.4, docs/embedding.md)', () => {
  let suite: BrowserSuite | undefined;
  let smtp: SmtpCatcher | undefined;
  let allowed: OpenerServer | undefined;
  let foreign: OpenerServer | undefined;
  let t: TestApp | undefined;
  let tenant: TestTenant;
  let base: string;
  let partnerSite: string;
  /** The sign-in form's pre-session cookie and `_csrf`, as a browser has them after page one. */
  let ticket: FormTicket;
  /** Console lines of every browser context that mention a Content-Security-Policy violation. */
  let cspViolations: string[] = [];

  const app = () => t!;

  beforeAll(async () => {
    suite = await startBrowserSuite({
      smtp: true,
      env: { MAIL_FROM: `Referral service <${MAIL_FROM_ADDRESS}>` },
    });
    ({ t, base, smtp, cspViolations } = suite);
    allowed = await startOpenerServer();
    foreign = await startOpenerServer();
    suite.onClose(() => allowed?.close());
    suite.onClose(() => foreign?.close());
    const slug = `popup-${randomBytes(4).toString('hex')}`;
    partnerSite = `https://${slug}.example`;
    tenant = await createTenant(t, {
      slug,
      display_name: DISPLAY_NAME,
      // Two entries: the popup posts once per entry, and only the matching opener may receive it.
      allowed_origins: [partnerSite, allowed.origin],
    });
    ticket = await formTicket(
      t.http,
      `/oauth/authorize?${new URLSearchParams(authorizeParams('s')).toString()}`,
    );
  }, 60_000);

  afterAll(() => suite?.close());

  // ---------------------------------------------------------------------------------------------
  // Helpers

  async function newMember(label: string): Promise<{ email: string; memberId: string }> {
    const email = `${label}-${randomBytes(4).toString('hex')}@example.com`;
    const user = await upsertUser(app(), tenant.key, { email, full_name: `Member ${label}` });
    return { email, memberId: user.memberId };
  }

  const newContext = () => suite!.newContext();

  /** Loads the opener page of `opener` and clicks its button; resolves with both pages. */
  async function openPopup(
    context: BrowserContext,
    opener: OpenerServer,
    state: string,
  ): Promise<{ page: Page; popup: Page }> {
    const page = await context.newPage();
    await page.goto(opener.pageUrl(base, tenant.slug, state));
    const popupOpened = context.waitForEvent('page');
    await page.click('#open');
    const popup = await popupOpened;
    await popup.waitForLoadState('domcontentloaded');
    return { page, popup };
  }

  /** Email step, the code from the caught mail, code step; ends on the consent page. */
  async function signIn(popup: Page, email: string, shots?: string): Promise<void> {
    await popup.locator('input[type=email]').fill(email);
    if (shots) await screenshot(popup, `${shots}-1-email`);
    await popup.locator('[data-action=submit]').click();
    const codeField = popup.locator('input[autocomplete=one-time-code]');
    await codeField.waitFor();
    const mail = await smtp!.take(email);
    expect(mail.code).toMatch(/^\d{6}$/);
    await codeField.fill(mail.code!);
    if (shots) await screenshot(popup, `${shots}-2-code`);
    await popup.locator('[data-action=submit]').click();
    await popup.locator('[data-action=allow]').waitFor();
    if (shots) await screenshot(popup, `${shots}-3-consent`);
  }

  /** Clicks Allow or Deny and waits until the popup has closed itself. */
  async function decide(popup: Page, decision: 'allow' | 'deny'): Promise<void> {
    const closed = popup.waitForEvent('close', { timeout: 10_000 });
    await popup
      .locator(`[data-action=${decision}]`)
      .click()
      .catch((error: unknown) => {
        if (!popup.isClosed()) throw error;
      });
    await closed;
  }

  async function waitForMessages(page: Page, count: number): Promise<void> {
    await page.waitForFunction(
      (n) => ((globalThis as unknown as { __messages?: unknown[] }).__messages ?? []).length >= n,
      count,
      { timeout: 5_000 },
    );
  }

  function cabinet(memberId: string, origin: string) {
    return app()
      .http()
      .get(`/embed/v1/data/cabinet/${memberId}?tenant=${tenant.slug}`)
      .set('Origin', origin);
  }

  function authorizeParams(state: string, overrides: Record<string, string | undefined> = {}) {
    const params: Record<string, string | undefined> = {
      client_id: tenant.slug,
      response_type: 'code',
      scope: 'profile:read',
      state,
      popup: '1',
      ...overrides,
    };
    return Object.fromEntries(
      Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
  }

  function getAuthorize(state: string, overrides: Record<string, string | undefined> = {}) {
    const query = new URLSearchParams(authorizeParams(state, overrides)).toString();
    return app().http().get(`/oauth/authorize?${query}`);
  }

  /**
   * A form post as the popup's own pages send it: the sign-in steps (email, code) carry the
   * sign-in form's pre-session cookie and token (login CSRF), the consent step its own `_csrf`.
   */
  function postForm(path: string, fields: Record<string, string>, cookie?: string) {
    const signInStep = path !== '/oauth/authorize/decision';
    const req = app().http().post(path).type('form');
    const cookies = [signInStep ? ticket.cookie : '', cookie ?? ''].filter(Boolean);
    if (cookies.length) req.set('Cookie', cookies.join('; '));
    const body = signInStep ? { _csrf: ticket.csrf!, ...fields } : fields;
    return req.send(new URLSearchParams(body).toString());
  }

  /** Signs `email` in over plain HTTP; returns the session cookie (`svc_session=…`). */
  async function signInOverHttp(email: string, state: string): Promise<string> {
    const sent = await postForm('/oauth/authorize/email', { ...authorizeParams(state), email });
    expectPopupPage(sent);
    const { code } = await smtp!.take(email);
    const res = await postForm('/oauth/authorize/code', {
      ...authorizeParams(state),
      email,
      code: code!,
    });
    expect(res.status).toBe(303);
    const cookie = ([] as string[])
      .concat(res.headers['set-cookie'] ?? [])
      .find((c) => c.startsWith('svc_session='));
    expect(cookie).toBeDefined();
    return cookie!.split(';')[0];
  }

  // ---------------------------------------------------------------------------------------------
  // In the browser

  it('an allowed opener gets exactly one service:auth-success whose token creates referral links', async () => {
    const member = await newMember('alice');
    const state = newState();
    const before = await cabinet(member.memberId, allowed!.origin);
    expect(before.status).toBe(200);
    expect(before.body.user.claim_required).toBe(true);

    const context = await newContext();
    const { page, popup } = await openPopup(context, allowed!, state);
    const popupUrl = new URL(popup.url());
    expect(popupUrl.origin).toBe(base);
    expect(popupUrl.pathname).toBe('/oauth/authorize');
    expect(Object.fromEntries(popupUrl.searchParams)).toEqual(authorizeParams(state));

    await signIn(popup, member.email, 'allow');
    const mail = smtp!.mailsTo(member.email);
    expect(mail).toHaveLength(1);
    expect(mail[0].from).toBe(MAIL_FROM_ADDRESS);
    expect(mail[0].headers['from']).toContain(MAIL_FROM_ADDRESS);
    expect(mail[0].text).toContain(mail[0].code);
    expect((await popup.locator('h1').textContent())?.trim()).toBe(
      `${DISPLAY_NAME} asks to create referral links for you`,
    );

    const clickedAt = Date.now();
    await decide(popup, 'allow');
    await waitForMessages(page, 1);
    await sleep(500); // a second copy (one per allowed origin, or a `*` post) would arrive by now
    const seen = await openerState<AuthSuccess>(page);
    expect(seen.all).toHaveLength(1);
    expect(seen.messages).toHaveLength(1);
    const message = seen.messages[0];
    expect(Object.keys(message).sort()).toEqual(
      ['expires_at', 'org_id', 'state', 'token', 'type', 'user_id'].sort(),
    );
    expect(message).toMatchObject({
      type: 'service:auth-success',
      user_id: member.memberId,
      org_id: tenant.orgId,
      state,
    });
    expect(message.user_id).toMatch(/^mbr_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(Number.isInteger(message.expires_at)).toBe(true);
    expect(String(message.expires_at)).toMatch(/^\d{13}$/);
    expect(message.expires_at).toBeGreaterThan(clickedAt + HOUR_MS - 60_000);
    expect(message.expires_at).toBeLessThan(Date.now() + HOUR_MS + 60_000);
    const [, payload] = message.token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    expect(claims).toMatchObject({ iss: base, aud: 'embed', sub: member.memberId });
    expect(claims.exp * 1000).toBe(message.expires_at);

    const createLink = (authorization?: string) => {
      const req = app()
        .http()
        .post(`/embed/v1/data/referral-link?tenant=${tenant.slug}`)
        .set('Origin', allowed!.origin);
      if (authorization) req.set('Authorization', authorization);
      return req.send({ target_type: 'offer', target_id: 'spring-sale' });
    };
    const link = await createLink(`Bearer ${message.token}`);
    expect(link.status).toBe(200);
    expect(link.body).toEqual({
      short_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/s\/[A-Za-z0-9]{8}$/),
      code: expect.stringMatching(/^[A-Za-z0-9]{8}$/),
      signed_ref: expect.stringMatching(/^[\w-]+\.[\w-]+$/),
      deeplink_id: expect.stringMatching(/^dl_/),
      reused: false,
    });
    expect(link.body.short_url).toBe(`${base}/s/${link.body.code}`);
    expect(link.headers['access-control-allow-origin']).toBe(allowed!.origin);
    const again = await createLink(`Bearer ${message.token}`);
    expect(again.body).toEqual({ ...link.body, reused: true });
    expect((await createLink()).status).toBe(401);

    const after = await cabinet(member.memberId, allowed!.origin);
    expect(after.status).toBe(200);
    expect(after.body.user.claim_required).toBe(false);
    expect(cspViolations).toEqual([]);
    await context.close();
  }, 45_000);

  it('an opener on an origin outside allowed_origins receives nothing', async () => {
    const member = await newMember('bob');
    const state = newState();
    const context = await newContext();
    const { page, popup } = await openPopup(context, foreign!, state);
    await signIn(popup, member.email);
    await decide(popup, 'allow'); // the popup closes itself after posting: the flow did complete
    await sleep(QUIET_MS);
    const seen = await openerState(page);
    expect(seen.all).toEqual([]);
    expect(seen.messages).toEqual([]);
    await context.close();
  }, 45_000);

  it('Deny posts service:auth-error access_denied with the state to the allowed opener', async () => {
    const member = await newMember('carol');
    const state = newState();
    const context = await newContext();
    const { page, popup } = await openPopup(context, allowed!, state);
    await signIn(popup, member.email);
    await decide(popup, 'deny');
    await waitForMessages(page, 1);
    await sleep(500);
    const seen = await openerState(page);
    expect(seen.messages).toEqual([{ type: 'service:auth-error', error: 'access_denied', state }]);
    expect(seen.all).toHaveLength(1);
    await context.close();
  }, 45_000);

  it.each([
    ['script', STATE_SCRIPT],
    ['attribute', STATE_ATTRIBUTE],
  ])(
    'a hostile state (%s context) runs nothing and comes back unchanged',
    async (kind, state) => {
      const member = await newMember(`eve-${kind}`);
      const violationsBefore = cspViolations.length;
      const context = await newContext();
      const { page, popup } = await openPopup(context, allowed!, state);
      const pwned = () =>
        popup.evaluate(() => (globalThis as unknown as { __pwned?: unknown }).__pwned);
      const expectInert = async () => {
        expect(await pwned()).toBeUndefined();
        expect(await popup.locator('input[name=state]').inputValue()).toBe(state);
        expect(await popup.locator('script').count()).toBe(0);
        expect(await popup.locator('img').count()).toBe(0);
      };

      await popup.locator('input[type=email]').waitFor();
      await expectInert();
      await signIn(popup, member.email, `hostile-${kind}`);
      await expectInert();
      await decide(popup, 'allow');
      await waitForMessages(page, 1);
      const seen = await openerState<AuthSuccess>(page);
      expect(seen.messages).toHaveLength(1);
      expect(seen.messages[0]).toMatchObject({ type: 'service:auth-success', state });
      expect(seen.pwned).toBeUndefined();
      // An injected script would at least have been refused by the CSP, which Chromium reports.
      expect(cspViolations.slice(violationsBefore)).toEqual([]);

      // The message page itself (script context): exactly the data block and the nonce'd script.
      const cookie = await signInOverHttp(member.email, state);
      const consent = await getAuthorize(state).set('Cookie', cookie);
      expectPopupPage(consent);
      expect(hiddenField(consent.text, 'state')).toBe(state);
      const done = await postForm(
        '/oauth/authorize/decision',
        {
          ...authorizeParams(state),
          _csrf: hiddenField(consent.text, '_csrf')!,
          decision: 'allow',
        },
        cookie,
      );
      expectPopupPage(done);
      expect(done.text.match(/<script\b/gi)).toHaveLength(2);
      expect(done.text).not.toContain(state);
      expect(messageOf(done.text).message.state).toBe(state);
      await context.close();
    },
    45_000,
  );

  it('a signed-in browser skips the email step; the session cookie is HttpOnly, Lax, /oauth, 30 days', async () => {
    const member = await newMember('dave');
    const context = await newContext();
    const first = await openPopup(context, allowed!, newState());
    await signIn(first.popup, member.email);
    await decide(first.popup, 'allow');
    await waitForMessages(first.page, 1);
    const signedInAt = Date.now();

    const cookies = await context.cookies(`${base}/oauth/authorize`);
    const session = cookies.find((c) => c.name === 'svc_session');
    expect(session).toMatchObject({
      httpOnly: true,
      sameSite: 'Lax',
      path: '/oauth',
      secure: false, // PUBLIC_BASE_URL is http here
    });
    expect(session!.expires * 1000).toBeGreaterThan(signedInAt + 30 * DAY_S * 1000 - 120_000);
    expect(session!.expires * 1000).toBeLessThan(signedInAt + 30 * DAY_S * 1000 + 120_000);

    const state = newState();
    const second = await openPopup(context, allowed!, state);
    await second.popup.locator('[data-action=allow]').waitFor();
    expect(await second.popup.locator('input[type=email]').count()).toBe(0);
    expect(await second.popup.evaluate<string>('document.cookie')).not.toContain('svc_session');
    await screenshot(second.popup, 'session-consent-without-email');
    await decide(second.popup, 'allow');
    await waitForMessages(second.page, 1);
    const seen = await openerState<AuthSuccess>(second.page);
    expect(seen.messages).toHaveLength(1);
    expect(seen.messages[0]).toMatchObject({ user_id: member.memberId, state });
    expect(smtp!.mailsTo(member.email)).toHaveLength(1);

    // Another browser (no cookie) starts at the email step.
    const other = await newContext();
    const fresh = await openPopup(other, allowed!, newState());
    await fresh.popup.locator('input[type=email]').waitFor();
    expect(await fresh.popup.locator('[data-action=allow]').count()).toBe(0);
    await other.close();
    await context.close();
  }, 45_000);

  // ---------------------------------------------------------------------------------------------
  // Over plain HTTP

  it('popup pages send the docs/embedding.md headers; invalid parameters get a 400 HTML error page', async () => {
    const first = expectPopupPage(await getAuthorize(newState()));
    const second = expectPopupPage(await getAuthorize(newState()));
    expect(second).not.toBe(first); // a fresh nonce per response
    expectPopupPage(await getAuthorize('s'.repeat(512)));

    const invalid: [string, Record<string, string | undefined>][] = [
      ['missing state', { state: undefined }],
      ['empty state', { state: '' }],
      ['state over 512 chars', { state: 's'.repeat(513) }],
      ['response_type token', { response_type: 'token' }],
      ['missing response_type', { response_type: undefined }],
      ['another scope', { scope: 'profile:write' }],
      ['popup=0', { popup: '0' }],
      ['missing popup', { popup: undefined }],
      ['unknown client_id', { client_id: `nobody-${randomBytes(4).toString('hex')}` }],
      ['missing client_id', { client_id: undefined }],
    ];
    for (const [label, overrides] of invalid) {
      const res = await getAuthorize(newState(), overrides);
      try {
        expectPopupPage(res, 400);
        expect(res.text).toMatch(/^<!doctype html>/i);
        expect(res.text).not.toContain('input type="email"');
      } catch (error) {
        throw new Error(`${label}: ${(error as Error).message}`);
      }
    }

    // The code step answers with a redirect that the popup follows to the consent page: a
    // Cross-Origin-Opener-Policy there cuts window.opener just as one on a page would.
    const member = await newMember('olga');
    const state = newState();
    expectPopupPage(
      await postForm('/oauth/authorize/email', { ...authorizeParams(state), email: member.email }),
    );
    const { code } = await smtp!.take(member.email);
    const redirect = await postForm('/oauth/authorize/code', {
      ...authorizeParams(state),
      email: member.email,
      code: code!,
    });
    expect(redirect.status).toBe(303);
    expect(redirect.headers['cross-origin-opener-policy']).toBeUndefined();

    // The form posts validate the same parameters.
    const bad = await postForm('/oauth/authorize/email', {
      ...authorizeParams(newState(), { scope: 'admin' }),
      email: 'x@example.com',
    });
    expectPopupPage(bad, 400);
  });

  it('sign-in limits: unknown emails, tries, expiry, reuse, hourly cap, single-use CSRF', async () => {
    const state = newState();
    const params = authorizeParams(state);
    const normalise = (html: string, email: string) =>
      html.replace(/nonce(=|-)"?[A-Za-z0-9+/=_-]+/g, 'nonce').replaceAll(email, 'EMAIL');

    // An unknown email gets the same page as a member's email, and no mail.
    const known = await newMember('frank');
    const unknownEmail = `nobody-${randomBytes(4).toString('hex')}@example.com`;
    const unknownPage = await postForm('/oauth/authorize/email', {
      ...params,
      email: unknownEmail,
    });
    const knownPage = await postForm('/oauth/authorize/email', { ...params, email: known.email });
    expectPopupPage(unknownPage);
    expectPopupPage(knownPage);
    expect(normalise(unknownPage.text, unknownEmail)).toBe(normalise(knownPage.text, known.email));
    await smtp!.take(known.email);
    await sleep(QUIET_MS);
    expect(smtp!.mailsTo(unknownEmail)).toHaveLength(0);

    const submit = (email: string, code: string) =>
      postForm('/oauth/authorize/code', { ...params, email, code });
    const refused = (res: Response) => {
      expectPopupPage(res);
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.text).toContain('autocomplete="one-time-code"');
    };
    const accepted = (res: Response) => {
      expect(res.status).toBe(303);
      const location = new URL(String(res.headers['location']), base);
      expect(location.origin).toBe(base);
      expect(location.pathname).toBe('/oauth/authorize');
      expect(Object.fromEntries(location.searchParams)).toEqual(params);
      const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).join('\n');
      expect(cookie).toMatch(/^svc_session=[^;]+;/);
      expect(cookie).toMatch(/; Max-Age=2592000(;|$)/);
      expect(cookie).toMatch(/; Path=\/oauth(;|$)/);
      expect(cookie).toMatch(/; HttpOnly(;|$)/);
      expect(cookie).toMatch(/; SameSite=Lax(;|$)/);
      expect(cookie).not.toMatch(/; Secure/);
    };
    const requestCode = async (email: string) => {
      expectPopupPage(await postForm('/oauth/authorize/email', { ...params, email }));
      return (await smtp!.take(email)).code!;
    };
    const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

    // Five wrong codes use up the tries: the right one is then refused too.
    const tries = await newMember('grace');
    const triesCode = await requestCode(tries.email);
    for (let i = 0; i < 5; i++) refused(await submit(tries.email, wrong(triesCode)));
    refused(await submit(tries.email, triesCode));
    // Four wrong ones leave the fifth try: a fresh code and the right one then signs in.
    const freshCode = await requestCode(tries.email);
    for (let i = 0; i < 4; i++) refused(await submit(tries.email, wrong(freshCode)));
    accepted(await submit(tries.email, freshCode));

    // A code is valid for 10 minutes: 9 min 50 s old still works, 10 min 1 s old does not.
    const age = async (email: string, interval: string) => {
      await app().db.query(
        `UPDATE sign_in_codes SET created_at = created_at - $3::interval,
                expires_at = expires_at - $3::interval
          WHERE tenant_id = $1 AND email = $2 AND used_at IS NULL`,
        [tenant.orgId, email.toLowerCase(), interval],
      );
    };
    const timing = await newMember('heidi');
    const youngCode = await requestCode(timing.email);
    await age(timing.email, '9 minutes 50 seconds');
    accepted(await submit(timing.email, youngCode));
    const oldCode = await requestCode(timing.email);
    await age(timing.email, '10 minutes 1 second');
    refused(await submit(timing.email, oldCode));

    // A used code cannot be used again.
    const reuse = await newMember('ivan');
    const reuseCode = await requestCode(reuse.email);
    accepted(await submit(reuse.email, reuseCode));
    refused(await submit(reuse.email, reuseCode));

    // At most 5 codes per email per hour: the 6th request answers the same page but mails nothing.
    const capped = await newMember('judy');
    for (let i = 0; i < 5; i++) await requestCode(capped.email);
    const sixth = await postForm('/oauth/authorize/email', { ...params, email: capped.email });
    expect(normalise(sixth.text, capped.email)).toBe(normalise(knownPage.text, known.email));
    await sleep(QUIET_MS);
    expect(smtp!.mailsTo(capped.email)).toHaveLength(5);
    expect(smtp!.pending(capped.email)).toBe(0);

    // The consent form's CSRF token is single-use and bound to its session.
    const csrfMember = await newMember('ken');
    const cookie = await signInOverHttp(csrfMember.email, state);
    const consent = await getAuthorize(state).set('Cookie', cookie);
    expectPopupPage(consent);
    expect(consent.text).toContain('data-action="allow"');
    const csrf = hiddenField(consent.text, '_csrf')!;
    expect(csrf).toBeTruthy();
    const postDecision = (token: string, sessionCookie = cookie) =>
      postForm(
        '/oauth/authorize/decision',
        { ...params, _csrf: token, decision: 'allow' },
        sessionCookie,
      );
    const otherCookie = await signInOverHttp((await newMember('leo')).email, state);
    expectPopupPage(await postDecision(csrf, otherCookie), 403); // another session's token
    expectPopupPage(await postDecision('', cookie), 403);
    const done = await postDecision(csrf);
    expectPopupPage(done);
    const { origins, message } = messageOf(done.text);
    expect(origins).toEqual([partnerSite, allowed!.origin]);
    expect(message).toMatchObject({
      type: 'service:auth-success',
      user_id: csrfMember.memberId,
      org_id: tenant.orgId,
      state,
    });
    const replay = await postDecision(csrf);
    expectPopupPage(replay, 403);
    expect(replay.text).not.toContain('auth-success');
  }, 45_000);
});
