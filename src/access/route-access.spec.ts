import { Controller, Get, Post } from '@nestjs/common';
import {
  Admin,
  EmbedBearer,
  EmbedOrigin,
  OrgSession,
  Public,
  TenantKey,
} from '../common/access/access.decorators';
import { RateLimit, type RateLimitName } from './rate-limits';
import { routeAccess, type RouteAccess } from './route-access';

/** What a route must declare for the service to start (route-access.ts). */
function route(...decorators: MethodDecorator[]): RouteAccess {
  class Controller {
    handler() {}
  }
  const descriptor = Object.getOwnPropertyDescriptor(Controller.prototype, 'handler')!;
  for (const decorate of decorators) decorate(Controller.prototype, 'handler', descriptor);
  return routeAccess(Controller, Controller.prototype.handler);
}
const limited = (...names: RateLimitName[]) => RateLimit(...names) as MethodDecorator;

describe('route declarations at start-up', () => {
  it('a page of /org without its policy does not start; an organisation page needs its role', () => {
    const at = (
      base: string,
      path: string,
      ...decorators: (ClassDecorator & MethodDecorator)[]
    ) => {
      @Controller(base)
      class Pages {
        @Get(path)
        handler() {}
      }
      for (const decorate of decorators) {
        const descriptor = Object.getOwnPropertyDescriptor(Pages.prototype, 'handler')!;
        decorate(Pages.prototype, 'handler', descriptor);
      }
      return () => routeAccess(Pages, Pages.prototype.handler);
    };
    const role = /Pages\.handler: an organisation's page needs its role: @OrgView\(\)/;
    expect(at('org/:slug/things', '')).toThrow(role);
    expect(at('org/:slug', ':id', Public())).toThrow(role);
    expect(at('org/:slug', '', Admin('viewer'))).toThrow(role);
    expect(at('org', 'sign-in')).toThrow(/Pages\.handler: a page of \/org needs a policy/);
    expect(at('org/:slug/things', '', OrgSession('viewer'))().policy).toEqual({
      kind: 'org-page',
      role: 'viewer',
    });
    expect(at('org', 'sign-in', Public())().policy).toEqual({ kind: 'public' });
    expect(at('organisations', '')().policy).toBeUndefined();
  });

  // The partner portal's block (route-access.ts, "The partner portal").
  it('a page of the partner portal (/p/:slug) must be @Public(); the applications’ /join pages are not its', () => {
    const at = (path: string, ...decorators: MethodDecorator[]) => {
      @Controller('p/:slug')
      class Portal {
        @Get(path)
        handler() {}
      }
      for (const decorate of decorators) {
        const descriptor = Object.getOwnPropertyDescriptor(Portal.prototype, 'handler')!;
        decorate(Portal.prototype, 'handler', descriptor);
      }
      return () => routeAccess(Portal, Portal.prototype.handler);
    };
    const rule = /Portal\.handler: a page of the partner portal \(\/p\/:slug\) must be @Public\(\)/;
    expect(at('')).toThrow(rule);
    expect(at('links')).toThrow(rule);
    expect(at('links', Admin('viewer'))).toThrow(rule);
    expect(at('links', Public())().policy).toEqual({ kind: 'public' });
    expect(at('', Public())().policy).toEqual({ kind: 'public' });
    // The join pages answer to their own rule (below), not the portal's.
    expect(at('join')).toThrow(/Portal\.handler: a join page is for anyone: @Public\(\)/);
    expect(at('join/:group', Public())().policy).toEqual({ kind: 'public' });
  });

  it('a Federation or Embed route without its rate limit (README "Configuration") does not start', () => {
    expect(() => route(TenantKey())).toThrow(/needs @RateLimit\('federation'\)/);
    expect(() => route(EmbedOrigin())).toThrow(/needs @RateLimit\('embed'\)/);
    expect(() => route(EmbedBearer(), limited('lead_form'))).toThrow(/needs @RateLimit\('embed'\)/);
  });

  it('a join page (/p/:slug/join…) is public, and its post counts the application limit', () => {
    const at = (method: 'get' | 'post', ...decorators: MethodDecorator[]) => {
      const Verb = method === 'get' ? Get : Post;
      @Controller('p/:slug/join')
      class Join {
        @Verb(':group')
        handler() {}
      }
      const descriptor = Object.getOwnPropertyDescriptor(Join.prototype, 'handler')!;
      for (const decorate of decorators) decorate(Join.prototype, 'handler', descriptor);
      return () => routeAccess(Join, Join.prototype.handler);
    };
    expect(at('get')).toThrow(/Join\.handler: a join page is for anyone: @Public\(\)/);
    expect(at('get', Admin('viewer'))).toThrow(/a join page is for anyone/);
    expect(at('post', Public())).toThrow(/needs @RateLimit\('application_form'\)/);
    expect(at('get', Public())().policy).toEqual({ kind: 'public' });
    expect(at('post', Public(), limited('application_form'))().limits).toEqual([
      'application_form',
    ]);
  });
});
