import type { ComponentChildren } from 'preact';
import type { Request } from 'express';
import type { PageSecurity } from '../common/http/page-security';
import { CsrfField, ErrorLines, LinkOn } from '../common/pages/components';
import { page } from '../common/pages/layout';
import type { HtmlPage } from '../common/pages/page';
import type { MemberEntity } from '../members/member.entity';
import { type FrameLang, framedPage, frameCtx, type PageFrame } from '../pages/layout';
import type { Lang } from '../pages/i18n';
import type { TenantEntity } from '../tenants/tenant.entity';
import { TEXTS, type Texts } from './portal.i18n';
import { PORTAL_SIGNED_OUT_STYLE, PORTAL_STYLE } from './portal.style';

/** The portal's base path for a tenant: `/p/<slug>` (its cookies' path too). */
export const portalPath = (slug: string): `/p/${string}` => `/p/${slug}`;

/** Who is signed in to which tenant's portal, and the page's one-time form token. */
export interface PortalFrame extends PageFrame {
  tenant: TenantEntity;
  member: MemberEntity;
  /** `/p/<slug>`. */
  base: string;
}

export type PortalCtx = PortalFrame & FrameLang<Texts>;

/** The portal context of a request: its language from `?lang=`, this browser's, or the tenant's. */
export function portalCtx(frame: PortalFrame, req: Request, security: PageSecurity): PortalCtx {
  return frameCtx(frame, req, security, portalPath(frame.tenant.slug), TEXTS);
}

/** The language of a signed-out page (no member yet): the same rule, no form token. */
export function signedOutLang(
  tenant: TenantEntity,
  req: Request,
  security: PageSecurity,
): FrameLang<Texts> {
  const { fmt, url, cookies } = frameCtx(
    { tenant, csrf: '', who: '' },
    req,
    security,
    portalPath(tenant.slug),
    TEXTS,
  );
  return { fmt, url, cookies };
}

export type Area = 'home' | 'links' | 'referrals' | 'earnings' | 'payouts' | 'notifications';

/** A signed-in page of the portal: the frame with the portal's tabs and look. */
export function portalPage(
  ctx: PortalCtx,
  options: { title: string; area: Area; notice?: string; error?: string; status?: number },
  body: ComponentChildren,
): HtmlPage {
  const { t } = ctx.fmt;
  const tabs: [string, string, Area][] = [
    [ctx.base, t.home, 'home'],
    [`${ctx.base}/links`, t.links, 'links'],
    [`${ctx.base}/referrals`, t.referrals, 'referrals'],
    [`${ctx.base}/earnings`, t.earnings, 'earnings'],
    [`${ctx.base}/payouts`, t.payouts, 'payouts'],
    [`${ctx.base}/notifications`, t.notifications, 'notifications'],
  ];
  const { area, ...rest } = options;
  return framedPage(
    ctx,
    {
      ...rest,
      nav: tabs.map(([href, label, a]) => ({ href, label, current: a === area })),
      signOut: `${ctx.base}/sign-out`,
      theme: { bodyClass: 'portal', style: PORTAL_STYLE },
    },
    body,
  );
}

/** What a banned or deactivated member sees instead of any page: a notice, and signing out. */
export function blockedPage(ctx: PortalCtx): HtmlPage {
  const { t } = ctx.fmt;
  return framedPage(
    ctx,
    {
      title: t.blockedTitle,
      nav: [],
      signOut: `${ctx.base}/sign-out`,
      status: 403,
      theme: { bodyClass: 'portal', style: PORTAL_STYLE },
    },
    <div class="card notice-card" data-notice="blocked">
      <p>{ctx.member.bannedAt ? t.bannedLine : t.inactiveLine}</p>
    </div>,
  );
}

interface SignedOut {
  tenant: TenantEntity;
  lang: FrameLang<Texts>;
}

/** A signed-out page of the portal: the common page, in the page's language, centred card. */
function signedOutPage(
  view: SignedOut,
  options: { title: string; status?: number; cookies?: string[]; headers?: Record<string, string> },
  body: ComponentChildren,
): HtmlPage {
  const { t, lang } = view.lang.fmt;
  const switchTo = (to: Lang) => {
    const url = new URL(view.lang.url.toString());
    url.searchParams.set('lang', to);
    return `${url.pathname}${url.search}`;
  };
  return page(
    {
      title: `${options.title} — ${view.tenant.displayName}`,
      lang,
      status: options.status,
      headers: options.headers,
      cookies: [...view.lang.cookies, ...(options.cookies ?? [])],
      theme: { bodyClass: 'portal-out', style: PORTAL_SIGNED_OUT_STYLE },
    },
    <>
      <p class="brand">
        {view.tenant.displayName} · {t.portal}
      </p>
      {body}
      <p class="lang" role="group" aria-label={t.language}>
        <a href={switchTo('ru')} lang="ru" aria-current={lang === 'ru' ? 'true' : undefined}>
          Русский
        </a>
        <a href={switchTo('en')} lang="en" aria-current={lang === 'en' ? 'true' : undefined}>
          English
        </a>
      </p>
    </>,
  );
}

/** Step one: the email. */
export function emailPage(
  view: SignedOut,
  csrf: string,
  loginCookie: string,
  error?: string,
): HtmlPage {
  const { t } = view.lang.fmt;
  const base = portalPath(view.tenant.slug);
  return signedOutPage(
    view,
    { title: t.signIn, cookies: [loginCookie] },
    <>
      <h1>{t.signInTitle(view.tenant.displayName)}</h1>
      <p class="muted">{t.signInLead}</p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <form method="post" action={`${base}/sign-in`} data-form="email">
        <CsrfField value={csrf} />
        <label for="email">{t.email}</label>
        <input id="email" type="email" name="email" autocomplete="email" required maxLength={254} />
        <button type="submit" data-action="submit">
          {t.sendCode}
        </button>
      </form>
    </>,
  );
}

/** Step two: the mailed code. */
export function codePage(view: SignedOut, email: string, csrf: string, error?: string): HtmlPage {
  const { t } = view.lang.fmt;
  const base = portalPath(view.tenant.slug);
  return signedOutPage(
    view,
    { title: t.checkMail },
    <>
      <h1>{t.checkMail}</h1>
      <p class="muted">{t.codeSent(email)}</p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <form method="post" action={`${base}/sign-in/code`} data-form="code">
        <CsrfField value={csrf} />
        <input type="hidden" name="email" value={email} />
        <label for="code">{t.code}</label>
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
          {t.signIn}
        </button>
      </form>
      <LinkOn href={base}>{t.otherEmail}</LinkOn>
    </>,
  );
}

/** A form that was not this browser's own, or too old (login CSRF, or a spent form token). */
export function expiredPage(view: SignedOut): HtmlPage {
  const { t } = view.lang.fmt;
  return signedOutPage(
    view,
    { title: t.expiredTitle, status: 403 },
    <>
      <h1>{t.expiredTitle}</h1>
      <ErrorLines lines={[t.expiredLine]} />
      <LinkOn href={portalPath(view.tenant.slug)}>{t.startAgain}</LinkOn>
    </>,
  );
}
