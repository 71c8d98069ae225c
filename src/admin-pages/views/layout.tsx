import type { ComponentChildren } from 'preact';
import { CsrfField, LinkOn, Messages } from '../../common/pages/components';
import { page } from '../../common/pages/layout';
import type { HtmlPage } from '../../common/pages/page';
import { type OrgArea, ORG_AREAS } from '../areas';
import type { OrgContext } from '../org-page.guard';

/** Copy buttons of secrets shown once: they appear only when JavaScript runs. */
const COPY_SCRIPT = `document.querySelectorAll('[data-copy]').forEach(function (b) {
  b.hidden = false;
  b.addEventListener('click', function () {
    navigator.clipboard.writeText(document.getElementById(b.getAttribute('data-copy')).textContent);
    b.textContent = 'Copied';
  });
});`;

export interface OrgPageOptions {
  title: string;
  /** The area the page belongs to, marked in the navigation. */
  area?: OrgArea;
  /** The outcome of the last form post (post/redirect/get: `?notice=`, `?error=`). */
  notice?: string;
  error?: string;
  status?: number;
}

/** A page of an organisation: the navigation of its areas, who is signed in, sign-out. */
export function orgPage(ctx: OrgContext, options: OrgPageOptions, body: ComponentChildren) {
  const slug = ctx.tenant.slug;
  return page(
    {
      title: `${options.title} — ${slug}`,
      status: options.status,
      wide: true,
      script: COPY_SCRIPT,
    },
    <>
      <nav>
        <strong>{slug}</strong>
        {ORG_AREAS.map((area) => (
          <a
            href={`/org/${slug}/${area.path}`}
            aria-current={area.path === options.area ? 'page' : undefined}
          >
            {area.label}
          </a>
        ))}
        <span class="muted">{ctx.who}</span>
        <SignOut csrf={ctx.csrf} />
      </nav>
      <h1>{options.title}</h1>
      <Messages notice={options.notice} error={options.error} />
      {body}
    </>,
  );
}

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

/** A secret shown once, with a copy button that appears when JavaScript is on. */
export function ShownOnce({ id, label, value }: { id: string; label: string; value: string }) {
  return (
    <>
      <p>
        <strong>{label}</strong> (shown once; store it now):
      </p>
      <p class="secret" id={id}>
        {value}
      </p>
      <button type="button" data-copy={id} hidden>
        Copy
      </button>
    </>
  );
}

export interface TableProps {
  headers: string[];
  rows: ComponentChildren[][];
  /** A class per row (`dead` rows are tinted). */
  rowClasses?: (string | undefined)[];
}

/** A table that scrolls sideways inside the page on a narrow screen; "Nothing here yet." when empty. */
export function Table({ headers, rows, rowClasses = [] }: TableProps) {
  if (!rows.length) return <p class="muted">Nothing here yet.</p>;
  return (
    <div class="table">
      <table>
        <thead>
          <tr>
            {headers.map((h) => (
              <th>{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((cells, i) => (
            <tr class={rowClasses[i] || undefined}>
              {cells.map((cell) => (
                <td>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** "Page n of m" with links to the neighbours, keeping the list's filters. */
export function Pager(props: {
  base: string;
  params: Record<string, string | undefined>;
  page: number;
  totalPages: number;
}) {
  const { base, params, page: current, totalPages } = props;
  const href = (p: number) => {
    const query = new URLSearchParams(
      Object.entries({ ...params, page: String(p) }).filter(
        (kv): kv is [string, string] => !!kv[1],
      ),
    );
    return `${base}?${query.toString()}`;
  };
  return (
    <p class="muted">
      Page {current} of {Math.max(totalPages, 1)}{' '}
      {current > 1 && <a href={href(current - 1)}>← Previous</a>}{' '}
      {current < totalPages && <a href={href(current + 1)}>Next →</a>}
    </p>
  );
}

/** A date and time as the pages show them: `2026-11-21 12:25` (UTC). */
export const minute = (iso: string) => iso.slice(0, 16).replace('T', ' ');
