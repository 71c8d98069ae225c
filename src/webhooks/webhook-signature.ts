import { createHmac } from 'node:crypto';

/** The HMAC-SHA256 of the bytes of `parts` one after the other, keyed with the secret's UTF-8. */
function hmac(secret: string, parts: (string | Buffer)[]) {
  const h = createHmac('sha256', Buffer.from(secret, 'utf8'));
  for (const part of parts) h.update(part);
  return h;
}

/**
 * Lowercase hex HMAC-SHA256 of the bytes of `parts` one after the other, keyed with the secret
 * string's UTF-8 bytes .
 */
export function hmacHex(secret: string, ...parts: (string | Buffer)[]): string {
  return hmac(secret, parts).digest('hex');
}

/**
 * One Standard Webhooks symmetric signature (`v1,<base64 HMAC-SHA256>` over
 * `<webhook-id>.<webhook-timestamp>.<body>`). The key is the secret string's UTF-8 bytes, the same
 * key as the `X-Service-*` signatures (docs/webhooks.md, "Standard Webhooks"): the secrets are
 * `whsec_` + base64url, which Standard Webhooks libraries would otherwise base64-decode, so a
 * receiver passes the secret to them as raw bytes (`new Webhook(secret, { format: 'raw' })`).
 */
export function standardSignature(
  secret: string,
  id: string,
  timestamp: number,
  body: string | Buffer,
): string {
  return `v1,${hmac(secret, [`${id}.${timestamp}.`, body]).digest('base64')}`;
}

export interface SignedHeadersInput {
  /** The stored body: its UTF-8 bytes are what is signed and sent. */
  body: string | Buffer;
  eventId: string;
  eventType: string;
  attempt: number;
  secret: string;
  /** The secret before a rotation, while it still signs (24 h). */
  previousSecret?: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
}

/**
 * The request headers of one delivery attempt: the service's own (docs/webhooks.md) and,
 * beside them, the Standard Webhooks ones (https://www.standardwebhooks.com): `webhook-id` is the
 * event id (the same on every attempt: the receiver's idempotency key), `webhook-timestamp` the
 * attempt's unix seconds (= `X-Service-Timestamp`), `webhook-signature` the signature with the
 * current secret and, while the previous secret still signs, a second one with it, space-separated.
 */
export function deliveryHeaders(input: SignedHeadersInput): Record<string, string> {
  const { body, eventId, secret, previousSecret, timestamp } = input;
  let signatures = standardSignature(secret, eventId, timestamp, body);
  if (previousSecret) {
    signatures += ` ${standardSignature(previousSecret, eventId, timestamp, body)}`;
  }
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': 'referral-service-webhooks/1',
    'X-Service-Signature': hmacHex(secret, body),
    'X-Service-Event-Id': eventId,
    'X-Service-Event-Type': input.eventType,
    'X-Service-Delivery-Attempt': String(input.attempt),
    'X-Service-Timestamp': String(timestamp),
    'X-Service-Signature-Timestamped': hmacHex(secret, `${timestamp}.`, body),
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatures,
  };
  if (previousSecret) {
    headers['X-Service-Signature-Previous'] = hmacHex(previousSecret, body);
  }
  return headers;
}
