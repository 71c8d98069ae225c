import { applyDecorators, Controller, Get, HttpCode, Post, Req, UseFilters } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '../common/access/access.decorators';
import { AccessService } from '../access/access.service';
import { RateLimit } from '../access/rate-limits';
import {
  ApiFormBody,
  ApiHtmlPages,
  ApiRedirect,
  type SchemaObject,
} from '../common/http/html-openapi';
import { PageSecurity } from '../common/http/page-security';
import { FormBody, type FormOptions, FormQuery } from '../common/pages/form';
import { type HtmlPage, PageException, Redirect } from '../common/pages/page';
import { Pages } from '../common/pages/pages.decorator';
import type { TenantEntity } from '../tenants/tenant.entity';
import { TenantsService } from '../tenants/tenants.service';
import {
  AuthorizeParams,
  authorizeQuery,
  CodeStepForm,
  DecisionForm,
  EmailStepForm,
  paramsOf,
} from './authorize.dto';
import {
  codePage,
  consentPage,
  emailPage,
  expiredSignInPage,
  invalidLinkPage,
  messagePage,
  popupError,
} from './pages';
import { SignInLimitPage } from './sign-in-limits';
import { SESSION_TTL_MS, SignInService } from './sign-in.service';

export const SESSION_COOKIE = 'svc_session';

/** The popup's five parameters (docs/embedding.md §4): its first page's query, then hidden fields. */
const PARAMS: Record<keyof AuthorizeParams, SchemaObject> = {
  client_id: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{1,62}$', description: 'Tenant slug' },
  response_type: { type: 'string', enum: ['code'] },
  scope: { type: 'string', enum: ['profile:read'] },
  state: {
    type: 'string',
    minLength: 1,
    maxLength: 512,
    description: 'Echoed in the message posted to the opener',
  },
  popup: { type: 'string', enum: ['1'] },
};
const REQUIRED = Object.keys(PARAMS);
/** The sign-in steps' pre-session token (login CSRF, docs/security.md). */
const SIGN_IN_CSRF: SchemaObject = {
  type: 'string',
  description: "From the sign-in form; bound to this browser's `svc_login` cookie",
};
const EXPIRED_SIGN_IN: [number, string] = [
  403,
  "The form expired or was not sent from this browser's own sign-in page",
];
const INVALID_LINK: [number, string] = [
  400,
  'This sign-in link is not valid: a parameter is wrong or `client_id` names no tenant',
];
/** Wrong parameters are the popup's own 400 page, whichever step they come with. */
const LINK: FormOptions = {
  invalid: (errors) => invalidLinkPage(errors.map((e) => `${e.field} ${e.message}`)),
};
const TOO_MANY: [number, string] = [
  429,
  'Too many sign-in attempts from this network; `Retry-After` says when to try again',
];

/**
 * The popup (docs/embedding.md §4), on the service's own origin: sign-in by emailed code,
 * consent, then `service:auth-success` (or `service:auth-error`) posted to the opener once per
 * allowed origin. HTML pages, plain form posts; every page is unframeable, uncached and
 * nonce-scripted.
 */
@ApiTags('popup')
@Controller('oauth/authorize')
@Public()
@Pages()
export class AuthorizeController {
  constructor(
    private readonly tenants: TenantsService,
    private readonly signIn: SignInService,
    private readonly access: AccessService,
    private readonly security: PageSecurity,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'The sign-in popup: the email step, or consent when signed in',
    description:
      'Opened by the widgets in a popup. Without a `svc_session` cookie for this tenant it shows ' +
      'the email form; with one, the consent form (with a single-use `_csrf`).',
  })
  @ApiQueryParams()
  @ApiHtmlPages([200, 'The email form, or the consent form'], INVALID_LINK)
  async authorize(@FormQuery(LINK) query: AuthorizeParams, @Req() req: Request): Promise<HtmlPage> {
    const ctx = await this.context(query);
    const session = await this.signIn.findSession(this.sessionToken(req), ctx.tenant.id);
    if (!session) {
      // The email and code forms carry a pre-session token bound to a cookie (login CSRF).
      const login = this.security.loginForm(req, '/oauth');
      return emailPage(ctx.tenant.displayName, ctx.params, login.csrf).withCookies(login.cookie);
    }
    return consentPage(
      ctx.tenant.displayName,
      ctx.params,
      await this.signIn.issueConsentToken(session),
      await this.signIn.signedInAs(session),
    );
  }

  @Post('email')
  @RateLimit('signin_email')
  @UseFilters(SignInLimitPage)
  @HttpCode(200)
  @ApiOperation({
    summary: 'The email step: mails a sign-in code',
    description:
      "The code (6 digits, 10 minutes) is mailed only to a member's email, in the background; " +
      'the page is the same either way. A malformed email shows the email form again.',
  })
  @ApiFormBody(
    { ...PARAMS, email: { type: 'string', format: 'email', maxLength: 254 }, _csrf: SIGN_IN_CSRF },
    [...REQUIRED, 'email', '_csrf'],
  )
  @ApiHtmlPages(
    [200, 'The code form (or the email form again)'],
    INVALID_LINK,
    EXPIRED_SIGN_IN,
    TOO_MANY,
  )
  async email(@FormBody(LINK) form: EmailStepForm, @Req() req: Request): Promise<HtmlPage> {
    const ctx = await this.context(form);
    const csrf = this.security.checkLogin(req, '/oauth');
    if (!csrf) return expiredSignInPage(ctx.params);
    const email = form.email ?? '';
    if (!/^[^\s@]{1,64}@[^\s@]{1,190}$/.test(email)) {
      return emailPage(ctx.tenant.displayName, ctx.params, csrf);
    }
    await this.signIn.requestCode(ctx.tenant, email);
    return codePage(ctx.tenant.displayName, ctx.params, email, csrf);
  }

  @Post('code')
  @RateLimit('signin_code')
  @UseFilters(SignInLimitPage)
  @HttpCode(200)
  @ApiOperation({
    summary: 'The code step: signs in',
    description:
      'A right code sets the `svc_session` cookie (path `/oauth`, 30 days) and redirects to the ' +
      'consent form; a wrong or expired one (5 tries) shows the code form again.',
  })
  @ApiFormBody(
    {
      ...PARAMS,
      email: { type: 'string', format: 'email', maxLength: 254 },
      code: { type: 'string', pattern: '^[0-9]{6}$' },
      _csrf: SIGN_IN_CSRF,
    },
    [...REQUIRED, 'email', 'code', '_csrf'],
  )
  @ApiRedirect(303, 'Signed in (`Set-Cookie: svc_session`)', '/oauth/authorize?<the parameters>')
  @ApiHtmlPages([200, 'The code form with an error'], INVALID_LINK, EXPIRED_SIGN_IN, TOO_MANY)
  async code(
    @FormBody(LINK) form: CodeStepForm,
    @Req() req: Request,
  ): Promise<HtmlPage | Redirect> {
    const ctx = await this.context(form);
    // Checked before the code, so a forged post does not even spend one of its tries.
    const csrf = this.security.checkLogin(req, '/oauth');
    if (!csrf) return expiredSignInPage(ctx.params);
    const email = form.email ?? '';
    const memberId = email
      ? await this.signIn.verifyCode(ctx.tenant, email, form.code ?? '')
      : undefined;
    if (!memberId) {
      return codePage(
        ctx.tenant.displayName,
        ctx.params,
        email,
        csrf,
        'That code is wrong or has expired.',
      );
    }
    const session = await this.signIn.createSession(ctx.tenant.id, memberId);
    return new Redirect(`/oauth/authorize?${authorizeQuery(ctx.params)}`).withCookies(
      this.security.cookieToSet(SESSION_COOKIE, session.token, '/oauth', SESSION_TTL_MS),
    );
  }

  @Post('decision')
  @HttpCode(200)
  @ApiOperation({
    summary: 'The consent step: answers the opener',
    description:
      "Needs the `svc_session` cookie and its consent form's `_csrf`. `allow` answers a page that " +
      'posts `service:auth-success` with the embed JWT to `window.opener`, once per allowed ' +
      'origin; anything else posts `service:auth-error` (`access_denied`).',
  })
  @ApiFormBody(
    {
      ...PARAMS,
      _csrf: { type: 'string', description: 'From the consent form' },
      decision: {
        type: 'string',
        enum: ['allow', 'deny', 'switch'],
        description: '`switch` signs this browser out and redirects to the email step',
      },
    },
    [...REQUIRED, '_csrf', 'decision'],
  )
  @ApiRedirect(
    303,
    '`switch`: signed out, back to the email step',
    '/oauth/authorize?<the parameters>',
  )
  @ApiHtmlPages([200, 'The page that posts the outcome to the opener and closes'], INVALID_LINK, [
    403,
    'No session, or the form has expired',
  ])
  async decision(
    @FormBody(LINK) form: DecisionForm,
    @Req() req: Request,
  ): Promise<HtmlPage | Redirect> {
    const ctx = await this.context(form);
    const session = await this.signIn.findSession(this.sessionToken(req), ctx.tenant.id);
    if (!session || !(await this.signIn.consumeConsentToken(form._csrf ?? '', session))) {
      return popupError(403, 'This form has expired', ['Close this window and try again.']);
    }
    if (form.decision === 'switch') {
      // "Use another account": sign this browser out and start again at the email step.
      await this.signIn.endSession(session);
      return new Redirect(`/oauth/authorize?${authorizeQuery(ctx.params)}`).withCookies(
        this.security.cookieToClear(SESSION_COOKIE, '/oauth'),
      );
    }
    const origins = ctx.tenant.allowedOrigins;
    if (form.decision !== 'allow') {
      return messagePage(origins, {
        type: 'service:auth-error',
        error: 'access_denied',
        state: ctx.params.state,
      });
    }
    const { token, expiresAt } = this.access.issueEmbedToken(ctx.tenant.id, session.memberId);
    return messagePage(origins, {
      type: 'service:auth-success',
      token,
      user_id: session.memberId,
      org_id: ctx.tenant.id,
      expires_at: expiresAt,
      state: ctx.params.state,
    });
  }

  /** The validated parameters and their tenant; no such tenant is the invalid-link page. */
  private async context(
    form: AuthorizeParams,
  ): Promise<{ params: AuthorizeParams; tenant: TenantEntity }> {
    const params = paramsOf(form);
    const tenant = await this.tenants.tenantBySlug(params.client_id);
    if (!tenant) throw new PageException(invalidLinkPage(['client_id names no tenant']));
    return { params, tenant };
  }

  private sessionToken(req: Request): string | undefined {
    return this.security.cookie(req, SESSION_COOKIE);
  }
}

/** The five parameters as query parameters of the first page. */
function ApiQueryParams(): MethodDecorator {
  return applyDecorators(
    ...Object.entries(PARAMS).map(([name, schema]) =>
      ApiQuery({ name, required: true, schema, description: schema.description }),
    ),
  );
}
