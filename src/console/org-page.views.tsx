import { CsrfField, LinkOn } from '../common/pages/components';
import { page } from '../common/pages/layout';
import type { HtmlPage } from '../common/pages/page';

export function SignOut({ csrf }: { csrf: string }) {
  return (
    <form method="post" action="/org/sign-out">
      <CsrfField value={csrf} />
      <button type="submit">Sign out</button>
    </form>
  );
}

/** A refusal of the admin pages: another organisation, a lower role, an expired form. */
export function notAllowedPage(status: number, message: string): HtmlPage {
  return page(
    { status, title: 'Not allowed' },
    <>
      <h1>Not allowed</h1>
      <p class="error">{message}</p>
      <LinkOn href="/org">Back</LinkOn>
    </>,
  );
}

/** A one-button POST form (no JavaScript needed). */
export function PostButton(props: {
  action: string;
  csrf: string;
  label: string;
  disabled?: boolean;
}) {
  return (
    <form method="post" action={props.action}>
      <CsrfField value={props.csrf} />
      <button type="submit" disabled={props.disabled}>
        {props.label}
      </button>
    </form>
  );
}

/** A date and time as the pages show them: `2026-11-21 12:25` (UTC). */
export const minute = (iso: string) => iso.slice(0, 16).replace('T', ' ');
