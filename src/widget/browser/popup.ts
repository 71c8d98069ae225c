/**
 * Signing a partner in through the service's popup (docs/embedding.md, section 4) and the bearer
 * token it yields, kept in this module only: never in storage or cookies, so it dies with the
 * page. Shared by every widget on the page.
 */

import { BASE, ORIGIN } from './env';

export interface Session {
  token: string;
  userId: unknown;
  /** Epoch milliseconds. */
  expiresAt: number;
}

let session: Session | null = null;

/** The token, while it has more than a minute to live. */
export const liveSession = (): Session | null =>
  session && session.expiresAt - 60000 > Date.now() ? session : null;

/** The token just signed in with. */
export const token = (): string | undefined => session?.token;

/** Forgets the token (after a 401): the next link asks the partner to sign in again. */
export const forgetSession = (): void => {
  session = null;
};

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
      session = {
        token: m.token,
        userId: m.user_id,
        expiresAt: Number(m.expires_at) || Date.now() + 3e6,
      };
      finish('success');
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
