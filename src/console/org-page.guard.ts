import {
  applyDecorators,
  type CanActivate,
  Controller,
  Get,
  Header,
  createParamDecorator,
  type ExecutionContext,
  Injectable,
  SetMetadata,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import {
  NoAdminSessionError,
  OtherTenantError,
  RoleTooLowError,
  TenantNotFoundError,
} from '../access/access.errors';
import { AccessService } from '../access/access.service';
import { ApiTenantSlug, Public } from '../common/access/access.decorators';
import { type Actor, roleAllows, type StaffRole } from '../common/access/actor';
import { formField, PageSecurity, sameSecret } from '../common/http/page-security';
import { type ConsoleLang, consoleCtx } from './console-page';
import { PageException, Redirect } from '../common/pages/page';
import { PageFilter } from '../common/pages/page.filter';
import { Back, Pages } from '../common/pages/pages.decorator';
import type { TenantEntity } from '../tenants/tenant.entity';
import { notAllowedPage } from './org-page.views';

export const ADMIN_COOKIE = 'svc_admin';
const ROLE = 'org:role';
const CONTEXT = Symbol('consoleCtx');

/** Who is signed in on which organisation's page, and what they may do there. */
export interface OrgContext {
  actor: Actor;
  tenant: TenantEntity;
  /** The session's CSRF token, carried by every form of the page. */
  csrf: string;
  /** "name · role", or "platform admin", for the navigation. */
  who: string;
  can: (role: StaffRole) => boolean;
}

/** An organisation's page in the console's frame: the OrgContext, the page's language. */
export type ConsoleCtx = OrgContext & ConsoleLang;

/**
 * Every page and form post of an organisation (`/org/:slug/…`) passes here first: a signed-in
 * session (else a redirect to the sign-in page), on this organisation (another one is 403; an
 * unknown slug 404 for the platform admin), with the route's role or higher (403), and on a POST
 * the session's `_csrf` field, whatever the body (403: a body that was not a form has none). The
 * roles are the Admin API's (docs/security.md).
 */
@Injectable()
export class OrgPageGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly access: AccessService,
    private readonly security: PageSecurity,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const role = this.reflector.get<StaffRole>(ROLE, context.getHandler());
    const req = context.switchToHttp().getRequest<Request & { [CONTEXT]?: ConsoleCtx }>();
    const slug = String(req.params.slug);
    const cookie = this.security.cookie(req, ADMIN_COOKIE);
    const principal = await this.access.adminSession(cookie, { slug, role }).catch(asPage(role));
    const { actor, tenant } = principal;
    if (!tenant) throw new Error('an organisation page without its tenant');
    const can = (r: StaffRole) =>
      actor.type === 'platform' || (actor.type === 'staff' && roleAllows(actor.role, r));
    if (req.method !== 'GET' && !sameSecret(formField(req, '_csrf'), principal.csrf)) {
      throw new PageException(
        notAllowedPage(403, 'The form has expired; reload the page and try again.'),
      );
    }
    const who = actor.type === 'staff' ? `${actor.name} · ${actor.role}` : 'platform admin';
    req[CONTEXT] = consoleCtx(
      { actor, tenant, csrf: principal.csrf, who, can },
      req,
      this.security,
    );
    return true;
  }
}

/** AccessService's refusals of an organisation page, as the pages answer them. */
function asPage(role: StaffRole) {
  return (error: unknown): never => {
    if (error instanceof NoAdminSessionError) throw new PageException(new Redirect('/org/sign-in'));
    if (error instanceof TenantNotFoundError) {
      throw new PageException(notAllowedPage(404, `No organisation "${error.slug}".`));
    }
    if (error instanceof OtherTenantError) {
      throw new PageException(notAllowedPage(403, 'Your token may not act on this organisation.'));
    }
    if (error instanceof RoleTooLowError) {
      throw new PageException(notAllowedPage(403, `This needs the ${role} role or higher.`));
    }
    throw error;
  };
}

/** A page of an organisation for `role` or higher (OrgPageGuard). */
export const OrgPage = (role: StaffRole) =>
  applyDecorators(SetMetadata(ROLE, role), UseGuards(OrgPageGuard));

/** A page (GET `path`) of an organisation: every role reads (viewer or higher). */
export const OrgView = (path?: string) => applyDecorators(Get(path), OrgPage('viewer'));

/** A download of an organisation (GET `path`, never cached): its handler returns the file. */
export const OrgDownload = (path: string) =>
  applyDecorators(OrgView(path), Header('Cache-Control', 'no-store'));

/**
 * A form post of an organisation's page for `role` or higher; a refusal goes back to `page`
 * (`/org/:slug/<page>`, `:name`s filled from the route) with the message.
 */
export const OrgAction = (role: StaffRole, page: string) =>
  applyDecorators(OrgPage(role), Back(`/org/:slug/${page}`));

/** The handler's context, as OrgPageGuard left it: the OrgContext and the page's language. */
export const Org = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): ConsoleCtx =>
    ctx.switchToHttp().getRequest<{ [CONTEXT]: ConsoleCtx }>()[CONTEXT],
);

const orgPath = (path: string) => (path ? `org/:slug/${path}` : 'org/:slug');

/**
 * A controller of an organisation's pages under `/org/:slug/<path>`: documented with the admin
 * pages, public to the global guard (each handler's @OrgPage or @OrgAction decides), its
 * handlers' pages and redirects sent by the page interceptor and filter (@Pages).
 */
export const OrgPagesController = (path = '') =>
  applyDecorators(
    ApiTags('admin-pages'),
    Controller(orgPath(path)),
    ApiTenantSlug(),
    Public(),
    Pages(),
  );

/**
 * A controller of an organisation's downloads under `/org/:slug/<path>` (@OrgDownload handlers):
 * a file is sent as it is, and a refusal is still the page filter's page.
 */
export const OrgDownloadsController = (path = '') =>
  applyDecorators(
    ApiTags('admin-pages'),
    Controller(orgPath(path)),
    ApiTenantSlug(),
    Public(),
    UseFilters(PageFilter),
  );
