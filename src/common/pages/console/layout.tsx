import type { ComponentChildren } from 'preact';
import type { Request } from 'express';
import type { PageSecurity } from '../../http/page-security';
import { CsrfField, Messages } from '../components';
import { InlineScript, InlineStyle } from '../inline';
import { HtmlPage } from '../page';
import { STYLE } from '../style';
import { type Fmt, formatter, LANG_COOKIE, type Lang, pageLang, type TenantLocale } from './i18n';
import { RECORD_TEXTS } from './i18n-records';
import { CONSOLE_STYLE } from './style';

/**
 * What the console's frame needs of an organisation's page: whose it is, the CSRF token of its
 * forms and who is signed in. OrgContext (admin-pages/org-page.guard.ts) carries this and more;
 * the frame asks no more of it, so that it imports no feature.
 */
export interface ConsoleFrame {
  tenant: TenantLocale & { slug: string; displayName: string };
  csrf: string;
  who: string;
}

/** What the console adds to an organisation's page: its language and formatting. */
export interface ConsoleLang {
  fmt: Fmt;
  /** The current path and query, for the language switch. */
  url: URL;
  /** `Set-Cookie` values of this answer (the language chosen with `?lang=`). */
  cookies: string[];
}

/** Anything that writes in the page's language (the list parts, the filters, the pager). */
export interface Worded {
  fmt: Fmt;
}

const LANG_COOKIE_MS = 12 * 60 * 60 * 1000;

/** The console context of a request: its language from `?lang=`, the session's, or the tenant's. */
export function consoleCtx<C extends ConsoleFrame>(
  ctx: C,
  req: Request,
  security: PageSecurity,
): C & ConsoleLang {
  const { lang, remember } = pageLang(req, security.cookie(req, LANG_COOKIE), ctx.tenant);
  return {
    ...ctx,
    fmt: formatter(lang, ctx.tenant),
    url: new URL(req.originalUrl, 'http://x'),
    cookies: remember ? [security.cookieToSet(LANG_COOKIE, lang, '/org', LANG_COOKIE_MS)] : [],
  };
}

type Area =
  | 'overview'
  | 'partners'
  | 'conversions'
  | 'leads'
  | 'payouts'
  | 'program'
  | 'bonuses'
  | 'integration'
  | 'audit-log';

export interface ConsolePageOptions {
  title: string;
  area?: Area;
  notice?: string;
  error?: string;
  status?: number;
  /** A script of the page's own (a module constant), run under the response's nonce. */
  script?: string;
}

/** A console page: skip link, navigation, language switch, who is signed in, sign-out. */
export function consolePage(
  ctx: ConsoleFrame & ConsoleLang,
  options: ConsolePageOptions,
  body: ComponentChildren,
): HtmlPage {
  const { t, lang } = ctx.fmt;
  const slug = ctx.tenant.slug;
  const nav: [string, string, Area | undefined][] = [
    [`/org/${slug}`, t.overview, 'overview'],
    [`/org/${slug}/partners`, t.partners, 'partners'],
    [`/org/${slug}/conversions`, t.conversions, 'conversions'],
    [`/org/${slug}/leads`, t.leads, 'leads'],
    [`/org/${slug}/program`, t.program, 'program'],
    [`/org/${slug}/payouts`, t.payouts, 'payouts'],
    [`/org/${slug}/bonuses`, t.bonuses, 'bonuses'],
    [`/org/${slug}/integration`, t.integration, 'integration'],
    [`/org/${slug}/audit-log`, t.auditLog, 'audit-log'],
  ];
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
          <InlineStyle nonce={nonce} css={STYLE + CONSOLE_STYLE} />
        </head>
        <body class="console">
          <a class="skip" href="#content">
            {t.skipToContent}
          </a>
          <header>
            <nav aria-label={ctx.tenant.displayName}>
              <strong>{ctx.tenant.displayName}</strong>
              {nav.map(([href, label, area]) => (
                <a href={href} aria-current={area && area === options.area ? 'page' : undefined}>
                  {label}
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
              <span class="muted">{ctx.who}</span>
              <form method="post" action="/org/sign-out">
                <CsrfField value={ctx.csrf} />
                <button type="submit">{t.signOut}</button>
              </form>
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

/**
 * The end of a filters form of records (these lists, the bonuses): partner id, a period of days
 * (each field's name and value), the submit button and the link that clears the filters.
 */
export function PartnerPeriodFields(props: {
  ctx: Worded;
  base: string;
  partnerLabel: string;
  userId?: string;
  from: [string, string | undefined];
  to: [string, string | undefined];
}) {
  const { t } = props.ctx.fmt;
  const r = RECORD_TEXTS[props.ctx.fmt.lang];
  return (
    <>
      <label>
        {props.partnerLabel}{' '}
        <input
          name="user_id"
          value={props.userId ?? ''}
          placeholder={r.partnerIdHint}
          maxLength={40}
          class="id"
        />
      </label>
      <label>
        {t.from} <input type="date" name={props.from[0]} value={props.from[1] ?? ''} />
      </label>
      <label>
        {t.to} <input type="date" name={props.to[0]} value={props.to[1] ?? ''} />
      </label>
      <button type="submit">{r.filter}</button>
      <a href={props.base}>{r.clearFilters}</a>
    </>
  );
}

/** A table with a caption (for screen readers), scrolling sideways on a narrow screen. */
export function DataTable(props: {
  caption: string;
  headers: string[];
  rows: ComponentChildren[][];
  empty: string;
  numeric?: number[];
  hideCaption?: boolean;
  /** A class per row (`dead` rows are tinted). */
  rowClasses?: (string | undefined)[];
}) {
  if (!props.rows.length) return <p class="muted">{props.empty}</p>;
  const num = new Set(props.numeric ?? []);
  return (
    <div class="table" tabIndex={0} role="region" aria-label={props.caption}>
      <table>
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
