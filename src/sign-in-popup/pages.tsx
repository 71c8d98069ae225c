import { CsrfField, ErrorLines, HiddenFields, LinkOn } from '../common/pages/components';
import { errorPage } from '../common/pages/error-page';
import { page } from '../common/pages/layout';
import type { HtmlPage } from '../common/pages/page';
import { type AuthorizeParams, authorizeQuery, paramsOf } from './authorize.dto';

/**
 * The popup's pages (docs/embedding.md §4). Each keeps `window.opener` (no
 * Cross-Origin-Opener-Policy); the form fields and `data-action` hooks are the stable ones
 * docs/embedding.md §4 names for browser tests.
 */

const hidden = (params: AuthorizeParams) => <HiddenFields values={{ ...paramsOf(params) }} />;

export function popupError(
  status: number,
  title: string,
  lines: string[],
  headers?: Record<string, string>,
): HtmlPage {
  return errorPage({ status, title, lines, headers, keepOpener: true });
}

/** The parameters are wrong, or `client_id` names no tenant. */
export function invalidLinkPage(lines: string[]): HtmlPage {
  return popupError(400, 'This sign-in link is not valid', lines);
}

/** A sign-in form's pre-session token is missing or foreign (login CSRF): start again. */
export function expiredSignInPage(params: AuthorizeParams): HtmlPage {
  return page(
    { status: 403, title: 'This form has expired', keepOpener: true },
    <>
      <h1>This form has expired</h1>
      <ErrorLines
        lines={[
          "It was not sent from this browser's own sign-in page, or it is over an hour old. Nothing was changed.",
        ]}
      />
      <LinkOn href={`/oauth/authorize?${authorizeQuery(params)}`}>Start again</LinkOn>
    </>,
  );
}

export function emailPage(tenantName: string, params: AuthorizeParams, csrf: string): HtmlPage {
  return page(
    { title: `Sign in — ${tenantName}`, keepOpener: true },
    <>
      <h1>Sign in to {tenantName}</h1>
      <form method="post" action="/oauth/authorize/email" data-form="email">
        {hidden(params)}
        <CsrfField value={csrf} />
        <label for="email">Email</label>
        <input id="email" type="email" name="email" autocomplete="email" required maxLength={254} />
        <button type="submit" data-action="submit">
          Send me a code
        </button>
      </form>
    </>,
  );
}

export function codePage(
  tenantName: string,
  params: AuthorizeParams,
  email: string,
  csrf: string,
  error?: string,
): HtmlPage {
  return page(
    { title: `Enter the code — ${tenantName}`, keepOpener: true },
    <>
      <h1>Check your mail</h1>
      <p class="muted">
        If {email} belongs to a partner of {tenantName}, we have sent a 6-digit code to it. It is
        valid for 10 minutes.
      </p>
      {error && <p class="error">{error}</p>}
      <form method="post" action="/oauth/authorize/code" data-form="code">
        {hidden(params)}
        <CsrfField value={csrf} />
        <input type="hidden" name="email" value={email} />
        <label for="code">Code</label>
        <input
          id="code"
          name="code"
          inputMode="numeric"
          autocomplete="one-time-code"
          pattern="[0-9]{6}"
          maxLength={6}
          required
        />
        <button type="submit" data-action="submit">
          Sign in
        </button>
      </form>
    </>,
  );
}

/**
 * Consent, naming who is signed in (so a browser signed in to someone else's account shows it)
 * with a way to switch account: `decision=switch` ends this session and starts again.
 */
export function consentPage(
  tenantName: string,
  params: AuthorizeParams,
  csrf: string,
  signedInAs: string,
): HtmlPage {
  return page(
    { title: `Allow access — ${tenantName}`, keepOpener: true },
    <>
      <h1>{tenantName} asks to create referral links for you</h1>
      <p class="muted">
        Signed in as <strong data-field="signed-in-as">{signedInAs}</strong>
      </p>
      <form method="post" action="/oauth/authorize/decision" data-form="consent">
        {hidden(params)}
        <CsrfField value={csrf} />
        <button type="submit" name="decision" value="allow" data-action="allow">
          Allow
        </button>
        <button type="submit" name="decision" value="deny" data-action="deny">
          Deny
        </button>
        <p class="muted">
          Not you?{' '}
          <button type="submit" name="decision" value="switch" data-action="switch">
            Use another account
          </button>
        </p>
      </form>
    </>,
  );
}

const POST_TO_OPENER = `(function () {
  var data = JSON.parse(document.getElementById('data').textContent);
  if (window.opener) {
    data.origins.forEach(function (origin) {
      try { window.opener.postMessage(data.message, origin); } catch (e) {}
    });
  }
  setTimeout(function () { window.close(); }, 50);
})();`;

/**
 * Posts `message` to the opener once per allowed origin (never `*`), so only an opener on an
 * allowed origin receives it, then closes. All values travel as JSON data, not as code.
 */
export function messagePage(origins: string[], message: Record<string, unknown>): HtmlPage {
  return page(
    {
      title: 'Done',
      keepOpener: true,
      data: { origins, message },
      script: POST_TO_OPENER,
    },
    <>
      <h1>Done</h1>
      <p class="muted">You can close this window.</p>
    </>,
  );
}
