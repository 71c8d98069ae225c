import type { Response } from 'express';
import { randomBytes } from 'node:crypto';
import { render } from 'preact-render-to-string';
import { type PageResult, Redirect } from './page';

/**
 * SPEC 5's page headers: no framing, no caching, and a Content-Security-Policy that runs only
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
 * Puts `result`'s status and headers on `res` and returns the body to send: the rendered
 * document (JSX, escaped by preact-render-to-string), or nothing for a redirect.
 */
export function prepareResult(res: Response, result: PageResult): string | undefined {
  for (const cookie of result.init.cookies ?? []) res.append('Set-Cookie', cookie);
  for (const [name, value] of Object.entries(result.init.headers ?? {})) {
    res.setHeader(name, value);
  }
  res.status(result.status);
  if (result instanceof Redirect) {
    res.location(result.location);
    return undefined;
  }
  const nonce = randomBytes(16).toString('base64');
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Content-Security-Policy', pageSecurityPolicy(nonce, result.init.scriptsFromSelf));
  if (result.init.keepOpener) res.removeHeader('Cross-Origin-Opener-Policy');
  return `<!doctype html>\n${render(result.document(nonce))}`;
}

/** Sends `result` from middleware or a filter, where no handler returns it. */
export function sendResult(res: Response, result: PageResult): void {
  const body = prepareResult(res, result);
  if (body === undefined) res.end();
  else res.send(body);
}
