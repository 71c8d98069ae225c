import {
  type CanActivate,
  type ExecutionContext,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { Request, Response } from 'express';
import { AccessService } from './access.service';
import { credentialsOf } from './credentials';
import type { AuthenticatedRequest, Principal } from './principal';
import { routeMetadata } from '../common/http/route-metadata';
import { routeAccess } from './route-access';

/**
 * Registered globally; default deny. A route states its policy with `@Public()`, `@TenantKey()`,
 * `@Admin(role)`, `@EmbedOrigin()`, `@EmbedBearer()` or, on an organisation's page, `@OrgView()` /
 * `@OrgAction()` (the admin pages' session), and its limits with `@RateLimit()`; a route that
 * states no policy is refused. AccessService decides; the guard hands it the request's
 * credentials and leaves the principal on the request for `@CurrentTenant()`, `@CurrentActor()`,
 * `@CurrentMemberId()` and the pages' `@Org()`.
 */
@Injectable()
export class AccessGuard implements CanActivate, OnApplicationBootstrap {
  private readonly logger = new Logger(AccessGuard.name);

  constructor(
    private readonly access: AccessService,
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  /**
   * Reads every route's declarations at start-up: a route missing a required limit, or a page of
   * `/org` missing its policy (route-access.ts), fails here.
   */
  onApplicationBootstrap(): void {
    for (const { metatype, instance } of this.discovery.getControllers()) {
      if (!metatype || !instance) continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, object>;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name];
        if (routeMetadata('path', handler) === undefined) continue;
        const route = routeAccess(metatype as never, handler);
        if (!route.policy) {
          this.logger.error(`Route ${metatype.name}.${name} declares no access policy`);
        }
      }
    }
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const route = routeAccess(context.getClass(), context.getHandler());
    const http = context.switchToHttp();
    const req = http.getRequest<Request & AuthenticatedRequest>();
    if (!route.policy) {
      this.logger.error(`Route ${req.method} ${req.path} declares no access policy; refused`);
    }
    const principal = await this.access.authorize(route, credentialsOf(req));
    putOnRequest(req, principal);
    const res = http.getResponse<Response>();
    for (const [name, value] of Object.entries(principal.headers ?? {})) {
      if (name === 'Vary') res.vary(value);
      else res.setHeader(name, value);
    }
    return true;
  }
}

/** Where the route decorators (`@CurrentTenant()`…, the admin pages' `@Org()`) find the principal. */
export function putOnRequest(req: AuthenticatedRequest, principal: Principal): void {
  if (principal.tenant) req.tenant = principal.tenant;
  if (principal.actor) req.actor = principal.actor;
  if (principal.memberId) req.memberId = principal.memberId;
  if (principal.csrf !== undefined) req.csrf = principal.csrf;
}
