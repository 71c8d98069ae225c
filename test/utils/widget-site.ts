import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { SCREENSHOT_DIR } from './browser';

/** What a tenant's page embeds: the snippet of README.md with these settings. */
export interface WidgetPageSpec {
  /** The service's base URL (where widget.js and the APIs live). */
  base: string;
  tenant: string;
  /** `data-user-id` of every widget that takes one. */
  userId?: string;
  widgets: string[];
  locale?: 'ru' | 'en';
  pageSize?: number;
  /** Extra attributes per widget name, e.g. `{ 'referral-link': { 'data-target-type': 'offer' } }`. */
  attributes?: Record<string, Record<string, string>>;
  /** Load the versioned URL with Subresource Integrity instead of widget.js. */
  pinned?: { src: string; integrity: string };
}

/**
 * A tenant's own site for the widget tests: a node:http server on its own loopback port (its own
 * origin) serving `/page?spec=<base64url JSON WidgetPageSpec>`. The page carries aggressive global
 * CSS of its own, as real sites do, and themes the widgets through `--sw-accent`.
 */
export interface WidgetSite {
  origin: string;
  pageUrl: (spec: WidgetPageSpec) => string;
  close: () => Promise<void>;
}

/** The host page's colour for the widgets' accent (`--sw-accent`). */
export const SITE_ACCENT = 'rgb(190, 18, 60)';

/** Styles that would wreck any widget they reached: the shadow DOM must keep them out. */
export const HOSTILE_CSS = `
  * { font-family: "Comic Sans MS", cursive !important; color: rgb(255, 0, 0) !important;
      letter-spacing: 3px !important; text-transform: uppercase !important; }
  button { display: none !important; }
  ul, li, p, h2 { margin: 40px !important; padding: 0 !important; list-style: disc !important; }
  [data-service-widget] { --sw-accent: ${SITE_ACCENT}; }
`;

const escape = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

function render(spec: WidgetPageSpec): string {
  const attrs = (values: Record<string, string | undefined>) =>
    Object.entries(values)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => ` ${k}="${escape(v!)}"`)
      .join('');
  const widgets = spec.widgets
    .map(
      (name) =>
        `<div${attrs({
          'data-service-widget': name,
          'data-user-id': spec.userId,
          'data-page-size': spec.pageSize === undefined ? undefined : String(spec.pageSize),
          ...spec.attributes?.[name],
        })}></div>`,
    )
    .join('\n');
  const script = spec.pinned
    ? attrs({
        src: spec.pinned.src,
        integrity: spec.pinned.integrity,
        crossorigin: 'anonymous',
      })
    : attrs({ src: `${spec.base}/embed/v1/widget.js` });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Partner site</title><link rel="icon" href="data:,">
<style>${HOSTILE_CSS}</style></head>
<body><h1>Partner site</h1>
${widgets}
<script${script}${attrs({ 'data-tenant': spec.tenant, 'data-locale': spec.locale })} defer></script>
</body></html>`;
}

export async function startWidgetSite(): Promise<WidgetSite> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    const encoded = url.searchParams.get('spec');
    if (req.method !== 'GET' || url.pathname !== '/page' || !encoded) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    const spec = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as WidgetPageSpec;
    res
      .writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' })
      .end(render(spec));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    pageUrl: (spec) =>
      `${origin}/page?spec=${Buffer.from(JSON.stringify(spec)).toString('base64url')}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A PNG of one widget in test-output/screenshots/ (git-ignored); returns its path. */
export async function widgetScreenshot(widget: Locator, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `widget-${name.replace(/[^A-Za-z0-9_.-]+/g, '-')}.png`);
  await widget.screenshot({ path });
  return path;
}
