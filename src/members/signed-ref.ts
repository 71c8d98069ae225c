import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';

export interface RefClaims {
  /** Tenant id. */
  t: string;
  /** The referrer's service user id. */
  r: string;
  /** The deeplink id. */
  d: string;
  /** The click time (epoch ms), in refs `/s/:code` appends; absent in a link's own `signed_ref`. */
  c?: number;
}

/**
 * `signed_ref` (docs/embedding.md §4): `<base64url payload>.<base64url HMAC-SHA256>` under
 * REF_SIGNING_SECRET, naming the tenant, the referrer and the deeplink. Deterministic, so a reused
 * link carries the same ref. Both halves are base64url and the separator a dot: a ref needs no
 * escaping in a URL.
 */
export function signRef(claims: RefClaims, secret: string): string {
  return claims.c ? clickRefSigner(claims, secret)(claims.c) : signed(linkJson(claims), secret);
}

/**
 * Signs one link's ref stamped with each click's time (`/s/:code`): the link's claims are turned
 * into JSON once, the click time appended per click. The payload is the same bytes `signRef`
 * makes (`{"t":…,"r":…,"d":…,"c":…}`).
 */
export function clickRefSigner(
  claims: Omit<RefClaims, 'c'>,
  secret: string,
): (clickedAt: number) => string {
  const head = `${linkJson(claims).slice(0, -1)},"c":`;
  return (clickedAt) => signed(`${head}${clickedAt}}`, secret);
}

function linkJson({ t, r, d }: Omit<RefClaims, 'c'>): string {
  return JSON.stringify({ t, r, d });
}

function signed(json: string, secret: string): string {
  const payload = Buffer.from(json).toString('base64url');
  return `${payload}.${mac(payload, secret)}`;
}

/**
 * Whether a click-stamped ref is older than the tenant's attribution window (docs/fraud.md); a
 * ref without a click time never expires.
 */
export function isRefExpired(claims: RefClaims, windowDays: number, now = Date.now()): boolean {
  return claims.c !== undefined && now - claims.c > windowDays * 86_400_000;
}

/** The claims of a ref signed with `secret` for `tenantId`; undefined for anything else. */
export function verifyRef(ref: string, secret: string, tenantId: string): RefClaims | undefined {
  const [payload, signature, extra] = ref.split('.');
  if (!payload || !signature || extra !== undefined) return undefined;
  const expected = Buffer.from(mac(payload, secret));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  try {
    const claims = JSON.parse(
      Buffer.from(payload, 'base64url').toString('utf8'),
    ) as Partial<RefClaims>;
    if (
      typeof claims.t !== 'string' ||
      typeof claims.r !== 'string' ||
      typeof claims.d !== 'string' ||
      (claims.c !== undefined && !Number.isSafeInteger(claims.c))
    ) {
      return undefined;
    }
    return claims.t === tenantId ? (claims as RefClaims) : undefined;
  } catch {
    return undefined;
  }
}

/** The HMAC key of each secret, made once: a click signs a ref, and key set-up is half its cost. */
const keys = new Map<string, KeyObject>();

function mac(payload: string, secret: string): string {
  let key = keys.get(secret);
  if (!key) keys.set(secret, (key = createSecretKey(Buffer.from(secret, 'utf8'))));
  return createHmac('sha256', key).update(payload).digest('base64url');
}
