/**
 * Where the script runs: its own `<script>` tag and the service's address, read while the script
 * is being evaluated (`document.currentScript` is null afterwards), and the console channel to
 * the tenant's developer.
 */

const tag =
  document.currentScript || document.querySelector('script[data-tenant][src*="/embed/v1/widget"]');

/** The tag that loaded this script; null when none is found (then nothing starts). */
export const script = tag instanceof HTMLScriptElement && tag.src ? tag : null;

const src = script ? new URL(script.src, location.href) : null;

/** The service's origin: the only origin whose popup messages are heard. */
export const ORIGIN = src ? src.origin : '';

/** The service's address: the script's URL without `/embed/v1/widget….js`. */
export const BASE = src ? src.origin + src.pathname.replace(/\/embed\/v1\/[^/]*$/, '') : '';

const told = new Set<string>();

/** Says something to the tenant's developer in the console, once per page and message. */
export function tell(level: 'error' | 'warn', message: string): void {
  if (told.has(message)) return;
  told.add(message);
  console[level](`[service widget] ${message}`);
}
