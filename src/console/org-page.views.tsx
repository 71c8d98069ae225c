import { LinkOn } from '../common/pages/components';
import { page } from '../common/pages/layout';
import type { HtmlPage } from '../common/pages/page';
import { PostButton } from '../pages/forms';

export function SignOut({ csrf }: { csrf: string }) {
  return <PostButton action="/org/sign-out" csrf={csrf} label="Sign out" />;
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

/** A date and time as the pages show them: `2026-11-21 12:25` (UTC). */
export const minute = (iso: string) => iso.slice(0, 16).replace('T', ' ');
