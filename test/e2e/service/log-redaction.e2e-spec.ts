/**
 * docs/security.md: the access log must never hold a working credential. The service runs as
 * a real child process (`src/main.ts`, LOG_LEVEL=info, its whole stdout and stderr in a file), a
 * staff member signs in on the admin pages and a partner signs in through the popup, for real; then
 * no cookie value, token, key, CSRF token or sign-in code may appear anywhere in the log, while
 * the redacted headers are visibly there.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createStaffToken, createTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { freePort } from '../../utils/browser';
import type { TestApp } from '../../utils/create-test-app';
import { cookieValue, formTicket, hiddenField, orgCsrf } from '../../utils/pages-http';
import { ManagedChild } from '../../utils/processes';
import { type SmtpCatcher, startSmtpCatcher } from '../../utils/smtp-catcher';
import { entryArgs } from '../../utils/service-entry';
import { testEnv } from '../../utils/test-env';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the access log holds no credential (docs/security.md)', () => {
  let smtp: SmtpCatcher | undefined;
  let service: ManagedChild | undefined;
  let logFile: string;
  let base: string;
  /** Every credential value the flows below handle, by what it is. */
  const secrets = new Map<string, string>();

  const log = () => readFileSync(logFile, 'utf8');
  const http = () => request(base);
  /** What the factories need of a TestApp, against the child process. */
  const client = () => ({ http, adminToken: testEnv().ADMIN_TOKEN! }) as unknown as TestApp;

  const keep = (what: string, value: string | undefined) => {
    expect(`${what}: ${value ? 'seen' : 'missing'}`).toBe(`${what}: seen`);
    secrets.set(what, value!);
  };

  beforeAll(async () => {
    smtp = await startSmtpCatcher();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    logFile = join(mkdtempSync(join(tmpdir(), 'log-redaction-')), 'service.log');
    const env = {
      ...testEnv(),
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      PUBLIC_BASE_URL: base,
      PROCESS_ROLE: 'api',
      LOG_LEVEL: 'info',
      SMTP_URL: smtp.url,
    };
    // `exec` keeps the pid the watchdog knows; the log goes to a file, whole.
    service = new ManagedChild(
      'service (log redaction)',
      'sh',
      ['-c', `exec "${process.execPath}" ${entryArgs('main').join(' ')} > "$0" 2>&1`, logFile],
      env,
    );
    const deadline = Date.now() + 90_000;
    for (;;) {
      let text = '';
      try {
        text = log();
      } catch {
        // Not created yet.
      }
      if (text.includes('Listening on')) break;
      if (!service.running || Date.now() > deadline)
        throw new Error(`the service did not start:\n${text.slice(-3000)}`);
      await sleep(200);
    }
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await smtp?.close();
  });

  it('signs in on the admin pages and through the popup; the log shows none of the credentials', async () => {
    keep('admin token', testEnv().ADMIN_TOKEN);
    const tenant = await createTenant(client(), { allowed_origins: ['https://shop.example'] });
    keep('tenant key', tenant.key);
    const owner = await createStaffToken(client(), tenant.slug, 'owner');
    keep('staff token', owner);
    const email = `partner-${randomBytes(4).toString('hex')}@example.com`;
    await upsertUser(client(), tenant.key, { email, full_name: 'Partner' });

    // Admin pages: sign in, read a page, sign out.
    const signInForm = await formTicket(http, '/org/sign-in');
    const signIn = await http()
      .post('/org/sign-in')
      .set('Cookie', signInForm.cookie)
      .type('form')
      .send({ token: owner, ...(signInForm.csrf ? { _csrf: signInForm.csrf } : {}) });
    expect(signIn.status).toBe(303);
    keep('admin session cookie', cookieValue(signIn, 'svc_admin'));
    for (const pair of signInForm.cookie.split('; ').filter(Boolean))
      secrets.set(`pre-session cookie ${pair.split('=')[0]}`, pair.slice(pair.indexOf('=') + 1));
    if (signInForm.csrf) secrets.set('admin sign-in form token', signInForm.csrf);
    const adminCookie = `svc_admin=${secrets.get('admin session cookie')}`;
    const csrf = await orgCsrf(http, adminCookie, tenant.slug);
    keep('admin session CSRF token', csrf);
    const signOut = await http()
      .post('/org/sign-out')
      .set('Cookie', adminCookie)
      .type('form')
      .send({ _csrf: csrf });
    expect(signOut.status).toBe(303);

    // The popup: email, code, consent, allow.
    const params = {
      client_id: tenant.slug,
      response_type: 'code',
      scope: 'profile:read',
      state: `st-${randomBytes(6).toString('hex')}`,
      popup: '1',
    };
    const authorize = `/oauth/authorize?${new URLSearchParams(params).toString()}`;
    const popupForm = await formTicket(http, authorize);
    for (const pair of popupForm.cookie.split('; ').filter(Boolean))
      secrets.set(
        `popup pre-session cookie ${pair.split('=')[0]}`,
        pair.slice(pair.indexOf('=') + 1),
      );
    if (popupForm.csrf) secrets.set('popup sign-in form token', popupForm.csrf);
    const withTicket = (fields: Record<string, string>) => ({
      ...params,
      ...(popupForm.csrf ? { _csrf: popupForm.csrf } : {}),
      ...fields,
    });
    const sent = await http()
      .post('/oauth/authorize/email')
      .set('Cookie', popupForm.cookie)
      .type('form')
      .send(withTicket({ email }));
    expect(sent.status).toBe(200);
    const code = (await smtp!.take(email)).code!;
    const signedIn = await http()
      .post('/oauth/authorize/code')
      .set('Cookie', popupForm.cookie)
      .type('form')
      .send(withTicket({ email, code }));
    expect(signedIn.status).toBe(303);
    keep('popup session cookie', cookieValue(signedIn, 'svc_session'));
    const sessionCookie = `svc_session=${secrets.get('popup session cookie')}`;
    const consent = await http().get(authorize).set('Cookie', sessionCookie);
    keep('consent token', hiddenField(consent.text, '_csrf'));
    const done = await http()
      .post('/oauth/authorize/decision')
      .set('Cookie', sessionCookie)
      .type('form')
      .send({ ...params, _csrf: secrets.get('consent token')!, decision: 'allow' });
    const jwt = /"token":"([^"]+)"/.exec(done.text)?.[1];
    keep('embed JWT', jwt);

    // The JWT at work, as a widget would send it.
    const link = await http()
      .post(`/embed/v1/data/referral-link?tenant=${tenant.slug}`)
      .set('Origin', 'https://shop.example')
      .set('Authorization', `Bearer ${jwt}`)
      .send({ target_type: 'offer', target_id: 'spring' });
    expect(link.status).toBe(200);

    // The last request's line marks the end of what must have been written.
    const marker = `end-${randomBytes(6).toString('hex')}`;
    await http().get('/embed/v1/widget.json').set('X-Request-Id', marker);
    const deadline = Date.now() + 10_000;
    while (!log().includes(marker) && Date.now() < deadline) await sleep(100);
    const text = log();
    expect(text).toContain(marker);

    // No credential value appears anywhere, and the lines are there with their credential
    // headers redacted (so the check above looked at real request lines).
    const leaked = [...secrets].filter(([, value]) => text.includes(value)).map(([what]) => what);
    const lines = ['/org/sign-in', '/oauth/authorize/code', '/embed/v1/data/referral-link'].filter(
      (path) => !text.includes(`"url":"${path}`),
    );
    const unredacted = ['set-cookie', 'cookie', 'authorization', 'x-service-tenant-key'].filter(
      (header) => !text.includes(`"${header}":"[Redacted]"`),
    );
    expect({ leaked, missingLines: lines, notRedacted: unredacted }).toEqual({
      leaked: [],
      missingLines: [],
      notRedacted: [],
    });
    expect(new RegExp(`(?<![0-9])${code}(?![0-9])`).test(text)).toBe(false);
  }, 60_000);
});
