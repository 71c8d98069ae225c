import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  deliveryHeaders,
  hmacHex,
  isStandardSecret,
  newWebhookSecret,
  standardFormOf,
  standardKey,
  standardSignature,
} from './webhook-signature';

/** The receiver's side of the contract: HMAC-SHA256 over the raw bytes, key = the secret's UTF-8. */
const expected = (secret: string, data: string | Buffer) =>
  createHmac('sha256', Buffer.from(secret, 'utf8')).update(data).digest('hex');

describe('hmacHex', () => {
  it('matches RFC 4231 test case 2 (key "Jefe")', () => {
    expect(hmacHex('Jefe', 'what do ya want for nothing?')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('is the lowercase hex HMAC-SHA256 of the exact bytes, keyed with the UTF-8 secret', () => {
    const secret = 'whsec_ключ-🔑';
    const body = '{"event_type":"lead.created","payload":{"contact":{"name":"Мария"}}}';
    const signature = hmacHex(secret, body);
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(signature).toBe(expected(secret, Buffer.from(body, 'utf8')));
    expect(hmacHex(secret, Buffer.from(body, 'utf8'))).toBe(signature);
  });

  it('changes with any byte of the body or of the secret', () => {
    const body = '{"a":1}';
    expect(hmacHex('whsec_a', body)).not.toBe(hmacHex('whsec_a', '{"a":2}'));
    expect(hmacHex('whsec_a', body)).not.toBe(hmacHex('whsec_b', body));
    // Whitespace is part of the bytes: a re-serialised body does not verify.
    expect(hmacHex('whsec_a', body)).not.toBe(hmacHex('whsec_a', '{ "a": 1 }'));
  });
});

describe('deliveryHeaders', () => {
  const body = JSON.stringify({
    event_type: 'bonus.approved',
    event_id: 'evt_01JD0Z6V2Y8K3M4N5P6Q7R8S9T',
    occurred_at: '2026-11-21T09:30:00.000Z',
    payload: { bonus_id: 'bns_1', user_id: 'usr_1', amount_kopecks: 1500, approved_at: 'x' },
  });
  const input = {
    body,
    eventId: 'evt_01JD0Z6V2Y8K3M4N5P6Q7R8S9T',
    eventType: 'bonus.approved',
    attempt: 3,
    secret: 'whsec_current',
    timestamp: 1_790_000_000,
  };

  it('carries the signature, the event id and type, the attempt and the timestamped signature', () => {
    const headers = deliveryHeaders(input);
    expect(headers).toMatchObject({
      'Content-Type': 'application/json',
      'X-Service-Signature': expected('whsec_current', body),
      'X-Service-Event-Id': 'evt_01JD0Z6V2Y8K3M4N5P6Q7R8S9T',
      'X-Service-Event-Type': 'bonus.approved',
      'X-Service-Delivery-Attempt': '3',
      'X-Service-Timestamp': '1790000000',
      'X-Service-Signature-Timestamped': expected('whsec_current', `1790000000.${body}`),
    });
    expect(headers['X-Service-Signature-Timestamped']).not.toBe(headers['X-Service-Signature']);
  });

  it('has no X-Service-Signature-Previous unless a previous secret is given', () => {
    expect(Object.keys(deliveryHeaders(input))).not.toContain('X-Service-Signature-Previous');
    expect(Object.keys(deliveryHeaders({ ...input, previousSecret: undefined }))).not.toContain(
      'X-Service-Signature-Previous',
    );
  });

  it('signs the body with the previous secret too while one is given', () => {
    const headers = deliveryHeaders({ ...input, previousSecret: 'whsec_old' });
    expect(headers['X-Service-Signature']).toBe(expected('whsec_current', body));
    expect(headers['X-Service-Signature-Previous']).toBe(expected('whsec_old', body));
  });

  it('puts only string values in headers', () => {
    const headers = deliveryHeaders({ ...input, previousSecret: 'whsec_old' });
    for (const value of Object.values(headers)) expect(typeof value).toBe('string');
  });
});

describe('webhook secrets', () => {
  it('are issued in the Standard Webhooks form: whsec_ + padded base64 of 32 random bytes', () => {
    const secrets = Array.from({ length: 200 }, newWebhookSecret);
    expect(new Set(secrets).size).toBe(200);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(isStandardSecret(secret)).toBe(true);
      expect(standardKey(secret)).toEqual(Buffer.from(secret.slice(6), 'base64'));
      expect(standardKey(secret)).toHaveLength(32);
      expect(standardFormOf(secret)).toBe(secret);
    }
  });

  it('tells the legacy secrets (whsec_ + 43 base64url characters) from them, whatever the bytes', () => {
    for (let i = 0; i < 200; i += 1) {
      const legacy = `whsec_${randomBytes(32).toString('base64url')}`;
      expect(isStandardSecret(legacy)).toBe(false);
      expect(standardKey(legacy)).toEqual(Buffer.from(legacy, 'utf8'));
    }
    // Even one with no "-" or "_": 43 characters are never whole padded base64.
    expect(isStandardSecret('whsec_03een3CesO8IwzdijVNQD0L7ZEQacsPZCk7yfthgMa')).toBe(false);
  });

  it('a Standard Webhooks secret is canonical padded base64 of 24 to 64 bytes behind whsec_', () => {
    const of = (n: number) => `whsec_${Buffer.alloc(n, 7).toString('base64')}`;
    expect(isStandardSecret(of(24))).toBe(true);
    expect(isStandardSecret(of(64))).toBe(true);
    expect(isStandardSecret(of(23))).toBe(false);
    expect(isStandardSecret(of(65))).toBe(false);
    expect(isStandardSecret(of(32).slice(6))).toBe(false); // no prefix
    expect(isStandardSecret(of(32).replace(/=$/, ''))).toBe(false); // unpadded
    expect(isStandardSecret(of(32).replace(/^whsec_B/, 'whsec_-'))).toBe(false); // base64url
    expect(isStandardSecret(`${of(32)} `)).toBe(false);
    // Non-canonical: the last character's unused bits set.
    expect(isStandardSecret(of(32).replace(/c=$/, 'd='))).toBe(false);
  });

  it("gives a legacy secret's Standard Webhooks form: whsec_ + base64 of its UTF-8, decoding to the same key", () => {
    const legacy = 'whsec_03een3CesO8IwzdijVNQD0L7Z_EQacsPZCk7yfthg-M';
    const form = standardFormOf(legacy);
    expect(form).toBe(`whsec_${Buffer.from(legacy).toString('base64')}`);
    expect(isStandardSecret(form)).toBe(true);
    expect(standardKey(form)).toEqual(standardKey(legacy));
    expect(standardSignature(form, 'evt_1', 1, '{}')).toBe(
      standardSignature(legacy, 'evt_1', 1, '{}'),
    );
  });
});

describe('Standard Webhooks headers', () => {
  const body =
    '{"event_type":"lead.created","event_id":"evt_01JD0Z6V2Y8K3M4N5P6Q7R8S9T","payload":{"name":"Мария"}}';
  const eventId = 'evt_01JD0Z6V2Y8K3M4N5P6Q7R8S9T';
  const now = () => Math.floor(Date.now() / 1000);
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const legacy = 'whsec_03een3CesO8IwzdijVNQD0L7Z_EQacsPZCk7yfthg-M';
  const input = (timestamp: number, current = secret, previousSecret?: string) => ({
    body,
    eventId,
    eventType: 'lead.created',
    attempt: 2,
    secret: current,
    previousSecret,
    timestamp,
  });

  it('signs `<webhook-id>.<webhook-timestamp>.<body>` with base64 HMAC-SHA256 keyed by the decoded secret', () => {
    const h = deliveryHeaders(input(1_790_000_000));
    expect(h['webhook-id']).toBe(eventId);
    expect(h['webhook-timestamp']).toBe('1790000000');
    expect(h['webhook-timestamp']).toBe(h['X-Service-Timestamp']);
    const mac = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
      .update(Buffer.from(`${eventId}.1790000000.${body}`, 'utf8'))
      .digest('base64');
    expect(h['webhook-signature']).toBe(`v1,${mac}`);
    // X-Service-Signature stays keyed with the secret string's UTF-8, as the spec defines it.
    expect(h['X-Service-Signature']).toBe(expected(secret, body));
  });

  it('verifies with the official standardwebhooks library, default constructor, secret as issued', () => {
    const issued = newWebhookSecret();
    const h = deliveryHeaders(input(now(), issued));
    const event: unknown = new Webhook(issued).verify(body, h);
    expect(event).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, h)).toThrow(
      'No matching signature found',
    );
    expect(() => new Webhook(issued).verify(`${body} `, h)).toThrow();
    // Keyed by the decoded bytes: the raw string no longer is the key.
    expect(() => new Webhook(issued, { format: 'raw' }).verify(body, h)).toThrow();
  });

  it('a legacy secret signs as before: raw bytes, or its whsec_ form with the default constructor', () => {
    const h = deliveryHeaders(input(now(), legacy));
    const mac = createHmac('sha256', Buffer.from(legacy, 'utf8'))
      .update(`${eventId}.${h['webhook-timestamp']}.${body}`)
      .digest('base64');
    expect(h['webhook-signature']).toBe(`v1,${mac}`);
    expect(h['X-Service-Signature']).toBe(expected(legacy, body));
    expect(new Webhook(legacy, { format: 'raw' }).verify(body, h)).toEqual(JSON.parse(body));
    expect(new Webhook(standardFormOf(legacy)).verify(body, h)).toEqual(JSON.parse(body));
  });

  it('adds a second v1 signature with the previous secret during a rotation, each with its own key', () => {
    // A legacy secret rotated to a Standard Webhooks one: the receiver may hold either.
    const h = deliveryHeaders(input(now(), secret, legacy));
    const signatures = h['webhook-signature'].split(' ');
    expect(signatures).toHaveLength(2);
    for (const signature of signatures) expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, h)).toEqual(JSON.parse(body));
    expect(new Webhook(legacy, { format: 'raw' }).verify(body, h)).toEqual(JSON.parse(body));
    expect(new Webhook(standardFormOf(legacy)).verify(body, h)).toEqual(JSON.parse(body));
    expect(h['X-Service-Signature']).toBe(expected(secret, body));
    expect(h['X-Service-Signature-Previous']).toBe(expected(legacy, body));
    expect(deliveryHeaders(input(now()))['webhook-signature'].split(' ')).toHaveLength(1);
  });
});
