import { createHmac, timingSafeEqual } from 'node:crypto';

/** What an unsubscribe link names: the tenant, the member and the types it turns off. */
export interface UnsubscribeClaims {
  t: string;
  m: string;
  k: string[];
}

/**
 * The token of a one-click unsubscribe link (RFC 8058): `<base64url JSON>.<base64url HMAC>`,
 * keyed by a key derived from JWT_SECRET for this purpose only, so that the link works without a
 * session and a changed byte is refused. It does not expire: a link in an old mail still works.
 */
export function signUnsubscribe(claims: UnsubscribeClaims, secret: string): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${payload}.${mac(payload, secret)}`;
}

export function verifyUnsubscribe(token: unknown, secret: string): UnsubscribeClaims | undefined {
  if (typeof token !== 'string' || token.length > 2000) return undefined;
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return undefined;
  const expected = Buffer.from(mac(payload, secret));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  try {
    const claims = JSON.parse(
      Buffer.from(payload, 'base64url').toString('utf8'),
    ) as UnsubscribeClaims;
    if (typeof claims.t !== 'string' || typeof claims.m !== 'string' || !Array.isArray(claims.k))
      return undefined;
    return claims;
  } catch {
    return undefined;
  }
}

function mac(payload: string, secret: string): string {
  const key = createHmac('sha256', secret).update('partner-mail-unsubscribe').digest();
  return createHmac('sha256', key).update(payload).digest('base64url');
}
