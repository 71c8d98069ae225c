/**
 * Reading the sign-in popup's pages over plain HTTP (test/e2e/sign-in-popup/popup.browser.e2e-spec.ts): docs/embedding.md's
 * headers and CSP nonce, and the message a result page posts (hidden fields: pages-http.ts).
 */
import type { Response } from 'supertest';

/** Asserts docs/embedding.md's headers of a popup page; returns the CSP nonce. */
export function expectPopupPage(res: Response, status = 200): string {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['cross-origin-opener-policy']).toBeUndefined();
  const directives = new Map<string, string[]>();
  for (const directive of String(res.headers['content-security-policy'] ?? '').split(';')) {
    const [name, ...values] = directive.trim().split(/\s+/);
    if (name) directives.set(name.toLowerCase(), values);
  }
  expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
  const scriptSrc = directives.get('script-src') ?? [];
  expect(scriptSrc).toHaveLength(1);
  const nonce = /^'nonce-([A-Za-z0-9+/_-]{16,}={0,2})'$/.exec(scriptSrc[0])?.[1];
  expect(nonce).toBeDefined();
  // Every script element that the browser would execute carries this response's nonce.
  for (const [tag] of res.text.matchAll(/<script\b[^>]*>/gi)) {
    if (/type="application\/json"/.test(tag)) continue;
    expect(tag).toContain(`nonce="${nonce}"`);
  }
  return nonce!;
}

/** The message a result page posts to its opener, and the origins it may post to. */
export function messageOf(html: string): { origins: string[]; message: Record<string, unknown> } {
  const json = /<script type="application\/json" id="data">([\s\S]*?)<\/script>/.exec(html)?.[1];
  expect(json).toBeDefined();
  return JSON.parse(json!);
}
