import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { deliveryHeaders, hmacHex, standardSignature } from './webhook-signature';

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

describe('Standard Webhooks headers', () => {
  const body =
    '{"event_type":"lead.created","event_id":"evt_01JD0Z6V2Y8K3M4N5P6Q7R8S9T","payload":{"name":"Мария"}}';
  const eventId = 'evt_01JD0Z6V2Y8K3M4N5P6Q7R8S9T';
  const now = () => Math.floor(Date.now() / 1000);
  const input = (timestamp: number, previousSecret?: string) => ({
    body,
    eventId,
    eventType: 'lead.created',
    attempt: 2,
    secret: 'whsec_03een3CesO8IwzdijVNQD0L7Z_EQacsPZCk7yfthg-M',
    previousSecret,
    timestamp,
  });

  it('signs `<webhook-id>.<webhook-timestamp>.<body>` with base64 HMAC-SHA256, key = the secret UTF-8', () => {
    const h = deliveryHeaders(input(1_790_000_000));
    expect(h['webhook-id']).toBe(eventId);
    expect(h['webhook-timestamp']).toBe('1790000000');
    expect(h['webhook-timestamp']).toBe(h['X-Service-Timestamp']);
    const mac = createHmac('sha256', Buffer.from(input(0).secret, 'utf8'))
      .update(Buffer.from(`${eventId}.1790000000.${body}`, 'utf8'))
      .digest('base64');
    expect(h['webhook-signature']).toBe(`v1,${mac}`);
    expect(standardSignature(input(0).secret, eventId, 1_790_000_000, Buffer.from(body))).toBe(
      `v1,${mac}`,
    );
  });

  it('verifies with the official standardwebhooks library given the secret as raw bytes', () => {
    const h = deliveryHeaders(input(now()));
    const event: unknown = new Webhook(input(0).secret, { format: 'raw' }).verify(body, h);
    expect(event).toEqual(JSON.parse(body));
    expect(() => new Webhook('whsec_other', { format: 'raw' }).verify(body, h)).toThrow(
      'No matching signature found',
    );
    expect(() => new Webhook(input(0).secret, { format: 'raw' }).verify(`${body} `, h)).toThrow();
  });

  it('adds a second v1 signature with the previous secret during a rotation', () => {
    const h = deliveryHeaders(input(now(), 'whsec_old'));
    const signatures = h['webhook-signature'].split(' ');
    expect(signatures).toHaveLength(2);
    for (const signature of signatures) expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook('whsec_old', { format: 'raw' }).verify(body, h)).toEqual(JSON.parse(body));
    expect(new Webhook(input(0).secret, { format: 'raw' }).verify(body, h)).toEqual(
      JSON.parse(body),
    );
    expect(deliveryHeaders(input(now()))['webhook-signature'].split(' ')).toHaveLength(1);
  });
});
