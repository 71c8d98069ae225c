import type { Response } from 'express';
import { escapeHtml, sendPage } from '../common/http/html';
import { type AuthorizeParams, authorizeQuery } from './authorize.dto';

const hidden = (params: AuthorizeParams) =>
  Object.entries(params)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('');

/** A form's token field (the sign-in steps' pre-session token, the consent form's own). */
const csrfField = (csrf: string) =>
  `<input type="hidden" name="_csrf" value="${escapeHtml(csrf)}">`;

export function errorPage(res: Response, status: number, title: string, messages: string[]): void {
  sendPage(res, {
    status,
    title,
    keepOpener: true,
    body: `<h1>${escapeHtml(title)}</h1>${messages.map((m) => `<p class="error">${escapeHtml(m)}</p>`).join('')}`,
  });
}

/** A sign-in form's pre-session token is missing or foreign (login CSRF): start again. */
export function expiredSignInPage(res: Response, params: AuthorizeParams): void {
  sendPage(res, {
    status: 403,
    title: 'This form has expired',
    keepOpener: true,
    body: `<h1>This form has expired</h1>
<p class="error">It was not sent from this browser's own sign-in page, or it is over an hour old. Nothing was changed.</p>
<p><a href="/oauth/authorize?${escapeHtml(authorizeQuery(params))}">Start again</a></p>`,
  });
}

export function emailPage(
  res: Response,
  tenantName: string,
  params: AuthorizeParams,
  csrf: string,
): void {
  sendPage(res, {
    title: `Sign in — ${tenantName}`,
    keepOpener: true,
    body: `<h1>Sign in to ${escapeHtml(tenantName)}</h1>
<form method="post" action="/oauth/authorize/email" data-form="email">${hidden(params)}${csrfField(csrf)}
<label for="email">Email</label><input id="email" type="email" name="email" autocomplete="email" required maxlength="254">
<button type="submit" data-action="submit">Send me a code</button></form>`,
  });
}

export function codePage(
  res: Response,
  tenantName: string,
  params: AuthorizeParams,
  email: string,
  csrf: string,
  error?: string,
): void {
  sendPage(res, {
    title: `Enter the code — ${tenantName}`,
    keepOpener: true,
    body: `<h1>Check your mail</h1>
<p class="muted">If ${escapeHtml(email)} belongs to a partner of ${escapeHtml(tenantName)}, we have sent a 6-digit code to it. It is valid for 10 minutes.</p>
${error ? `<p class="error">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/oauth/authorize/code" data-form="code">${hidden(params)}${csrfField(csrf)}
<input type="hidden" name="email" value="${escapeHtml(email)}">
<label for="code">Code</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required>
<button type="submit" data-action="submit">Sign in</button></form>`,
  });
}

/**
 * Consent, naming who is signed in (so a browser signed in to someone else's account shows it)
 * with a way to switch account: `decision=switch` ends this session and starts again.
 */
export function consentPage(
  res: Response,
  tenantName: string,
  params: AuthorizeParams,
  csrf: string,
  signedInAs: string,
): void {
  sendPage(res, {
    title: `Allow access — ${tenantName}`,
    keepOpener: true,
    body: `<h1>${escapeHtml(tenantName)} asks to create referral links for you</h1>
<p class="muted">Signed in as <strong data-field="signed-in-as">${escapeHtml(signedInAs)}</strong></p>
<form method="post" action="/oauth/authorize/decision" data-form="consent">${hidden(params)}${csrfField(csrf)}
<button type="submit" name="decision" value="allow" data-action="allow">Allow</button><button type="submit" name="decision" value="deny" data-action="deny">Deny</button>
<p class="muted">Not you? <button type="submit" name="decision" value="switch" data-action="switch">Use another account</button></p></form>`,
  });
}

/**
 * Posts `message` to the opener once per allowed origin (never `*`), so only an opener on an
 * allowed origin receives it, then closes. All values travel as escaped JSON data, not as code.
 */
export function messagePage(
  res: Response,
  origins: string[],
  message: Record<string, unknown>,
): void {
  sendPage(res, {
    title: 'Done',
    keepOpener: true,
    body: `<h1>Done</h1><p class="muted">You can close this window.</p>`,
    data: { origins, message },
    script: `(function () {
  var data = JSON.parse(document.getElementById('data').textContent);
  if (window.opener) {
    data.origins.forEach(function (origin) {
      try { window.opener.postMessage(data.message, origin); } catch (e) {}
    });
  }
  setTimeout(function () { window.close(); }, 50);
})();`,
  });
}
