import type { Response } from 'express';
import { randomBytes } from 'node:crypto';

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * JSON safe inside `<script type="application/json">`: `<`, `>`, `&` and the JS line separators
 * are escaped, so a value such as `</script><script>alert(1)` cannot end the element.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export interface PageOptions {
  title: string;
  body: string;
  status?: number;
  /** Script source run with the page's nonce (no other script runs). */
  script?: string;
  /** JSON data for the script, in `<script type="application/json" id="data">`. */
  data?: unknown;
  /** Popup pages must keep `window.opener`: no Cross-Origin-Opener-Policy. */
  keepOpener?: boolean;
  /** Admin pages: a wide layout with tables (still usable on a phone). */
  wide?: boolean;
}

const STYLE = `
  body { font-family: system-ui, sans-serif; margin: 0; padding: 24px; color: #1d2330; background: #f6f7fb; }
  main { max-width: 420px; margin: 0 auto; background: #fff; border-radius: 12px; padding: 24px;
         box-shadow: 0 1px 3px rgba(0,0,0,.08); }
  h1 { font-size: 20px; margin: 0 0 16px; }
  label { display: block; margin: 12px 0 4px; font-size: 14px; }
  input { width: 100%; box-sizing: border-box; padding: 10px; font-size: 16px; border: 1px solid #c8cdd8; border-radius: 8px; }
  button { margin-top: 16px; padding: 10px 16px; font-size: 16px; border-radius: 8px; border: 0; cursor: pointer; }
  button[data-action=submit], button[data-action=allow] { background: #2f5bea; color: #fff; }
  button[data-action=deny] { background: #e9ebf1; color: #1d2330; margin-left: 8px; }
  .muted { color: #667085; font-size: 14px; }
  .error { color: #b42318; }
    .promo { font-family: monospace; font-size: 18px; padding: 8px 12px; background: #eef2ff; border-radius: 6px; }
    main.wide { max-width: 1040px; }
  h1, .notice, .error { overflow-wrap: anywhere; } input[type=checkbox] { width: auto; }
  nav { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; margin-bottom: 16px; }
  nav form { margin-left: auto; } nav button { margin: 0; padding: 6px 12px; font-size: 14px; }
  .table { overflow-x: auto; } table { border-collapse: collapse; width: 100%; font-size: 14px; }
  th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid #e4e7ec; vertical-align: top; }
  td form { display: inline; } td button, td input { margin: 0; padding: 4px 8px; font-size: 13px; width: auto; }
  .notice { background: #ecfdf3; padding: 8px 12px; border-radius: 8px; }
  .secret { font-family: monospace; word-break: break-all; background: #fffaeb; padding: 8px 12px; border-radius: 8px; }
  tr.dead td { background: #fef3f2; } .badge { font-size: 12px; padding: 2px 6px; border-radius: 4px; background: #e9ebf1; }
  textarea { width: 100%; box-sizing: border-box; min-height: 72px; font: inherit; }
  .filters { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; } .filters label { margin: 0; }
  .filters input, .filters select { width: auto; }
`;

/**
 * Sends a service page (popup, landing, errors) with SPEC 5's headers: no framing, no caching,
 * and a Content-Security-Policy that allows only this response's nonce for scripts and styles.
 */
export function sendPage(res: Response, options: PageOptions): void {
  const nonce = randomBytes(16).toString('base64');
  res.status(options.status ?? 200);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src 'self' data:; ` +
      `form-action 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'`,
  );
  if (options.keepOpener) res.removeHeader('Cross-Origin-Opener-Policy');
  const data =
    options.data === undefined
      ? ''
      : `<script type="application/json" id="data">${jsonForScript(options.data)}</script>`;
  const script = options.script ? `<script nonce="${nonce}">${options.script}</script>` : '';
  res.send(`<!doctype html>
<html lang="ru"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)}</title><style nonce="${nonce}">${STYLE}</style></head>
<body><main${options.wide ? ' class="wide"' : ''}>${options.body}</main>${data}${script}</body></html>`);
}
