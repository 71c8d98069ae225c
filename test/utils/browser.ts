import { mkdirSync } from 'node:fs';
import http from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

/**
 * Headless Chromium for browser end-to-end tests: the Debian package's binary (never a downloaded
 * browser build), with the background traffic that Chromium would start on its own switched off.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/** A free TCP port on loopback (the OS picks it; released before it is returned). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolvePort(port));
    });
  });
}

export const SCREENSHOT_DIR = resolve(__dirname, '..', '..', 'test-output', 'screenshots');

/** A full-page PNG in test-output/screenshots/ (git-ignored); returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name.replace(/[^A-Za-z0-9_.-]+/g, '-')}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** What an opener page recorded, read by the test through `page.evaluate`. */
export interface OpenerState<T = Record<string, unknown>> {
  /** Messages from the service's origin whose `state` is the opener's own. */
  messages: T[];
  /** Every `message` event the page saw, whatever its origin or data. */
  all: { origin: string; data: unknown }[];
  pwned: unknown;
}

/**
 * A partner's page that opens the service's sign-in popup, as a tenant's site would. Served by
 * node:http on its own loopback port, so it has its own origin (`origin`). The page takes its
 * settings from its query (`base`, `client_id`, `state`) and never writes them into the document.
 * Its `#open` button calls `window.open(<base>/oauth/authorize?…&popup=1, 'popup', …)`; a
 * `message` listener keeps what comes from the service origin with the same `state` in
 * `window.__messages`, and everything it sees in `window.__allMessages`.
 */
export interface OpenerServer {
  origin: string;
  /** The opener page's URL for a service at `base`, tenant `clientId` and `state`. */
  pageUrl: (base: string, clientId: string, state: string) => string;
  /** How many times the opener page was served. */
  hits: () => number;
  close: () => Promise<void>;
}

const OPENER_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Partner site</title></head>
<body>
<h1>Partner site</h1>
<button id="open" type="button">Sign in with the referral service</button>
<pre id="log"></pre>
<script>
(function () {
  var query = new URLSearchParams(location.search);
  var base = query.get('base');
  var clientId = query.get('client_id');
  var state = query.get('state');
  var serviceOrigin = new URL(base).origin;
  window.__messages = [];
  window.__allMessages = [];
  window.addEventListener('message', function (event) {
    window.__allMessages.push({ origin: event.origin, data: event.data });
    if (event.origin !== serviceOrigin) return;
    if (!event.data || event.data.state !== state) return;
    window.__messages.push(event.data);
    document.getElementById('log').textContent += String(event.data.type) + '\\n';
  });
  document.getElementById('open').addEventListener('click', function () {
    var params = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      scope: 'profile:read',
      state: state,
      popup: '1',
    });
    window.__popup = window.open(base + '/oauth/authorize?' + params.toString(), 'popup',
      'width=480,height=640');
  });
})();
</script>
</body></html>`;

export async function startOpenerServer(): Promise<OpenerServer> {
  let hits = 0;
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || !(req.url ?? '/').startsWith('/opener')) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    hits++;
    res
      .writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' })
      .end(OPENER_PAGE);
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolveListen());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    pageUrl: (base, clientId, state) =>
      `${origin}/opener?${new URLSearchParams({ base, client_id: clientId, state }).toString()}`,
    hits: () => hits,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}

/** Reads what an opener page (or any page) recorded. */
export function openerState<T = Record<string, unknown>>(page: Page): Promise<OpenerState<T>> {
  return page.evaluate(() => {
    const w = globalThis as unknown as {
      __messages?: unknown[];
      __allMessages?: unknown[];
      __pwned?: unknown;
    };
    return {
      messages: (w.__messages ?? []) as T[],
      all: (w.__allMessages ?? []) as { origin: string; data: unknown }[],
      pwned: w.__pwned,
    };
  });
}
