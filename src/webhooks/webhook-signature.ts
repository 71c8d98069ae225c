import { createHmac, randomBytes } from 'node:crypto';

/** Standard Webhooks (https://www.standardwebhooks.com) secrets: `whsec_` + base64 of the key. */
const PREFIX = 'whsec_';
/** The key sizes the Standard Webhooks specification allows, in bytes. */
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
/** Padded standard base64: what the Standard Webhooks libraries decode. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A new endpoint secret: `whsec_` + base64 of 32 random bytes, the Standard Webhooks form, so
 * its libraries take it as it is (`new Webhook(secret)`). docs/webhooks.md, "The secret".
 */
export function newWebhookSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

/**
 * True for a Standard Webhooks secret: `whsec_` + the canonical padded base64 of 24 to 64 bytes.
 * Secrets issued before those (`whsec_` + 43 characters of base64url, from 32 bytes) never are:
 * 43 characters are never a whole number of padded base64 quads.
 */
export function isStandardSecret(secret: string): boolean {
  if (!secret.startsWith(PREFIX)) return false;
  const encoded = secret.slice(PREFIX.length);
  if (!BASE64.test(encoded)) return false;
  const key = Buffer.from(encoded, 'base64');
  return (
    key.length >= MIN_KEY_BYTES && key.length <= MAX_KEY_BYTES && key.toString('base64') === encoded
  );
}

/**
 * The key of the Standard Webhooks signature (`webhook-signature`): the decoded bytes of a
 * Standard Webhooks secret; for a secret issued before those (a legacy secret), its UTF-8 bytes,
 * as it was always signed, so receivers holding it keep verifying. That legacy key is also what
 * the Standard Webhooks form `standardFormOf(secret)` decodes to.
 */
export function standardKey(secret: string): Buffer {
  return isStandardSecret(secret)
    ? Buffer.from(secret.slice(PREFIX.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

/**
 * The secret as Standard Webhooks libraries take it by default: a Standard Webhooks secret as it
 * is; a legacy secret S as `whsec_` + base64(UTF-8 of S), which those libraries decode back to
 * the very key `webhook-signature` has always been signed with. (The `X-Service-*` signatures
 * stay keyed with S itself.)
 */
export function standardFormOf(secret: string): string {
  return isStandardSecret(secret)
    ? secret
    : `${PREFIX}${Buffer.from(secret, 'utf8').toString('base64')}`;
}

/** The HMAC-SHA256 of the bytes of `parts` one after the other, keyed with `key`. */
function hmac(key: Buffer, parts: (string | Buffer)[]) {
  const h = createHmac('sha256', key);
  for (const part of parts) h.update(part);
  return h;
}

/**
 * Lowercase hex HMAC-SHA256 of the bytes of `parts` one after the other, keyed with the secret
 * string's UTF-8 bytes (the whole string, `whsec_` included): the `X-Service-*` signatures, as
 * the interface specification defines them ("keyed with the webhook secret").
 */
export function hmacHex(secret: string, ...parts: (string | Buffer)[]): string {
  return hmac(Buffer.from(secret, 'utf8'), parts).digest('hex');
}

/**
 * One Standard Webhooks symmetric signature (`v1,<base64 HMAC-SHA256>` over
 * `<webhook-id>.<webhook-timestamp>.<body>`), keyed with `standardKey(secret)`: the decoded key
 * bytes of a Standard Webhooks secret, so its libraries verify with the secret as it is
 * (`new Webhook(secret)`); a legacy secret's UTF-8 bytes, as before (docs/webhooks.md).
 */
export function standardSignature(
  secret: string,
  id: string,
  timestamp: number,
  body: string | Buffer,
): string {
  return `v1,${hmac(standardKey(secret), [`${id}.${timestamp}.`, body]).digest('base64')}`;
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
