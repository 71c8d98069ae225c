import { Controller, Get, HttpCode, Post, Query, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '../../common/access/access.decorators';
import { NoAdminSessionError } from '../../access/access.errors';
import { AccessService, type AdminSessionPrincipal } from '../../access/access.service';
import { ADMIN_SESSION_TTL_MS } from '../../access/admin-sessions.service';
import { formField, PageSecurity, sameSecret } from '../../common/http/page-security';
import { FormBody } from '../../common/pages/form';
import { type HtmlPage, Redirect } from '../../common/pages/page';
import { Pages } from '../../common/pages/pages.decorator';
import { OrgDocs } from '../org-areas.openapi';
import { ADMIN_COOKIE } from '../org-page';
import { notAllowedPage } from '../org-page.views';
import { SignInForm } from './session.forms';
import { chooserPage, signInAgainPage, signInPage } from './session.views';

/**
 * Signing in and out of the admin pages, and `/org` itself: a staff token (or the platform admin
 * token) is exchanged for the `svc_admin` session cookie (docs/architecture.md). The sign-in form
 * carries a pre-session token (login CSRF, docs/security.md).
 */
@ApiTags('admin-pages')
@Controller('org')
@Public()
@Pages()
export class SessionPagesController {
  constructor(
    private readonly access: AccessService,
    private readonly security: PageSecurity,
  ) {}

  @Get('sign-in')
  @OrgDocs.signInForm()
  signInForm(@Query('error') error: string | undefined, @Req() req: Request): HtmlPage {
    // The form's pre-session token (login CSRF): only this browser's own form can sign it in.
    const login = this.security.loginForm(req, '/org');
    return signInPage(login.csrf, Boolean(error)).withCookies(login.cookie);
  }

  @Post('sign-in')
  @HttpCode(303)
  @OrgDocs.signIn()
  async signIn(@FormBody() form: SignInForm, @Req() req: Request): Promise<HtmlPage | Redirect> {
    if (!this.security.checkLogin(req, '/org')) return signInAgainPage();
    const session = form.token ? await this.access.adminSignIn(form.token) : undefined;
    if (!session) return new Redirect('/org/sign-in?error=1');
    return new Redirect('/org').withCookies(
      this.security.cookieToSet(ADMIN_COOKIE, session, '/org', ADMIN_SESSION_TTL_MS),
    );
  }

  @Post('sign-out')
  @HttpCode(303)
  @OrgDocs.signOut()
  async signOut(@Req() req: Request): Promise<HtmlPage | Redirect> {
    const token = this.security.cookie(req, ADMIN_COOKIE);
    const principal = await this.session(token);
    if (principal && !sameSecret(formField(req, '_csrf'), principal.csrf)) {
      return notAllowedPage(403, 'The form has expired; reload the page and try again.');
    }
    if (principal && token) await this.access.adminSignOut(token);
    return new Redirect('/org/sign-in').withCookies(
      this.security.cookieToClear(ADMIN_COOKIE, '/org'),
    );
  }

  /** Staff land on their organisation; the platform admin chooses one. */
  @Get()
  @OrgDocs.home()
  async home(
    @Query('slug') slug: string | undefined,
    @Req() req: Request,
  ): Promise<HtmlPage | Redirect> {
    const principal = await this.session(this.security.cookie(req, ADMIN_COOKIE));
    if (!principal) return new Redirect('/org/sign-in');
    if (principal.tenant) return new Redirect(`/org/${principal.tenant.slug}/bonuses`);
    if (typeof slug === 'string' && /^[a-z0-9][a-z0-9-]{1,62}$/.test(slug)) {
      return new Redirect(`/org/${slug}/integration`);
    }
    return chooserPage(principal.csrf);
  }

  /** The live session of this cookie, if any. */
  private session(cookie: string | undefined): Promise<AdminSessionPrincipal | undefined> {
    return this.access.adminSession(cookie).catch((error: unknown) => {
      if (error instanceof NoAdminSessionError) return undefined;
      throw error;
    });
  }
}
