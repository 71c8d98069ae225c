import { Body, Controller, Get, HttpCode, Inject, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { Request, Response } from 'express';
import { AUTH_LOOKUP, type AuthLookup } from '../common/auth/auth-lookup';
import { Public } from '../common/auth/auth.decorators';
import { EmbedTokenService } from '../common/auth/embed-token.service';
import { AppConfig } from '../config/app-config';
import type { TenantEntity } from '../tenants/tenant.entity';
import { type AuthorizeParams, authorizeQuery, parseAuthorizeParams } from './authorize.dto';
import { codePage, consentPage, emailPage, errorPage, messagePage } from './pages';
import { LimitedPerIp } from './sign-in-limits';
import { SESSION_TTL_MS, SignInService } from './sign-in.service';

export const SESSION_COOKIE = 'svc_session';

/**
 * The popup of seed 4.4 and SPEC 5, on the service's own origin: sign-in by emailed code, consent,
 * then `service:auth-success` (or `service:auth-error`) posted to the opener once per allowed
 * origin. HTML pages, plain form posts; every page is unframeable, uncached and nonce-scripted.
 */
@ApiExcludeController()
@Controller('oauth/authorize')
@Public()
export class AuthorizeController {
  private readonly secureCookie: boolean;

  constructor(
    @Inject(AUTH_LOOKUP) private readonly lookup: AuthLookup,
    private readonly signIn: SignInService,
    private readonly tokens: EmbedTokenService,
    config: AppConfig,
  ) {
    this.secureCookie = new URL(config.publicBaseUrl).protocol === 'https:';
  }

  @Get()
  async authorize(
    @Query() query: Record<string, unknown>,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    const ctx = await this.context(query, res);
    if (!ctx) return;
    const session = await this.signIn.findSession(this.sessionToken(req), ctx.tenant.id);
    if (!session) return emailPage(res, ctx.tenant.displayName, ctx.params);
    consentPage(
      res,
      ctx.tenant.displayName,
      ctx.params,
      await this.signIn.issueConsentToken(session),
    );
  }

  @Post('email')
  @LimitedPerIp('email')
  @HttpCode(200)
  async email(@Body() body: Record<string, unknown>, @Res() res: Response) {
    const ctx = await this.context(body, res);
    if (!ctx) return;
    const email = typeof body.email === 'string' ? body.email.trim() : '';
    if (!/^[^\s@]{1,64}@[^\s@]{1,190}$/.test(email)) {
      return emailPage(res, ctx.tenant.displayName, ctx.params);
    }
    await this.signIn.requestCode(ctx.tenant, email);
    codePage(res, ctx.tenant.displayName, ctx.params, email);
  }

  @Post('code')
  @LimitedPerIp('code')
  @HttpCode(200)
  async code(@Body() body: Record<string, unknown>, @Res() res: Response) {
    const ctx = await this.context(body, res);
    if (!ctx) return;
    const email = typeof body.email === 'string' ? body.email.trim() : '';
    const code = typeof body.code === 'string' ? body.code.trim() : '';
    const memberId = email ? await this.signIn.verifyCode(ctx.tenant, email, code) : undefined;
    if (!memberId) {
      return codePage(
        res,
        ctx.tenant.displayName,
        ctx.params,
        email,
        'That code is wrong or has expired.',
      );
    }
    const session = await this.signIn.createSession(ctx.tenant.id, memberId);
    res.setHeader(
      'Set-Cookie',
      serializeCookie(SESSION_COOKIE, session.token, {
        httpOnly: true,
        sameSite: 'lax',
        secure: this.secureCookie,
        path: '/oauth',
        maxAge: SESSION_TTL_MS / 1000,
      }),
    );
    res.redirect(303, `/oauth/authorize?${authorizeQuery(ctx.params)}`);
  }

  @Post('decision')
  @HttpCode(200)
  async decision(@Body() body: Record<string, unknown>, @Req() req: Request, @Res() res: Response) {
    const ctx = await this.context(body, res);
    if (!ctx) return;
    const session = await this.signIn.findSession(this.sessionToken(req), ctx.tenant.id);
    const csrf = typeof body._csrf === 'string' ? body._csrf : '';
    if (!session || !(await this.signIn.consumeConsentToken(csrf, session))) {
      return errorPage(res, 403, 'This form has expired', ['Close this window and try again.']);
    }
    const origins = ctx.tenant.allowedOrigins;
    if (body.decision !== 'allow') {
      return messagePage(res, origins, {
        type: 'service:auth-error',
        error: 'access_denied',
        state: ctx.params.state,
      });
    }
    const { token, expiresAt } = this.tokens.issue(ctx.tenant.id, session.memberId);
    messagePage(res, origins, {
      type: 'service:auth-success',
      token,
      user_id: session.memberId,
      org_id: ctx.tenant.id,
      expires_at: expiresAt,
      state: ctx.params.state,
    });
  }

  /** The validated parameters and tenant, or an HTML error page (400) already sent. */
  private async context(
    source: Record<string, unknown>,
    res: Response,
  ): Promise<{ params: AuthorizeParams; tenant: TenantEntity } | undefined> {
    const parsed = parseAuthorizeParams(source);
    if ('errors' in parsed) {
      errorPage(res, 400, 'This sign-in link is not valid', parsed.errors);
      return undefined;
    }
    const tenant = await this.lookup.tenantBySlug(parsed.params.client_id);
    if (!tenant) {
      errorPage(res, 400, 'This sign-in link is not valid', ['client_id names no tenant']);
      return undefined;
    }
    return { params: parsed.params, tenant };
  }

  private sessionToken(req: Request): string | undefined {
    return parseCookies(req.headers.cookie ?? '')[SESSION_COOKIE];
  }
}
