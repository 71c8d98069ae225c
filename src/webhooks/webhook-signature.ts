import { createHmac } from 'node:crypto';

/**
 * Lowercase hex HMAC-SHA256 of the bytes of `parts` one after the other, keyed with the secret
 * string's UTF-8 bytes (seed 5).
 */
export function hmacHex(secret: string, ...parts: (string | Buffer)[]): string {
  const hmac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  for (const part of parts) hmac.update(part);
  return hmac.digest('hex');
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

/** The request headers of one delivery attempt (seed 5 and SPEC 6). */
export function deliveryHeaders(input: SignedHeadersInput): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': 'referral-service-webhooks/1',
    'X-Service-Signature': hmacHex(input.secret, input.body),
    'X-Service-Event-Id': input.eventId,
    'X-Service-Event-Type': input.eventType,
    'X-Service-Delivery-Attempt': String(input.attempt),
    'X-Service-Timestamp': String(input.timestamp),
    'X-Service-Signature-Timestamped': hmacHex(input.secret, `${input.timestamp}.`, input.body),
  };
  if (input.previousSecret) {
    headers['X-Service-Signature-Previous'] = hmacHex(input.previousSecret, input.body);
  }
  return headers;
}
