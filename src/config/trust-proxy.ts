import { isIP } from 'node:net';
import proxyaddr from 'proxy-addr';

/**
 * Express's `trust proxy` as this service takes it (`TRUST_PROXY`, docs/operations.md): whose
 * `X-Forwarded-For` may name the client, and so pick the address the per-IP rate limits count.
 *
 * - `false` (the default): nobody's. The client is the peer of the TCP connection; a client that
 *   sends `X-Forwarded-For` picks nothing. Right when the service is reached directly.
 * - a hop count `n` (1–32): the `n` proxies in front of the service, whatever their addresses;
 *   the client is the `n`-th address from the right of `X-Forwarded-For` (`0` is `false`).
 * - a comma-separated list of the proxies' addresses: `loopback`, `linklocal`, `uniquelocal`, IP
 *   addresses and CIDR blocks (`10.0.0.0/8`, `fd00::/8`); the client is the right-most address
 *   that is not one of them.
 *
 * `true` (trust every hop, so any client picks its address) is refused.
 */
export type TrustProxy = false | number | readonly string[];

const NAMED = new Set(['loopback', 'linklocal', 'uniquelocal']);
const MAX_HOPS = 32;

/** Why `value` is not a TRUST_PROXY setting, or undefined when it is one. */
export function trustProxyError(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  const text = value.trim();
  if (text === '' || text === 'false') return undefined;
  if (text === 'true') {
    return (
      'true would let every client choose its address with X-Forwarded-For; give the number ' +
      'of proxies in front of the service or their addresses'
    );
  }
  if (/^\d+$/.test(text)) {
    return Number(text) <= MAX_HOPS ? undefined : `a hop count must be 0–${MAX_HOPS}`;
  }
  const bad = text.split(',').find((entry) => !isProxyEntry(entry.trim()));
  if (bad === undefined) return undefined;
  return (
    `"${bad.trim()}" is not loopback, linklocal, uniquelocal, an IP address or a CIDR block; ` +
    'TRUST_PROXY is false, a hop count, or a comma-separated list of those'
  );
}

function isProxyEntry(entry: string): boolean {
  if (NAMED.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length || address.includes('%')) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** The setting of a valid TRUST_PROXY value (validated by `trustProxyError` first). */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const text = (value ?? '').trim();
  if (text === '' || text === 'false') return false;
  if (/^\d+$/.test(text)) return Number(text) === 0 ? false : Number(text);
  return Object.freeze(text.split(',').map((entry) => entry.trim()));
}

/** The value for Express's `app.set('trust proxy', …)`. */
export function expressTrustProxy(setting: TrustProxy): boolean | number | string[] {
  return typeof setting === 'object' ? [...setting] : setting;
}

/**
 * The setting as a function of a hop's address and its index from the right (`proxy-addr`'s
 * form), which decides whether that hop is trusted: what Express makes of `expressTrustProxy`'s
 * value (trust-proxy.spec.ts compares them). app.setup.ts hands Express this function
 * (`app.set('trust proxy', fn)`, a documented form) and the fast lanes call `proxy-addr` with it,
 * so both roads name the same client by construction.
 */
export function trustProxyFn(setting: TrustProxy): (address: string, hop: number) => boolean {
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  return proxyaddr.compile(setting === false ? [] : [...setting]);
}
