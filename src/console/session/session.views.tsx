import { CsrfField } from '../../common/pages/components';
import { errorPage } from '../../common/pages/error-page';
import { page } from '../../common/pages/layout';
import type { HtmlPage } from '../../common/pages/page';
import { SignOut } from '../org-page.views';

export function signInPage(csrf: string, refused: boolean): HtmlPage {
  return page(
    { title: 'Sign in — organisation admin' },
    <>
      <h1>Organisation admin</h1>
      {refused && (
        <p class="error" role="alert">
          That token is not valid.
        </p>
      )}
      <form method="post" action="/org/sign-in" data-form="sign-in">
        <CsrfField value={csrf} />
        <label for="token">Staff token (stf_…) or platform admin token</label>
        <input id="token" name="token" type="password" autocomplete="off" required />
        <button type="submit" data-action="submit">
          Sign in
        </button>
      </form>
    </>,
  );
}

/** The sign-in form's pre-session token is missing or foreign (login CSRF). */
export function signInAgainPage(): HtmlPage {
  return errorPage({
    status: 403,
    title: 'Sign in again',
    lines: ["This sign-in form has expired or was not sent from this browser's own sign-in page."],
    link: ['/org/sign-in', 'Open the sign-in page'],
  });
}

/** The platform admin's chooser of an organisation. */
export function chooserPage(csrf: string): HtmlPage {
  return page(
    { title: 'Organisations' },
    <>
      <h1>Open an organisation</h1>
      <form method="get" action="/org">
        <label for="slug">Slug</label>
        <input id="slug" name="slug" required pattern="[a-z0-9][a-z0-9-]{1,62}" />
        <button type="submit" data-action="submit">
          Open
        </button>
      </form>
      <SignOut csrf={csrf} />
    </>,
  );
}
