import {
  applyDecorators,
  type ArgumentsHost,
  Catch,
  Controller,
  createParamDecorator,
  type ExceptionFilter,
  type ExecutionContext,
  Get,
  Header,
  Injectable,
  type PipeTransform,
  UseFilters,
} from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import {
  NoAdminSessionError,
  OtherTenantError,
  RoleTooLowError,
  StaleFormError,
  TenantNotFoundError,
} from '../access/access.errors';
import type { AuthenticatedRequest } from '../access/principal';
import { ApiTenantSlug, OrgSession } from '../common/access/access.decorators';
import { type Actor, roleAllows, type StaffRole } from '../common/access/actor';
import { PageSecurity } from '../common/http/page-security';
import { type ConsoleLang, consoleCtx } from './console-page';
import { Redirect } from '../common/pages/page';
import { PageFilter } from '../common/pages/page.filter';
import { Back, Pages } from '../common/pages/pages.decorator';
import { sendResult } from '../common/pages/send';
import type { TenantEntity } from '../tenants/tenant.entity';
import { notAllowedPage } from './org-page.views';

export { ADMIN_COOKIE } from '../access/credentials';

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
 * AccessService's refusals of an organisation's page (the `org-page` policy, which the global
 * AccessGuard applies: the session, its organisation, the role and a form's `_csrf`, with the
 * Admin API's roles, docs/security.md), answered as pages: no session is a redirect to the
 * sign-in page, another organisation or a lower role 403, an unknown slug (the platform admin)
 * 404, a post without the session's `_csrf` 403.
 */
@Catch(NoAdminSessionError, TenantNotFoundError, OtherTenantError, RoleTooLowError, StaleFormError)
export class OrgPageRefusals implements ExceptionFilter {
  catch(error: Error, host: ArgumentsHost): void {
    sendResult(host.switchToHttp().getResponse<Response>(), asPage(error));
  }
}

function asPage(error: Error) {
  if (error instanceof NoAdminSessionError) return new Redirect('/org/sign-in');
  if (error instanceof TenantNotFoundError) {
    return notAllowedPage(404, `No organisation "${error.slug}".`);
  }
  if (error instanceof OtherTenantError) {
    return notAllowedPage(403, 'Your token may not act on this organisation.');
  }
  if (error instanceof RoleTooLowError) {
    return notAllowedPage(403, `This needs the ${error.required} role or higher.`);
  }
  return notAllowedPage(403, 'The form has expired; reload the page and try again.');
}

/**
 * The handler's OrgContext, from the principal AccessGuard left on the request, in the console's
 * frame (the page's language: `?lang=`, the session's cookie or the tenant's locale).
 */
@Injectable()
export class OrgPageContext implements PipeTransform<Request & AuthenticatedRequest, ConsoleCtx> {
  constructor(private readonly security: PageSecurity) {}

  transform(req: Request & AuthenticatedRequest): ConsoleCtx {
    const { actor, tenant, csrf } = req;
    if (!actor || !tenant || csrf === undefined) {
      throw new Error('Org() used on a route that is not an organisation page');
    }
    const can = (r: StaffRole) =>
      actor.type === 'platform' || (actor.type === 'staff' && roleAllows(actor.role, r));
    const who = actor.type === 'staff' ? `${actor.name} · ${actor.role}` : 'platform admin';
    return consoleCtx({ actor, tenant, csrf, who, can }, req, this.security);
  }
}

/**
 * A page of an organisation for `role` or higher: the `org-page` policy, which AccessService
 * checks, and its refusals as pages (OrgPageRefusals).
 */
const OrgPage = (role: StaffRole) => applyDecorators(OrgSession(role), UseFilters(OrgPageRefusals));

/** A page (GET `path`) of an organisation: every role reads (viewer or higher). */
export const OrgView = (path?: string) => applyDecorators(Get(path), OrgPage('viewer'));

/**
 * A download of an organisation (GET `path`, never cached) for `role` or higher (every role by
 * default): its handler returns the file.
 */
export const OrgDownload = (path: string, role: StaffRole = 'viewer') =>
  applyDecorators(Get(path), OrgPage(role), Header('Cache-Control', 'no-store'));

/**
 * A form post of an organisation's page for `role` or higher; a refusal goes back to `page`
 * (`/org/:slug/<page>`, `:name`s filled from the route) with the message.
 */
export const OrgAction = (role: StaffRole, page: string) =>
  applyDecorators(OrgPage(role), Back(`/org/:slug/${page}`));

const OrgRequest = createParamDecorator((_: unknown, ctx: ExecutionContext) =>
  ctx.switchToHttp().getRequest<Request>(),
);

/** The handler's context (OrgPageContext): the OrgContext and the page's language. */
export const Org = () => OrgRequest(undefined, OrgPageContext);

const orgPath = (path: string) => (path ? `org/:slug/${path}` : 'org/:slug');

/**
 * A controller of an organisation's pages under `/org/:slug/<path>`: documented with the admin
 * pages, its handlers' pages and redirects sent by the page interceptor and filter (@Pages).
 * Each handler declares its role (@OrgView, @OrgAction): one that does not fails the start
 * (access/route-access.ts).
 */
export const OrgPagesController = (path = '') =>
  applyDecorators(ApiTags('admin-pages'), Controller(orgPath(path)), ApiTenantSlug(), Pages());

/**
 * A controller of an organisation's downloads under `/org/:slug/<path>` (@OrgDownload handlers):
 * a file is sent as it is, and a refusal is still the page filter's page.
 */
export const OrgDownloadsController = (path = '') =>
  applyDecorators(
    ApiTags('admin-pages'),
    Controller(orgPath(path)),
    ApiTenantSlug(),
    UseFilters(PageFilter),
  );
