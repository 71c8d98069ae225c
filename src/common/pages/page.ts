import type { VNode } from 'preact';

/**
 * What a page handler returns (docs/architecture.md, "Pages"): an HTML page or a redirect, never
 * a write to the response. `PageInterceptor` sends it; middleware that answers before any handler
 * (the form guard, the request-target rules) sends the same objects with `sendResult`.
 */

export interface PageInit {
  /** The answer's status (200 unless said). */
  status?: number;
  /** Popup pages keep `window.opener`: no Cross-Origin-Opener-Policy (docs/embedding.md §4). */
  keepOpener?: boolean;
  /** Also allow scripts from the service's own origin (the demo page loads widget.js). */
  scriptsFromSelf?: boolean;
  /** `Set-Cookie` values, built by PageSecurity. */
  cookies?: readonly string[];
  /** Extra response headers (e.g. `Retry-After`). */
  headers?: Readonly<Record<string, string>>;
}

/** A whole HTML document; `document` is given this response's CSP nonce. */
export class HtmlPage {
  readonly kind = 'html';

  constructor(
    readonly document: (nonce: string) => VNode,
    readonly init: PageInit = {},
  ) {}

  get status(): number {
    return this.init.status ?? 200;
  }

  /** The same page, also setting these cookies. */
  withCookies(...cookies: string[]): HtmlPage {
    return new HtmlPage(this.document, {
      ...this.init,
      cookies: [...(this.init.cookies ?? []), ...cookies],
    });
  }
}

/** A redirect (`303` after a form post, `302` for a short link). */
export class Redirect {
  readonly kind = 'redirect';

  constructor(
    readonly location: string,
    readonly status: 302 | 303 = 303,
    readonly init: Pick<PageInit, 'cookies' | 'headers'> & {
      /** `location` is already as `Location` carries it (`encodeLocation`), not to be encoded again. */
      encoded?: boolean;
    } = {},
  ) {}

  /** The same redirect, also setting these cookies. */
  withCookies(...cookies: string[]): Redirect {
    return new Redirect(this.location, this.status, {
      ...this.init,
      cookies: [...(this.init.cookies ?? []), ...cookies],
    });
  }
}

export type PageResult = HtmlPage | Redirect;

export const BACK_METADATA = 'pages:back';
/** Where PageInterceptor notes a form post's way back on the request (see `@Back()`). */
export const PAGE_BACK = Symbol('pageBack');

/** The page a form post goes back to, from the route's parameters. */
export type BackTarget = (params: Record<string, string>) => string;

export function isPageResult(value: unknown): value is PageResult {
  return value instanceof HtmlPage || value instanceof Redirect;
}

/**
 * The longest query value a page's redirect carries. Redirects echo what a form sent (the filters
 * to keep, a refusal naming the value); a longer value, which no form of the console sends, is cut
 * so that the `Location` stays far below what HTTP clients accept in a header (16 KB in Node).
 */
export const QUERY_VALUE_MAX = 1_000;

/** A path with a query built from `params` (empty values left out, long ones cut). */
export function withQuery(path: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams(
    Object.entries(params)
      .filter((kv): kv is [string, string] => !!kv[1])
      .map(([name, value]) => [
        name,
        value.length > QUERY_VALUE_MAX ? `${value.slice(0, QUERY_VALUE_MAX - 1)}…` : value,
      ]),
  );
  return query.size ? `${path}?${query.toString()}` : path;
}

/**
 * Thrown where returning is not possible (a guard, a pipe): answered with its page or redirect as
 * it is, by PageFilter.
 */
export class PageException extends Error {
  constructor(readonly result: PageResult) {
    super(result instanceof Redirect ? `redirect to ${result.location}` : 'page');
  }
}
