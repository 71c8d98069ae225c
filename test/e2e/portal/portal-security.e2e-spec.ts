/**
 * The partner portal's sign-in and its defences over real HTTP, SMTP and PostgreSQL
 * (docs/partners.md, "The partner portal"; the popup's rules, docs/security.md): page headers and
 * the session cookie, the same answer for an unknown email, the code's tries and the codes per
 * hour, single-use form tokens and foreign posts, one tenant's session opening nothing of
 * another's portal and no partner seeing another's data, the notice of a banned or deactivated
 * partner, the notification preferences (portal and Admin API) and the payout details form.
 */
import { randomBytes } from 'node:crypto';
import { createLead } from '../../factories/money.factory';
import { admin } from '../../factories/payouts.factory';
import { createTenant, type TestTenant } from '../../factories/tenants.factory';
import { upsertUser, type UpsertedMember } from '../../factories/users.factory';
import { createTestApp, type TestApp } from '../../utils/create-test-app';
import { cookiePairs, hiddenField } from '../../utils/pages-http';
import { formToken, portalGet, portalPost, portalSignIn } from '../../utils/portal-suite';
import { type SmtpCatcher, startSmtpCatcher } from '../../utils/smtp-catcher';

const HOSTILE = `<script>alert(1)</script>"'`;
const PAGES = ['', '/links', '/referrals', '/earnings', '/payouts', '/notifications'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('partner portal: sign-in, sessions, isolation and forms (e2e)', () => {
  let t: TestApp;
  let smtp: SmtpCatcher;
  let a: TestTenant;
  let b: TestTenant;
  let anna: UpsertedMember;
  let boris: UpsertedMember;
  let annaEmail: string;
  let borisEmail: string;
  let annaCookie: string;

  const newEmail = (label: string) => `${label}-${randomBytes(4).toString('hex')}@example.com`;

  beforeAll(async () => {
    smtp = await startSmtpCatcher();
    t = await createTestApp({ SMTP_URL: smtp.url });
    a = await createTenant(t, { allowed_origins: ['https://a-shop.example'] });
    b = await createTenant(t, { allowed_origins: ['https://b-shop.example'] });
    annaEmail = newEmail('anna');
    borisEmail = newEmail('boris');
    anna = await upsertUser(t, a.key, { email: annaEmail, full_name: 'Anna' });
    boris = await upsertUser(t, a.key, { email: borisEmail, full_name: 'Boris' });
    // The same person is a partner of tenant B too.
    await upsertUser(t, b.key, { email: annaEmail, full_name: 'Anna at B' });
    await createLead(t, a.key, anna.serviceUserId, {
      contact: { name: `Annas lead ${HOSTILE}`, email: 'l1@example.org' },
    });
    await createLead(t, a.key, boris.serviceUserId, {
      contact: { name: 'Boris secret lead', email: 'l2@example.org' },
    });
    annaCookie = await portalSignIn(t, smtp, a.slug, annaEmail);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('answers every page unframeable, uncached and nonce-scripted, with the session cookie as the popup sets it', async () => {
    const signIn = await t.http().get(`/p/${a.slug}`);
    expect(signIn.status).toBe(200);
    expect(signIn.text).toContain('type="email"');
    // Every script element carries the response's nonce (the portal has none of its own).
    const nonce = /script-src 'nonce-([^']+)'/.exec(signIn.headers['content-security-policy'])?.[1];
    expect(nonce).toBeDefined();
    for (const [tag] of signIn.text.matchAll(/<script\b[^>]*>/gi)) expect(tag).toContain(nonce);
    for (const path of PAGES) {
      const res = await portalGet(t, annaCookie, `/p/${a.slug}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
      expect(res.headers['content-security-policy']).toMatch(/script-src 'nonce-[^']+';/);
      expect(res.text).not.toContain('<script>alert(1)');
    }
    // The cookie: HttpOnly, SameSite=Lax, this tenant's path only, 30 days, not Secure on http.
    const email = newEmail('cookie');
    await upsertUser(t, a.key, { email });
    const form = await t.http().get(`/p/${a.slug}`);
    const login = cookiePairs(form).join('; ');
    const csrf = hiddenField(form.text, '_csrf');
    await t
      .http()
      .post(`/p/${a.slug}/sign-in`)
      .set('Cookie', login)
      .type('form')
      .send({ email, _csrf: csrf });
    const code = (await smtp.take(email)).code!;
    const res = await t
      .http()
      .post(`/p/${a.slug}/sign-in/code`)
      .set('Cookie', login)
      .type('form')
      .send({ email, code, _csrf: csrf });
    expect(res.status).toBe(303);
    const set = ([] as string[])
      .concat(res.headers['set-cookie'] ?? [])
      .find((c) => c.startsWith('svc_portal='))!;
    expect(set).toMatch(/; Max-Age=2592000/);
    expect(set).toMatch(new RegExp(`; Path=/p/${a.slug}(;|$)`));
    expect(set).toMatch(/; HttpOnly/);
    expect(set).toMatch(/; SameSite=Lax/);
    expect(set).not.toMatch(/Secure/);
    // The code is single-use.
    const again = await t
      .http()
      .post(`/p/${a.slug}/sign-in/code`)
      .set('Cookie', login)
      .type('form')
      .send({ email, code, _csrf: csrf });
    expect(again.status).toBe(200);
    expect(cookiePairs(again).some((c) => c.startsWith('svc_portal='))).toBe(false);
  });

  it('answers an unknown email exactly as a partner’s, and mails only the partner', async () => {
    const form = await t.http().get(`/p/${a.slug}`);
    const login = cookiePairs(form).join('; ');
    const csrf = hiddenField(form.text, '_csrf')!;
    const stranger = newEmail('nobody');
    const known = newEmail('known');
    await upsertUser(t, a.key, { email: known });
    const post = (email: string) =>
      t
        .http()
        .post(`/p/${a.slug}/sign-in`)
        .set('Cookie', login)
        .type('form')
        .send({ email, _csrf: csrf });
    const [x, y] = await Promise.all([post(stranger), post(known)]);
    expect(x.status).toBe(200);
    expect(y.status).toBe(200);
    const scrub = (html: string, email: string) =>
      html.replaceAll(email, 'EMAIL').replace(/nonce-?[=A-Za-z0-9+/"_-]*/g, 'NONCE');
    expect(scrub(x.text, stranger)).toBe(scrub(y.text, known));
    expect((await smtp.take(known)).code).toMatch(/^\d{6}$/);
    await sleep(500);
    expect(smtp.mailsTo(stranger)).toHaveLength(0);
  });

  it('spends a code after 5 wrong tries and mails at most 5 codes an hour', async () => {
    const email = newEmail('tries');
    await upsertUser(t, a.key, { email });
    const form = await t.http().get(`/p/${a.slug}`);
    const login = cookiePairs(form).join('; ');
    const csrf = hiddenField(form.text, '_csrf')!;
    const request = () =>
      t
        .http()
        .post(`/p/${a.slug}/sign-in`)
        .set('Cookie', login)
        .type('form')
        .send({ email, _csrf: csrf });
    const tryCode = (code: string) =>
      t
        .http()
        .post(`/p/${a.slug}/sign-in/code`)
        .set('Cookie', login)
        .type('form')
        .send({ email, code, _csrf: csrf });
    await request();
    const code = (await smtp.take(email)).code!;
    const wrong = code === '000000' ? '111111' : '000000';
    // Five wrong tries at once: each spends one.
    const tries = await Promise.all([1, 2, 3, 4, 5].map(() => tryCode(wrong)));
    for (const r of tries) expect(r.status).toBe(200);
    const late = await tryCode(code);
    expect(late.status).toBe(200);
    expect(cookiePairs(late).some((c) => c.startsWith('svc_portal='))).toBe(false);
    // Four more codes (five this hour), then none.
    for (let i = 0; i < 4; i++) {
      await request();
      await smtp.take(email);
    }
    await request();
    await sleep(500);
    expect(smtp.pending(email)).toBe(0);
  });

  it('takes a form only with its page’s token, once, and never from another site', async () => {
    const from = `/p/${a.slug}/notifications`;
    const page = await portalGet(t, annaCookie, from);
    const token = formToken(page);
    const post = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
      t
        .http()
        .post(`/p/${a.slug}/notifications`)
        .set('Cookie', annaCookie)
        .set(headers)
        .type('form')
        .send(fields);
    expect((await post({ 'bonus.pending': 'off' })).status).toBe(403);
    expect((await post({ 'bonus.pending': 'off', _csrf: 'forged' })).status).toBe(403);
    // A foreign Origin is refused before the token is looked at (and the token is kept).
    expect(
      (await post({ 'bonus.pending': 'off', _csrf: token }, { Origin: 'https://evil.example' }))
        .status,
    ).toBe(403);
    // Two posts of one token at once: exactly one is taken.
    const both = await Promise.all([
      post({ 'bonus.pending': 'off', _csrf: token }),
      post({ 'bonus.pending': 'off', _csrf: token }),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([303, 403]);
    // A JSON body is not a form.
    const json = await t
      .http()
      .post(`/p/${a.slug}/sign-out`)
      .set('Cookie', annaCookie)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ _csrf: token }));
    expect(json.status).toBe(415);
    // Sign-out without the token keeps the session.
    expect(
      (await t.http().post(`/p/${a.slug}/sign-out`).set('Cookie', annaCookie).type('form').send({}))
        .status,
    ).toBe(403);
    expect((await portalGet(t, annaCookie, `/p/${a.slug}/earnings`)).status).toBe(200);
  });

  it('opens nothing of another tenant’s portal with this session, and never another partner’s data', async () => {
    // The same person, the same browser: tenant B's portal asks them to sign in.
    for (const path of PAGES) {
      const res = await portalGet(t, annaCookie, `/p/${b.slug}${path}`);
      if (path === '') {
        expect(res.status).toBe(200);
        expect(res.text).toContain('type="email"');
        expect(res.text).not.toContain('data-metric');
      } else {
        expect(res.status).toBe(303);
        expect(res.headers.location).toBe(`/p/${b.slug}`);
      }
    }
    // Tenant A's form token is not one of B's either.
    const token = formToken(await portalGet(t, annaCookie, `/p/${a.slug}/links`));
    const cross = await t
      .http()
      .post(`/p/${b.slug}/links`)
      .set('Cookie', annaCookie)
      .type('form')
      .send({ target: 'https://b-shop.example/', _csrf: token });
    expect(cross.status).toBe(303);
    expect(cross.headers.location).toBe(`/p/${b.slug}`);
    // Anna's pages show her lead, escaped, and nothing of Boris's.
    const referrals = await portalGet(t, annaCookie, `/p/${a.slug}/referrals`);
    expect(referrals.text).toContain('Annas lead &lt;script>alert(1)&lt;/script>&quot;');
    expect(referrals.text).not.toContain('Boris secret lead');
    for (const path of PAGES) {
      const res = await portalGet(t, annaCookie, `/p/${a.slug}${path}`);
      expect(res.text).not.toContain(boris.memberId);
      expect(res.text).not.toContain(borisEmail);
    }
    // An unknown tenant is a 404 page.
    expect((await t.http().get('/p/no-such-tenant-x')).status).toBe(404);
  });

  it('signs out on the server: the old cookie replayed opens nothing', async () => {
    const email = newEmail('leaving');
    await upsertUser(t, a.key, { email });
    const cookie = await portalSignIn(t, smtp, a.slug, email);
    const out = await portalPost(t, cookie, `/p/${a.slug}/links`, `/p/${a.slug}/sign-out`, {});
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe(`/p/${a.slug}`);
    expect(String(out.headers['set-cookie'])).toMatch(/svc_portal=; Max-Age=0/);
    const replay = await portalGet(t, cookie, `/p/${a.slug}/earnings`);
    expect(replay.status).toBe(303);
    const home = await portalGet(t, cookie, `/p/${a.slug}`);
    expect(home.text).toContain('type="email"');
  });

  it('shows a banned or deactivated partner only a notice', async () => {
    const email = newEmail('banned');
    const m = await upsertUser(t, a.key, { email, full_name: 'Banned' });
    const cookie = await portalSignIn(t, smtp, a.slug, email);
    const ban = await t
      .http()
      .post(`/admin/v1/tenants/${a.slug}/users/${m.memberId}/ban`)
      .set(admin(t))
      .send({ reason: 'fraud' });
    expect(ban.status).toBe(200);
    for (const path of PAGES) {
      const res = await portalGet(t, cookie, `/p/${a.slug}${path}`);
      expect(res.status).toBe(403);
      expect(res.text).toContain('data-notice="blocked"');
      expect(res.text).not.toContain('data-metric');
    }
    const email2 = newEmail('inactive');
    const m2 = await upsertUser(t, a.key, { email: email2 });
    const cookie2 = await portalSignIn(t, smtp, a.slug, email2);
    await t
      .http()
      .post(`/admin/v1/tenants/${a.slug}/users/${m2.memberId}/deactivate`)
      .set(admin(t))
      .send({});
    const res = await portalGet(t, cookie2, `/p/${a.slug}/links`);
    expect(res.status).toBe(403);
    expect(res.text).toContain('data-notice="blocked"');
  });

  it('keeps notification preferences: defaults, the portal form and the Admin API agree', async () => {
    const api = `/admin/v1/tenants/${a.slug}/users/${boris.memberId}/notifications`;
    const initial = await t.http().get(api).set(admin(t));
    expect(initial.status).toBe(200);
    expect(initial.body).toEqual({
      user_id: boris.memberId,
      preferences: {
        'bonus.pending': 'daily',
        'bonus.approved': 'daily',
        'payout.paid': 'instant',
        'partner.approved': 'instant',
        'partner.rejected': 'instant',
        'downline.joined': 'daily',
        'bounty.reached': 'daily',
      },
    });
    const put = await t
      .http()
      .put(api)
      .set(admin(t))
      .send({ preferences: { 'payout.paid': 'off' } });
    expect(put.status).toBe(200);
    expect(put.body.preferences['payout.paid']).toBe('off');
    expect(put.body.preferences['bonus.pending']).toBe('daily');
    for (const bad of [{ 'no.such': 'off' }, { 'payout.paid': 'weekly' }]) {
      const res = await t.http().put(api).set(admin(t)).send({ preferences: bad });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    }
    expect((await t.http().put(api).set(admin(t)).send({ preferences: {}, extra: 1 })).status).toBe(
      400,
    );
    // Another tenant's member, or none: 404.
    const other = await t
      .http()
      .get(`/admin/v1/tenants/${b.slug}/users/${boris.memberId}/notifications`)
      .set(admin(t));
    expect(other.status).toBe(404);
    expect(other.body.code).toBe('user_not_found');
    // The portal's form (Anna's own).
    const saved = await portalPost(
      t,
      annaCookie,
      `/p/${a.slug}/notifications`,
      `/p/${a.slug}/notifications`,
      {
        'bonus.pending': 'instant',
        'downline.joined': 'off',
      },
    );
    expect(saved.status).toBe(303);
    const mine = await t
      .http()
      .get(`/admin/v1/tenants/${a.slug}/users/${anna.memberId}/notifications`)
      .set(admin(t));
    expect(mine.body.preferences['bonus.pending']).toBe('instant');
    expect(mine.body.preferences['downline.joined']).toBe('off');
    const page = await portalGet(t, annaCookie, `/p/${a.slug}/notifications`);
    expect(page.text).toMatch(/data-pref="downline.joined">.*?<option value="off" selected/s);
    const bad = await portalPost(
      t,
      annaCookie,
      `/p/${a.slug}/notifications`,
      `/p/${a.slug}/notifications`,
      {
        'bonus.pending': 'hourly',
      },
    );
    expect(bad.status).toBe(400);
  });

  it('documents the Admin notifications endpoint and every portal route in the OpenAPI document', async () => {
    const doc = (await t.http().get('/docs/openapi.json')).body;
    const path = doc.paths['/admin/v1/tenants/{slug}/users/{user_id}/notifications'];
    expect(Object.keys(path).sort()).toEqual(['get', 'put']);
    expect(path.put.requestBody.content['application/json'].schema.$ref).toMatch(
      /UpdateNotificationPreferencesDto$/,
    );
    expect(Object.keys(path.get.responses)).toEqual(expect.arrayContaining(['200', '404']));
    for (const route of ['/p/{slug}', '/p/{slug}/links', '/p/{slug}/payouts/details']) {
      expect(doc.paths[route]).toBeDefined();
    }
  });

  it('saves payout details from the Payouts page, and shows a bad IBAN on the form', async () => {
    const from = `/p/${a.slug}/payouts`;
    const bad = await portalPost(t, annaCookie, from, `/p/${a.slug}/payouts/details`, {
      method: 'bank_account',
      holder: `Anna ${HOSTILE}`,
      iban: 'DE00370400440532013000',
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('aria-invalid="true"');
    expect(bad.text).toContain('value="Anna &lt;script>alert(1)&lt;/script>&quot;');
    const ok = await portalPost(t, annaCookie, from, `/p/${a.slug}/payouts/details`, {
      method: 'bank_account',
      holder: 'Anna',
      iban: 'DE89370400440532013000',
    });
    expect(ok.status).toBe(303);
    const user = await t
      .http()
      .get(`/admin/v1/tenants/${a.slug}/users/${anna.memberId}`)
      .set(admin(t));
    expect(user.body.payout_details).toEqual({ method: 'bank_account', masked: '•••• 3000' });
    const page = await portalGet(t, annaCookie, from);
    expect(page.text).toContain('•••• 3000');
    expect(page.text).not.toContain('DE89370400440532013000');
  });
});

describe('partner portal: the per-network sign-in limits (e2e)', () => {
  let t: TestApp;
  afterAll(() => t?.close());

  it('answers past 20 email steps from one network with a 429 page and Retry-After', async () => {
    t = await createTestApp({
      RATE_LIMITS: 'on',
      QUEUE_PREFIX: `${process.env.TEST_QUEUE_PREFIX}:portal${randomBytes(3).toString('hex')}`,
      PROCESS_ROLE: 'api',
    });
    const tenant = await createTenant(t);
    const form = await t.http().get(`/p/${tenant.slug}`);
    const login = cookiePairs(form).join('; ');
    const csrf = hiddenField(form.text, '_csrf')!;
    const post = (i: number) =>
      t
        .http()
        .post(`/p/${tenant.slug}/sign-in`)
        .set('Cookie', login)
        .type('form')
        .send({ email: `nobody${i}@example.com`, _csrf: csrf });
    for (let i = 0; i < 20; i++) expect((await post(i)).status).toBe(200);
    const limited = await post(20);
    expect(limited.status).toBe(429);
    expect(limited.headers['content-type']).toMatch(/^text\/html/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.text).toContain('Too many sign-in attempts');
  });
});
