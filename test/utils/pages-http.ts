import type { Response } from 'supertest';
import type TestAgent from 'supertest/lib/agent';

/**
 * Helpers for driving the HTML pages (admin pages, popup) over plain HTTP the way a browser does:
 * a form is fetched first (which sets the pre-session cookie and carries the hidden `_csrf` field
 * of docs/security.md), and then posted with both.
 */

/** The `name=value` pairs a response sets (attributes dropped; cleared cookies left out). */
export function cookiePairs(res: Response): string[] {
  return ([] as string[])
    .concat(res.headers['set-cookie'] ?? [])
    .map((c) => c.split(';')[0])
    .filter((pair) => !pair.endsWith('='));
}

/** The value of the named cookie set by `res`, if any. */
export function cookieValue(res: Response, name: string): string | undefined {
  const pair = cookiePairs(res).find((c) => c.startsWith(`${name}=`));
  return pair === undefined ? undefined : decodeURIComponent(pair.slice(name.length + 1));
}

/** The first hidden field `name` of an HTML page, unescaped. */
export function hiddenField(html: string, name: string): string | undefined {
  const raw = new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
  return raw
    ?.replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** What a form page hands its POST: the cookie header and the hidden `_csrf` value (if any). */
export interface FormTicket {
  cookie: string;
  csrf?: string;
}

/** GETs a form page and returns what posting it needs. */
export async function formTicket(http: () => TestAgent, path: string): Promise<FormTicket> {
  const page = await http().get(path);
  if (page.status !== 200) throw new Error(`GET ${path}: ${page.status}`);
  return { cookie: cookiePairs(page).join('; '), csrf: hiddenField(page.text, '_csrf') };
}

/** Signs in at /org/sign-in as a browser would; returns the `svc_admin=…` cookie pair. */
export async function orgSignIn(http: () => TestAgent, token: string): Promise<string> {
  const ticket = await formTicket(http, '/org/sign-in');
  const res = await http()
    .post('/org/sign-in')
    .set('Cookie', ticket.cookie)
    .type('form')
    .send({ token, ...(ticket.csrf === undefined ? {} : { _csrf: ticket.csrf }) });
  const cookie = cookiePairs(res).find((c) => c.startsWith('svc_admin='));
  if (res.status !== 303 || !cookie) throw new Error(`sign-in failed: ${res.status} ${res.text}`);
  return cookie;
}

/** The session's `_csrf` as an admin page carries it. */
export async function orgCsrf(http: () => TestAgent, cookie: string, slug: string) {
  const page = await http().get(`/org/${slug}/bonuses`).set('Cookie', cookie);
  const csrf = hiddenField(page.text, '_csrf');
  if (page.status !== 200 || !csrf) throw new Error(`no _csrf on /org/${slug}/bonuses`);
  return csrf;
}
