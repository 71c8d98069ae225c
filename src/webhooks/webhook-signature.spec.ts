import { createHmac } from 'node:crypto';
import { deliveryHeaders, hmacHex } from './webhook-signature';

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
