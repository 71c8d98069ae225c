import type { ComponentChildren } from 'preact';
import type { Request } from 'express';
import type { PageArea, PageSecurity } from '../common/http/page-security';
import { Messages } from '../common/pages/components';
import { InlineScript, InlineStyle } from '../common/pages/inline';
import { HtmlPage } from '../common/pages/page';
import { STYLE } from '../common/pages/style';
import {
  type Fmt,
  formatter,
  type FrameTexts,
  LANG_COOKIE,
  type Lang,
  pageLang,
  type TenantLocale,
} from './i18n';
import { PostButton } from './forms';
import { FRAME_STYLE } from './style';

/**
 * The frame of the signed-in pages (the console's under /org, the partner portal's to come):
 * what it needs of a page is whose it is, the CSRF token of its forms and who is signed in. The
 * feature's own context carries this and more; the frame asks no more of it, so that it imports
 * no feature.
 */
export interface PageFrame {
  tenant: TenantLocale & { displayName: string };
  csrf: string;
  who: string;
}

/** What the frame adds to a page: its language and formatting with the feature's words `T`. */
export interface FrameLang<T extends FrameTexts = FrameTexts> {
  fmt: Fmt<T>;
  /** The current path and query, for the language switch. */
  url: URL;
  /** `Set-Cookie` values of this answer (the language chosen with `?lang=`). */
  cookies: string[];
}

/** Anything that writes in the page's language (the list parts, the filters, the pager). */
export interface Worded<T extends FrameTexts = FrameTexts> {
  fmt: Fmt<T>;
}

const LANG_COOKIE_MS = 12 * 60 * 60 * 1000;

/**
 * The frame's context of a request: its language from `?lang=`, the session's, or the tenant's;
 * a language chosen is remembered in a cookie of `path` (the feature's pages).
 */
export function frameCtx<C extends PageFrame, T extends FrameTexts>(
  ctx: C,
  req: Request,
  security: PageSecurity,
  path: PageArea,
  texts: Record<Lang, T>,
): C & FrameLang<T> {
  const { lang, remember } = pageLang(req, security.cookie(req, LANG_COOKIE), ctx.tenant);
  return {
    ...ctx,
    fmt: formatter(lang, ctx.tenant, texts),
    url: new URL(req.originalUrl, 'http://x'),
    cookies: remember ? [security.cookieToSet(LANG_COOKIE, lang, path, LANG_COOKIE_MS)] : [],
  };
}

/** A link of the frame's navigation; `current` marks the page's own area. */
export interface NavLink {
  href: string;
  label: string;
  current?: boolean;
}

export interface FramedPageOptions {
  title: string;
  nav: NavLink[];
  /** Where the sign-out form posts; none on a page for people not signed in (the join form). */
  signOut?: string;
  notice?: string;
  error?: string;
  status?: number;
  /** A script of the page's own (a module constant), run under the response's nonce. */
  script?: string;
  /** The feature's own look: a class on `body` and its style sheet, after the frame's. */
  theme?: { bodyClass: string; style: string };
}

/**
 * A page of the frame: skip link, navigation, language switch and, signed in, who it is and sign-out.
 */
export function framedPage(
  ctx: PageFrame & FrameLang,
  options: FramedPageOptions,
  body: ComponentChildren,
): HtmlPage {
  const { t, lang } = ctx.fmt;
  const switchTo = (to: Lang) => {
    const url = new URL(ctx.url.toString());
    url.searchParams.set('lang', to);
    url.searchParams.delete('notice');
    url.searchParams.delete('error');
    return `${url.pathname}${url.search}`;
  };
  const page = new HtmlPage(
    (nonce) => (
      <html lang={lang}>
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>{`${options.title} — ${ctx.tenant.displayName}`}</title>
          <InlineStyle nonce={nonce} css={STYLE + FRAME_STYLE + (options.theme?.style ?? '')} />
        </head>
        {/* The frame's class, which FRAME_STYLE keys on (named when the console was its one user). */}
        <body class={options.theme ? `console ${options.theme.bodyClass}` : 'console'}>
          <a class="skip" href="#content">
            {t.skipToContent}
          </a>
          <header>
            <nav aria-label={ctx.tenant.displayName}>
              <strong>{ctx.tenant.displayName}</strong>
              {options.nav.map((link) => (
                <a href={link.href} aria-current={link.current ? 'page' : undefined}>
                  {link.label}
                </a>
              ))}
              <span class="lang" role="group" aria-label={t.language}>
                <a
                  href={switchTo('ru')}
                  lang="ru"
                  aria-current={lang === 'ru' ? 'true' : undefined}
                >
                  RU
                </a>{' '}
                <a
                  href={switchTo('en')}
                  lang="en"
                  aria-current={lang === 'en' ? 'true' : undefined}
                >
                  EN
                </a>
              </span>
              {options.signOut && (
                <>
                  <span class="muted">{ctx.who}</span>
                  <PostButton action={options.signOut} csrf={ctx.csrf} label={t.signOut} />
                </>
              )}
            </nav>
          </header>
          <main class="wide" id="content">
            <h1>{options.title}</h1>
            <Messages notice={options.notice} error={options.error} />
            {body}
          </main>
          {options.script && <InlineScript nonce={nonce} code={options.script} />}
        </body>
      </html>
    ),
    { status: options.status, cookies: ctx.cookies },
  );
  return page;
}

/** "Page n of m" with links to the neighbours, keeping the list's filters. */
export function Pager(props: {
  ctx: Worded;
  base: string;
  params: Record<string, string | undefined>;
  page: number;
  totalPages: number;
}) {
  const { t } = props.ctx.fmt;
  const { base, params, page, totalPages } = props;
  const href = (p: number) => withParams(base, { ...params, page: String(p) });
  return (
    <nav class="pager" aria-label={t.pageOf(page, Math.max(totalPages, 1))}>
      <span class="muted">{t.pageOf(page, Math.max(totalPages, 1))}</span>{' '}
      {page > 1 && <a href={href(page - 1)}>{t.previous}</a>}{' '}
      {page < totalPages && <a href={href(page + 1)}>{t.next}</a>}
    </nav>
  );
}

/** `base` with the non-empty `params` as its query. */
export function withParams(base: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams(
    Object.entries(params).filter((kv): kv is [string, string] => !!kv[1]),
  );
  return query.size ? `${base}?${query.toString()}` : base;
}

/** The list's filters and page as a query, for a row form's `back` field (lists.ts keptFilters). */
export function backQuery(filters: Record<string, string | undefined>, page?: number): string {
  return withParams('', { ...filters, page: page === undefined ? undefined : String(page) }).slice(
    1,
  );
}

export interface DataTableProps {
  caption: string;
  headers: string[];
  rows: ComponentChildren[][];
  /** What stands in the table's place when it has no rows (its empty state). */
  empty: string;
  numeric?: number[];
  hideCaption?: boolean;
  /** A class per row (`dead` rows are tinted). */
  rowClasses?: (string | undefined)[];
  /** A class of the table itself (the portal's `stack`: rows stacked on a phone). */
  tableClass?: string;
}

/** A table with a caption (for screen readers), scrolling sideways on a narrow screen. */
export function DataTable(props: DataTableProps) {
  if (!props.rows.length) return <p class="muted">{props.empty}</p>;
  const num = new Set(props.numeric ?? []);
  return (
    <div class="table" tabIndex={0} role="region" aria-label={props.caption}>
      <table class={props.tableClass}>
        <caption class={props.hideCaption ? 'sr-only' : undefined}>{props.caption}</caption>
        <thead>
          <tr>
            {props.headers.map((h, i) => (
              <th scope="col" class={num.has(i) ? 'num' : undefined}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((cells, r) => (
            <tr class={props.rowClasses?.[r] || undefined}>
              {cells.map((cell, i) => (
                <td class={num.has(i) ? 'num' : undefined}>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A section of a page that is one table under its heading (`heading`, else the caption); the
 * heading names the section, so the caption is for screen readers only.
 */
export function TableSection(
  props: Omit<DataTableProps, 'hideCaption'> & { id: string; heading?: string },
) {
  const { id, heading, ...table } = props;
  return (
    <section aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>{heading ?? table.caption}</h2>
      <DataTable {...table} hideCaption />
    </section>
  );
}
