import type { Response } from 'express';
import { randomBytes } from 'node:crypto';
import { render } from 'preact-render-to-string';
import { type PageResult, Redirect } from './page';

/**
 * A URL as `Location` carries it: Express's own encoder (res.location uses it), which leaves valid
 * percent escapes alone. The package has no types.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const encodeLocation = require('encodeurl') as (url: string) => string;

/**
 * The popup's page headers (docs/embedding.md): no framing, no caching, and a Content-Security-Policy that runs only
 * this response's nonce (plus, for the demo, scripts of the service's own origin).
 */
export function pageSecurityPolicy(nonce: string, scriptsFromSelf = false): string {
  const scripts = scriptsFromSelf ? `'self' 'nonce-${nonce}'` : `'nonce-${nonce}'`;
  return (
    `default-src 'none'; script-src ${scripts}; style-src 'nonce-${nonce}'; img-src 'self' data:; ` +
    `form-action 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'`
  );
}

/**
 * What `result` answers, as plain data: its status, headers in the order they are set (a
 * `Set-Cookie` per cookie), headers the answer must not carry, and the rendered document (JSX,
 * escaped by preact-render-to-string), or no body for a redirect. PageInterceptor and the fast
 * lanes both send this.
 */
export function pageAnswer(result: PageResult): {
  status: number;
  headers: [string, string][];
  omit: string[];
  body?: string;
} {
  const headers: [string, string][] = [];
  const { cookies, headers: own } = result.init;
  if (cookies) for (const cookie of cookies) headers.push(['Set-Cookie', cookie]);
  if (own) for (const name in own) headers.push([name, own[name]]);
  if (result instanceof Redirect) {
    // As Express's res.location() writes it.
    const { location } = result;
    headers.push(['Location', result.init.encoded ? location : encodeLocation(location)]);
    return { status: result.status, headers, omit: [] };
  }
  const nonce = randomBytes(16).toString('base64');
  headers.push(
    ['Content-Type', 'text/html; charset=utf-8'],
    ['Cache-Control', 'no-store'],
    ['X-Frame-Options', 'DENY'],
    ['Content-Security-Policy', pageSecurityPolicy(nonce, result.init.scriptsFromSelf)],
  );
  return {
    status: result.status,
    headers,
    omit: result.init.keepOpener ? ['Cross-Origin-Opener-Policy'] : [],
    body: `<!doctype html>\n${render(result.document(nonce))}`,
  };
}

/** Puts `result`'s status and headers on `res` and returns the body to send (none: redirect). */
export function prepareResult(res: Response, result: PageResult): string | undefined {
  const answer = pageAnswer(result);
  for (const [name, value] of answer.headers) {
    if (name === 'Set-Cookie') res.append(name, value);
    else res.setHeader(name, value);
  }
  for (const name of answer.omit) res.removeHeader(name);
  res.status(answer.status);
  return answer.body;
}

/** Sends `result` from middleware or a filter, where no handler returns it. */
export function sendResult(res: Response, result: PageResult): void {
  const body = prepareResult(res, result);
  if (body === undefined) res.end();
  else res.send(body);
}
