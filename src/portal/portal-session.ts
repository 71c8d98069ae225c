import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { formField, PageSecurity } from '../common/http/page-security';
import { errorPage } from '../common/pages/error-page';
import { PageException, Redirect } from '../common/pages/page';
import { MembersService } from '../members/members.service';
import type { SessionEntity } from '../sign-in-popup/session.entity';
import { SESSION_TTL_MS, SignInService } from '../sign-in-popup/sign-in.service';
import type { TenantEntity } from '../tenants/tenant.entity';
import { TenantsService } from '../tenants/tenants.service';
import {
  blockedPage,
  expiredPage,
  type PortalCtx,
  portalCtx,
  portalPath,
  signedOutLang,
} from './portal-page';
import { TEXTS, type Texts } from './portal.i18n';

/** How long a portal page's forms stay usable (their single-use token). */
const FORM_TTL_MS = 2 * 60 * 60 * 1000;

/** The portal's session cookie (path `/p/<slug>`: one tenant's portal never sees another's). */
export const PORTAL_COOKIE = 'svc_portal';

/**
 * Who is signed in to a tenant's portal (docs/partners.md, "The partner portal"), on the sign-in
 * service of the popup (sign-in-popup/: emailed codes, sessions of one member of one tenant, the
 * single-use form tokens bound to a session): the portal keeps no sessions of its own.
 */
@Injectable()
export class PortalSessions {
  constructor(
    private readonly tenants: TenantsService,
    private readonly signIn: SignInService,
    private readonly members: MembersService,
    readonly security: PageSecurity,
  ) {}

  /** The tenant of `slug`, or the portal's 404 page. */
  async tenant(slug: string): Promise<TenantEntity> {
    const tenant = /^[a-z0-9][a-z0-9-]{1,62}$/.test(slug)
      ? await this.tenants.tenantBySlug(slug)
      : null;
    if (!tenant) {
      const t = TEXTS.en;
      throw new PageException(
        errorPage({ status: 404, title: t.noProgram, lines: [t.noProgramLine] }),
      );
    }
    return tenant;
  }

  /** This browser's live session of the tenant's portal, if any. */
  session(tenant: TenantEntity, req: Request): Promise<SessionEntity | null> {
    return this.signIn.findSession(this.security.cookie(req, PORTAL_COOKIE), tenant.id);
  }

  /**
   * The signed-in member's page context; without a session, a redirect to the sign-in page. For
   * a form post (`post`), the form's `_csrf` must be a live token this page issued to this
   * session, and it is spent (single use): else the expired-form page (403). A banned or
   * deactivated member gets the notice page instead of any other.
   */
  async signedIn(slug: string, req: Request, post = false): Promise<PortalCtx> {
    const tenant = await this.tenant(slug);
    const session = await this.session(tenant, req);
    if (!session) throw new PageException(new Redirect(portalPath(slug)));
    if (post && !(await this.signIn.consumeConsentToken(formField(req, '_csrf') ?? '', session))) {
      throw new PageException(
        expiredPage({ tenant, lang: signedOutLang(tenant, req, this.security) }),
      );
    }
    const member = await this.members.getMember(tenant.id, session.memberId).catch(() => null);
    if (!member) {
      await this.signIn.endSession(session);
      throw new PageException(new Redirect(portalPath(slug)).withCookies(this.clearCookie(tenant)));
    }
    const ctx = portalCtx(
      {
        tenant,
        member,
        base: portalPath(slug),
        csrf: await this.signIn.issueConsentToken(session, FORM_TTL_MS),
        who: member.email ?? member.fullName ?? member.id,
      },
      req,
      this.security,
    );
    if (member.bannedAt || !member.isActive) throw new PageException(blockedPage(ctx));
    return ctx;
  }

  /** Mails a code, worded in `t`'s language, if the email is a member's (the same answer either way). */
  requestCode(tenant: TenantEntity, email: string, t: Texts): Promise<void> {
    return this.signIn.requestCode(tenant, email, {
      subject: (code) => t.mailSubject(tenant.displayName, code),
      text: (code) => t.mailText(code),
    });
  }

  /**
   * Checks the code (one of its 5 tries); on success a new session and its cookie (30 days),
   * else undefined.
   */
  async verify(tenant: TenantEntity, email: string, code: string): Promise<string | undefined> {
    const memberId = await this.signIn.verifyCode(tenant, email, code);
    if (!memberId) return undefined;
    const session = await this.signIn.createSession(tenant.id, memberId);
    return this.security.cookieToSet(
      PORTAL_COOKIE,
      session.token,
      portalPath(tenant.slug),
      SESSION_TTL_MS,
    );
  }

  /** Ends this browser's session (if the form is its own) and clears the cookie. */
  async signOut(tenant: TenantEntity, req: Request): Promise<boolean> {
    const session = await this.session(tenant, req);
    if (!session) return true;
    if (!(await this.signIn.consumeConsentToken(formField(req, '_csrf') ?? '', session))) {
      return false;
    }
    await this.signIn.endSession(session);
    return true;
  }

  clearCookie(tenant: TenantEntity): string {
    return this.security.cookieToClear(PORTAL_COOKIE, portalPath(tenant.slug));
  }
}
