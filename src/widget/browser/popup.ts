/**
 * Signing a partner in through the service's popup (docs/embedding.md, section 4) and the bearer
 * token it yields, shared by every widget of the tenant on the page. The session is kept in the
 * tab's `sessionStorage` (docs/embedding.md §11.3): a reload or the next page of the site in the
 * same tab needs no new sign-in, while closing the tab ends it; it is dropped once expired or
 * refused (a 401).
 */

import { BASE, ORIGIN } from './env';

export interface Session {
  token: string;
  /** The member signed in (`mbr_…`): a token-gated read of another member needs a new sign-in. */
  userId: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

const sessions: Record<string, Session | null | undefined> = {};
const key = (tenant: string) => `service-widgets:session:${tenant}`;

function stored(tenant: string): Session | null {
  try {
    const raw = sessionStorage.getItem(key(tenant));
    const s = raw ? (JSON.parse(raw) as Partial<Session>) : null;
    return s && typeof s.token === 'string' && typeof s.userId === 'string'
      ? { token: s.token, userId: s.userId, expiresAt: Number(s.expiresAt) || 0 }
      : null;
  } catch {
    return null; // storage blocked (a sandboxed frame): the session lives in memory only
  }
}

function keep(tenant: string, s: Session | null): void {
  sessions[tenant] = s;
  try {
    if (s) sessionStorage.setItem(key(tenant), JSON.stringify(s));
    else sessionStorage.removeItem(key(tenant));
  } catch {
    // storage blocked: memory only
  }
}

/** The tenant's session, while its token has more than a minute to live. */
export function liveSession(tenant: string): Session | null {
  if (sessions[tenant] === undefined) sessions[tenant] = stored(tenant);
  const s = sessions[tenant];
  if (s && s.expiresAt - 60000 > Date.now()) return s;
  if (s) keep(tenant, null);
  return null;
}

/** `Authorization` for the tenant's calls while signed in; none otherwise. */
export function authorization(tenant: string): Record<string, string> {
  const s = liveSession(tenant);
  return s ? { Authorization: `Bearer ${s.token}` } : {};
}

/** Forgets the token (after a 401): the next action asks the partner to sign in again. */
export const forgetSession = (tenant: string): void => keep(tenant, null);

/** How a sign-in ended: with a token, refused in the popup, or the popup closed unanswered. */
export type SignInOutcome = 'success' | 'denied' | 'cancelled';

/**
 * Opens the popup for `tenant`; must run in a click handler (browsers block popups opened
 * later). False when the browser blocked it; otherwise `done` is called once, with the session
 * kept on success. Only the service's own popup, answering this very request (its `state`), is
 * heard.
 */
export function signIn(tenant: string, done: (outcome: SignInOutcome) => void): boolean {
  const state = [...crypto.getRandomValues(new Uint8Array(16))]
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('');
  const q = new URLSearchParams({
    client_id: tenant,
    response_type: 'code',
    scope: 'profile:read',
    state,
    popup: '1',
  });
  const popup = window.open(
    `${BASE}/oauth/authorize?${q.toString()}`,
    'service_sign_in',
    'popup,width=480,height=640',
  );
  if (!popup) return false;
  let finished = false;
  const finish = (outcome: SignInOutcome) => {
    if (finished) return;
    finished = true;
    window.removeEventListener('message', onMessage);
    clearInterval(timer);
    done(outcome);
  };
  const onMessage = (e: MessageEvent) => {
    if (e.origin !== ORIGIN || e.source !== popup) return;
    const d: unknown = e.data;
    if (!d || typeof d !== 'object') return;
    const m = d as Record<string, unknown>;
    if (m.state !== state) return;
    if (m.type === 'service:auth-success' && typeof m.token === 'string') {
      keep(tenant, {
        token: m.token,
        userId: String(m.user_id),
        expiresAt: Number(m.expires_at) || Date.now() + 3e6,
      });
      finish('success');
      window.dispatchEvent(new CustomEvent('service-widget:signed-in', { detail: { tenant } }));
    } else if (m.type === 'service:auth-error') {
      finish('denied');
    }
  };
  window.addEventListener('message', onMessage);
  const timer = setInterval(() => {
    if (popup.closed) setTimeout(() => finish('cancelled'), 400);
  }, 500);
  return true;
}
