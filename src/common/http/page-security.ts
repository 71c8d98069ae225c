import { Injectable, type NestMiddleware } from '@nestjs/common';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { NextFunction, Request, Response } from 'express';
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import typeis from 'type-is';
import { AppConfig } from '../../config/app-config';
import { errorPage, isPopupRequest } from '../pages/error-page';
import { sendResult } from '../pages/send';

/**
 * What the HTML pages that sign people in (the admin pages under `/org`, the sign-in popup under
 * `/oauth`) share against forged posts and stolen sessions (docs/security.md):
 *
 * - every cookie they set is `HttpOnly`, `SameSite=Lax`, `Secure` when `PUBLIC_BASE_URL` is https,
 *   and scoped to its area's path (`cookieToSet`);
 * - tokens are compared in constant time (`sameSecret`);
 * - a sign-in form carries a pre-session token bound to a cookie set when the form is shown
 *   (double submit, `loginForm` / `checkLogin`): a page elsewhere cannot sign a browser in to
 *   the attacker's account (login CSRF);
 * - `PageFormGuard` refuses every post that is not a plain form (415) or that comes from a page of
 *   another origin (403), before any handler runs.
 */

/** The areas with their own cookies: the admin pages, the sign-in popup and the partner pages. */
export type PageArea = '/org' | '/oauth' | '/p';

const LOGIN_COOKIE: Record<PageArea, string> = {
  '/org': 'svc_admin_login',
  '/oauth': 'svc_login',
  // The partner pages' forms before any session (the join form, docs/partners.md).
  '/p': 'svc_partner_login',
};
/** How long a sign-in form stays usable without a reload. */
export const LOGIN_FORM_TTL_MS = 60 * 60 * 1000;
const FORM_TYPE = 'application/x-www-form-urlencoded';
const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;

/** Whether `given` is exactly `expected`, compared in constant time. */
export function sameSecret(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A field of a parsed form body (undefined when there is no such string field, or no body). */
export function formField(req: Request, name: string): string | undefined {
  const body: unknown = req.body;
  if (!body || typeof body !== 'object') return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

@Injectable()
export class PageSecurity {
  /** The service's own origin (of `PUBLIC_BASE_URL`): the only one its forms are posted from. */
  readonly ownOrigin: string;
  private readonly secure: boolean;
  private readonly loginKey: Buffer;

  constructor(config: AppConfig) {
    const url = new URL(config.publicBaseUrl);
    this.ownOrigin = url.origin;
    this.secure = url.protocol === 'https:';
    // A key of its own, derived from JWT_SECRET, so no new secret has to be configured.
    this.loginKey = Buffer.from(
      hkdfSync('sha256', config.jwtSecret, 'referral-service', 'login-csrf v1', 32),
    );
  }

  cookie(req: Request, name: string): string | undefined {
    return parseCookies(req.headers.cookie ?? '')[name];
  }

  /**
   * A `Set-Cookie` value for `name`, as every cookie of the pages is set (a page or redirect
   * carries it: `HtmlPage.withCookies`, `Redirect.withCookies`).
   */
  cookieToSet(name: string, value: string, area: PageArea, maxAgeMs: number): string {
    return serializeCookie(name, value, {
      httpOnly: true,
      sameSite: 'lax',
      secure: this.secure,
      path: area,
      maxAge: Math.floor(maxAgeMs / 1000),
    });
  }

  /** A `Set-Cookie` value that clears `name`. */
  cookieToClear(name: string, area: PageArea): string {
    return this.cookieToSet(name, '', area, 0);
  }

  /**
   * What a sign-in form of `area` needs: its hidden `_csrf` value, an HMAC of this browser's
   * pre-session cookie, and that cookie to set (a new one when missing, else the same value with
   * its lifetime renewed). Reusing a present cookie keeps two open sign-in forms of one browser
   * both usable.
   */
  loginForm(req: Request, area: PageArea): { csrf: string; cookie: string } {
    const current = this.cookie(req, LOGIN_COOKIE[area]);
    const value =
      current && COOKIE_VALUE.test(current) ? current : randomBytes(32).toString('base64url');
    return {
      csrf: this.mac(area, value),
      cookie: this.cookieToSet(LOGIN_COOKIE[area], value, area, LOGIN_FORM_TTL_MS),
    };
  }

  /**
   * The posted sign-in form's `_csrf` if it matches this browser's pre-session cookie, else
   * undefined. A page on another site cannot read the form, and the browser does not send the
   * cookie with its cross-site post (SameSite=Lax); a page of the same site cannot read it either,
   * and PageFormGuard refuses its Origin.
   */
  checkLogin(req: Request, area: PageArea): string | undefined {
    const value = this.cookie(req, LOGIN_COOKIE[area]);
    if (!value || !COOKIE_VALUE.test(value)) return undefined;
    const expected = this.mac(area, value);
    return sameSecret(formField(req, '_csrf'), expected) ? expected : undefined;
  }

  private mac(area: PageArea, value: string): string {
    return createHmac('sha256', this.loginKey).update(`${area}\n${value}`).digest('base64url');
  }
}

/**
 * Module middleware of the pages' controllers. It sends `Referrer-Policy: same-origin` with every
 * answer (the service's own forms then post with their real `Origin`, where helmet's
 * `no-referrer` makes the browser send `Origin: null`), and refuses a POST (any method but GET
 * and HEAD) before its handler runs when its `Content-Type` is not a URL-encoded form (415; a
 * page's own form always is one, even when empty) or its `Origin`, when present, is not the
 * service's own (403). Both answers are HTML pages that keep `window.opener` in the popup.
 */
@Injectable()
export class PageFormGuard implements NestMiddleware {
  constructor(private readonly security: PageSecurity) {}

  use(req: Request, res: Response, next: NextFunction): void {
    res.setHeader('Referrer-Policy', 'same-origin');
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    if (!typeis.is(req.headers['content-type'] ?? '', [FORM_TYPE])) {
      return refuse(req, res, 415, 'This form could not be sent', [
        'This page only takes forms sent by its own pages. Go back, reload the page and try again.',
      ]);
    }
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== this.security.ownOrigin) {
      return refuse(req, res, 403, 'This form was sent from another site', [
        `Forms of this service are only taken from its own pages at ${this.security.ownOrigin}.`,
        'If you did not mean to send anything, close this page: nothing was changed.',
      ]);
    }
    next();
  }
}

function refuse(req: Request, res: Response, status: number, title: string, lines: string[]) {
  sendResult(res, errorPage({ status, title, lines, keepOpener: isPopupRequest(req) }));
}
