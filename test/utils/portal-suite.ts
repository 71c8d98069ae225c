/**
 * Driving the partner portal (/p/<slug>, docs/partners.md) over plain HTTP as a browser does, for
 * test/e2e/portal/*.e2e-spec.ts: the email form (its pre-session cookie and `_csrf`), the code
 * from the SMTP catcher, the session cookie; and the single-use form token of a signed-in page.
 */
import type { Response } from 'supertest';
import type { TestApp } from './create-test-app';
import { cookiePairs, hiddenField } from './pages-http';
import type { SmtpCatcher } from './smtp-catcher';

/** A signed-in browser: the `Cookie` header of its portal (login and session cookies). */
export async function portalSignIn(
  t: TestApp,
  smtp: SmtpCatcher,
  slug: string,
  email: string,
): Promise<string> {
  const form = await t.http().get(`/p/${slug}`);
  if (form.status !== 200) throw new Error(`GET /p/${slug}: ${form.status}`);
  const login = cookiePairs(form).join('; ');
  const csrf = hiddenField(form.text, '_csrf');
  const sent = await t
    .http()
    .post(`/p/${slug}/sign-in`)
    .set('Cookie', login)
    .type('form')
    .send({ email, _csrf: csrf });
  if (sent.status !== 200) throw new Error(`sign-in: ${sent.status}`);
  const mail = await smtp.take(email);
  const res = await t
    .http()
    .post(`/p/${slug}/sign-in/code`)
    .set('Cookie', login)
    .type('form')
    .send({ email, code: mail.code, _csrf: csrf });
  const session = cookiePairs(res).find((c) => c.startsWith('svc_portal='));
  if (res.status !== 303 || !session) throw new Error(`code: ${res.status} ${res.text}`);
  return `${login}; ${session}`;
}

/** GETs a portal page with the browser's cookies. */
export function portalGet(t: TestApp, cookie: string, path: string): Promise<Response> {
  return t.http().get(path).set('Cookie', cookie);
}

/** The page's form token (the `_csrf` of its forms). */
export function formToken(page: Response): string {
  const csrf = hiddenField(page.text, '_csrf');
  if (!csrf) throw new Error('no _csrf on the page');
  return csrf;
}

/** POSTs a portal form with a fresh form token from `from` (a page of the portal). */
export async function portalPost(
  t: TestApp,
  cookie: string,
  from: string,
  path: string,
  fields: Record<string, string>,
): Promise<Response> {
  const page = await portalGet(t, cookie, from);
  return t
    .http()
    .post(path)
    .set('Cookie', cookie)
    .type('form')
    .send({ ...fields, _csrf: formToken(page) });
}
