import { Controller, Get, HttpCode, Param, Post, Query, Req, UseFilters } from '@nestjs/common';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '../common/access/access.decorators';
import { RateLimit } from '../access/rate-limits';
import { ValidationFailedError } from '../common/errors/domain-error';
import { ApiFormBody, ApiHtmlPages, ApiRedirect } from '../common/http/html-openapi';
import { FormBody } from '../common/pages/form';
import { type HtmlPage, Redirect, withQuery } from '../common/pages/page';
import { Pages } from '../common/pages/pages.decorator';
import { TargetNotAllowedError } from '../deeplinks/deeplink.errors';
import type { TenantEntity } from '../tenants/tenant.entity';
import { PortalLimitPage } from './portal-limits.filter';
import { codePage, emailPage, expiredPage, portalPath, signedOutLang } from './portal-page';
import { PortalSessions } from './portal-session';
import { PortalService } from './portal.service';
import { pageNumber, PortalCodeForm, PortalEmailForm, PortalLinkForm } from './portal.forms';
import {
  earningsPage,
  homePage,
  linksPage,
  MEMBER_TYPES,
  notificationsPage,
  payoutsPage,
  referralsPage,
} from './portal.views';

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}$/;
const CSRF = { type: 'string', description: "The page's form token (single use)" } as const;
const SIGN_IN_CSRF = {
  type: 'string',
  description: "From the sign-in form; bound to this browser's `svc_portal_login` cookie",
} as const;
const NO_PROGRAM: [number, string] = [404, 'No tenant has this slug'];
const EXPIRED: [number, string] = [403, 'The form has expired or was not sent from this browser'];
const SIGNED_OUT = '`/p/<slug>`: no session (signed out)';

/**
 * The partner portal (docs/partners.md, "The partner portal"): a partner signs in with their
 * email and a mailed code (the popup's sign-in service and rules) and sees their own money,
 * links, referrals, earnings, payouts and notification settings. HTML pages, plain form posts,
 * no script; every page unframeable, uncached and nonce-scripted (common/pages).
 */
@ApiTags('partner-portal')
@Controller('p/:slug')
@ApiParam({ name: 'slug', description: 'Tenant slug', schema: { type: 'string' } })
@Public()
@Pages()
export class PortalController {
  constructor(
    private readonly sessions: PortalSessions,
    private readonly portal: PortalService,
  ) {}

  /** Home when signed in; else the sign-in form (its email step). */
  @Get()
  @ApiHtmlPages([200, 'Home, or the sign-in form'], NO_PROGRAM, [
    403,
    'The member is banned or deactivated: a notice',
  ])
  async home(@Param('slug') slug: string, @Req() req: Request): Promise<HtmlPage> {
    const tenant = await this.sessions.tenant(slug);
    if (!(await this.sessions.session(tenant, req))) return this.emailStep(tenant, req);
    const ctx = await this.sessions.signedIn(slug, req);
    return homePage(ctx, await this.portal.home(ctx.tenant, ctx.member));
  }

  /** The email step: mails a 6-digit code if the email is a partner's, and shows the code form. */
  @Post('sign-in')
  @RateLimit('signin_email')
  @UseFilters(PortalLimitPage)
  @HttpCode(200)
  @ApiFormBody(
    { email: { type: 'string', format: 'email', maxLength: 254 }, _csrf: SIGN_IN_CSRF },
    ['email', '_csrf'],
  )
  @ApiHtmlPages(
    [
      200,
      "The code form (the same whether or not the email is a partner's), or the email form again",
    ],
    NO_PROGRAM,
    EXPIRED,
    [429, 'Too many sign-in attempts from this network; `Retry-After`'],
  )
  async email(
    @Param('slug') slug: string,
    @FormBody() form: PortalEmailForm,
    @Req() req: Request,
  ): Promise<HtmlPage> {
    const tenant = await this.sessions.tenant(slug);
    const view = { tenant, lang: signedOutLang(tenant, req, this.sessions.security) };
    const csrf = this.sessions.security.checkLogin(req, portalPath(slug));
    if (!csrf) return expiredPage(view);
    const email = form.email ?? '';
    if (!EMAIL.test(email)) return this.emailStep(tenant, req, view.lang.fmt.t.badEmail);
    await this.sessions.requestCode(tenant, email, view.lang.fmt.t);
    return codePage(view, email, csrf);
  }

  /** The code step: a right code (10 minutes, 5 tries) signs this browser in for 30 days. */
  @Post('sign-in/code')
  @RateLimit('signin_code')
  @UseFilters(PortalLimitPage)
  @HttpCode(200)
  @ApiFormBody(
    {
      email: { type: 'string', format: 'email', maxLength: 254 },
      code: { type: 'string', pattern: '^[0-9]{6}$' },
      _csrf: SIGN_IN_CSRF,
    },
    ['email', 'code', '_csrf'],
  )
  @ApiRedirect(303, 'Signed in (`Set-Cookie: svc_portal`, path `/p/<slug>`, 30 days)', '/p/<slug>')
  @ApiHtmlPages(
    [200, 'The code form with an error (a wrong or expired code; 5 tries)'],
    NO_PROGRAM,
    EXPIRED,
    [429, 'Too many sign-in attempts from this network; `Retry-After`'],
  )
  async code(
    @Param('slug') slug: string,
    @FormBody() form: PortalCodeForm,
    @Req() req: Request,
  ): Promise<HtmlPage | Redirect> {
    const tenant = await this.sessions.tenant(slug);
    const view = { tenant, lang: signedOutLang(tenant, req, this.sessions.security) };
    // Checked before the code, so a forged post does not even spend one of its tries.
    const csrf = this.sessions.security.checkLogin(req, portalPath(slug));
    if (!csrf) return expiredPage(view);
    const email = form.email ?? '';
    const cookie = EMAIL.test(email)
      ? await this.sessions.verify(tenant, email, form.code ?? '')
      : undefined;
    if (!cookie) return codePage(view, email, csrf, view.lang.fmt.t.wrongCode);
    return new Redirect(portalPath(slug)).withCookies(cookie);
  }

  /** Signs this browser out of the tenant's portal. */
  @Post('sign-out')
  @HttpCode(303)
  @ApiFormBody({ _csrf: CSRF }, ['_csrf'])
  @ApiRedirect(303, 'Signed out (the cookie cleared)', '/p/<slug>')
  @ApiHtmlPages(NO_PROGRAM, EXPIRED)
  async signOut(@Param('slug') slug: string, @Req() req: Request): Promise<HtmlPage | Redirect> {
    const tenant = await this.sessions.tenant(slug);
    if (!(await this.sessions.signOut(tenant, req))) {
      return expiredPage({ tenant, lang: signedOutLang(tenant, req, this.sessions.security) });
    }
    return new Redirect(portalPath(slug)).withCookies(this.sessions.clearCookie(tenant));
  }

  /** The partner's links: clicks, the short link to copy and its QR code; a form to make one. */
  @Get('links')
  @ApiHtmlPages(
    [200, 'The member’s links with clicks, a QR code each, and the form to make one'],
    NO_PROGRAM,
  )
  @ApiRedirect(303, SIGNED_OUT, '/p/<slug>')
  async links(
    @Param('slug') slug: string,
    @Query('page') page: unknown,
    @Query('notice') notice: unknown,
    @Req() req: Request,
  ): Promise<HtmlPage> {
    const ctx = await this.sessions.signedIn(slug, req);
    const { t } = ctx.fmt;
    return linksPage(
      ctx,
      await this.portal.links(ctx.tenant, ctx.member, pageNumber(page)),
      hostsOf(ctx.tenant),
      {
        notice:
          notice === 'created' ? t.linkCreated : notice === 'reused' ? t.linkReused : undefined,
      },
    );
  }

  /** Makes (or finds) a short link to a page of the tenant's site (the referral links' rules). */
  @Post('links')
  @HttpCode(303)
  @ApiFormBody(
    {
      target: { type: 'string', maxLength: 2048, description: 'An https URL on the tenant’s site' },
      note: { type: 'string', maxLength: 500 },
      _csrf: CSRF,
    },
    ['target', '_csrf'],
  )
  @ApiRedirect(
    303,
    'Made (or found: the same link): back to the links',
    '/p/<slug>/links?notice=created',
  )
  @ApiHtmlPages(
    NO_PROGRAM,
    EXPIRED,
    [422, 'The target is not on the tenant’s site: the form again'],
    [400, 'No target, or too long'],
  )
  async createLink(
    @Param('slug') slug: string,
    @FormBody() form: PortalLinkForm,
    @Req() req: Request,
  ): Promise<HtmlPage | Redirect> {
    const ctx = await this.sessions.signedIn(slug, req, true);
    const { t } = ctx.fmt;
    const again = async (status: number, error: string) =>
      linksPage(ctx, await this.portal.links(ctx.tenant, ctx.member, 1), hostsOf(ctx.tenant), {
        posted: form,
        error,
        status,
      });
    const target = form.target ?? '';
    if (!target || target.length > 2048 || (form.note?.length ?? 0) > 500) {
      return again(400, t.invalidTarget);
    }
    try {
      const link = await this.portal.createLink(ctx.tenant, ctx.member, target, form.note);
      return new Redirect(
        withQuery(`${ctx.base}/links`, { notice: link.reused ? 'reused' : 'created' }),
      );
    } catch (error) {
      if (error instanceof TargetNotAllowedError) return again(422, t.targetNotAllowed);
      throw error;
    }
  }

  /** The partner's leads and the partners below them. */
  @Get('referrals')
  @ApiHtmlPages([200, 'The member’s leads and their downline tree'], NO_PROGRAM)
  @ApiRedirect(303, SIGNED_OUT, '/p/<slug>')
  async referrals(
    @Param('slug') slug: string,
    @Query('page') page: unknown,
    @Req() req: Request,
  ): Promise<HtmlPage> {
    const ctx = await this.sessions.signedIn(slug, req);
    const [leads, tree] = await Promise.all([
      this.portal.leadsOf(ctx.tenant, ctx.member, pageNumber(page)),
      this.portal.tree(ctx.member),
    ]);
    return referralsPage(ctx, leads, tree);
  }

  /** The partner's commissions with their status and the rule that made each. */
  @Get('earnings')
  @ApiHtmlPages([200, 'The member’s bonuses with status and the rule that made each'], NO_PROGRAM)
  @ApiRedirect(303, SIGNED_OUT, '/p/<slug>')
  async earnings(
    @Param('slug') slug: string,
    @Query('page') page: unknown,
    @Req() req: Request,
  ): Promise<HtmlPage> {
    const ctx = await this.sessions.signedIn(slug, req);
    return earningsPage(ctx, await this.portal.earnings(ctx.tenant, ctx.member, pageNumber(page)));
  }

  /** The partner's payouts and their payout details (masked) with the form to change them. */
  @Get('payouts')
  @ApiHtmlPages([200, 'The member’s payout history and payout details form'], NO_PROGRAM)
  @ApiRedirect(303, SIGNED_OUT, '/p/<slug>')
  async payouts(
    @Param('slug') slug: string,
    @Query('page') page: unknown,
    @Query('notice') notice: unknown,
    @Req() req: Request,
  ): Promise<HtmlPage> {
    const ctx = await this.sessions.signedIn(slug, req);
    const { payouts, details } = await this.portal.payoutsOf(
      ctx.tenant,
      ctx.member,
      pageNumber(page),
    );
    return payoutsPage(ctx, payouts, details, {
      notice: notice === 'saved' ? ctx.fmt.t.detailsSaved : undefined,
    });
  }

  /** Saves the partner's payout details (bank account or PayPal), checked and sealed. */
  @Post('payouts/details')
  @HttpCode(303)
  @ApiFormBody(
    {
      method: { type: 'string', enum: ['bank_account', 'paypal'] },
      holder: { type: 'string' },
      iban: { type: 'string' },
      account: { type: 'string', pattern: '^[0-9]{20}$' },
      bik: { type: 'string', pattern: '^[0-9]{9}$' },
      email: { type: 'string', format: 'email' },
      _csrf: CSRF,
    },
    ['method', '_csrf'],
  )
  @ApiRedirect(303, 'Saved: back to the payouts', '/p/<slug>/payouts?notice=saved')
  @ApiHtmlPages(NO_PROGRAM, EXPIRED, [
    400,
    'A bad IBAN, account, BIK or email: the form again with the errors',
  ])
  async saveDetails(
    @Param('slug') slug: string,
    @Req() req: Request,
  ): Promise<HtmlPage | Redirect> {
    const ctx = await this.sessions.signedIn(slug, req, true);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const result = await this.portal.saveDetails(ctx.tenant, ctx.member, body);
    if ('saved' in result) return new Redirect(`${ctx.base}/payouts?notice=saved`);
    const { payouts, details } = await this.portal.payoutsOf(ctx.tenant, ctx.member, 1);
    return payoutsPage(ctx, payouts, details, { posted: result.posted, status: 400 });
  }

  /** The partner's mail preferences: each type at once, in the daily digest, or off. */
  @Get('notifications')
  @ApiHtmlPages([200, 'The member’s notification preferences'], NO_PROGRAM)
  @ApiRedirect(303, SIGNED_OUT, '/p/<slug>')
  async notifications(
    @Param('slug') slug: string,
    @Query('notice') notice: unknown,
    @Req() req: Request,
  ): Promise<HtmlPage> {
    const ctx = await this.sessions.signedIn(slug, req);
    return notificationsPage(ctx, await this.portal.preferences(ctx.tenant, ctx.member), {
      notice: notice === 'saved' ? ctx.fmt.t.prefsSaved : undefined,
    });
  }

  /** Saves the partner's mail preferences. */
  @Post('notifications')
  @HttpCode(303)
  @ApiFormBody(
    {
      ...Object.fromEntries(
        MEMBER_TYPES.map((type) => [type, { type: 'string', enum: ['instant', 'daily', 'off'] }]),
      ),
      _csrf: CSRF,
    },
    ['_csrf'],
  )
  @ApiRedirect(303, 'Saved: back to the preferences', '/p/<slug>/notifications?notice=saved')
  @ApiHtmlPages(NO_PROGRAM, EXPIRED, [400, 'An unknown mode: the form again'])
  async saveNotifications(
    @Param('slug') slug: string,
    @Req() req: Request,
  ): Promise<HtmlPage | Redirect> {
    const ctx = await this.sessions.signedIn(slug, req, true);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const given = Object.fromEntries(
      MEMBER_TYPES.filter((type) => body[type] !== undefined).map((type) => [type, body[type]]),
    );
    try {
      await this.portal.savePreferences(ctx.tenant, ctx.member, given);
    } catch (error) {
      if (!(error instanceof ValidationFailedError)) throw error;
      return notificationsPage(ctx, await this.portal.preferences(ctx.tenant, ctx.member), {
        error: error.errors?.map((e) => `${e.field} ${e.message}`).join('; '),
        status: 400,
      });
    }
    return new Redirect(`${ctx.base}/notifications?notice=saved`);
  }

  private emailStep(tenant: TenantEntity, req: Request, error?: string): HtmlPage {
    const login = this.sessions.security.loginForm(req, portalPath(tenant.slug));
    const view = { tenant, lang: signedOutLang(tenant, req, this.sessions.security) };
    return emailPage(view, login.csrf, login.cookie, error);
  }
}

/** The hosts a link may lead to, for the form's hint (the deeplinks service decides). */
function hostsOf(tenant: TenantEntity): string[] {
  const hosts = new Set<string>();
  for (const origin of tenant.allowedOrigins) {
    try {
      hosts.add(new URL(origin).host);
    } catch {
      // Not a URL: not a host to offer.
    }
  }
  for (const domain of tenant.linkDomains) hosts.add(domain);
  return [...hosts];
}
