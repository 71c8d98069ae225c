import 'reflect-metadata';
import { createHmac } from 'node:crypto';
import { isRefExpired, signRef, verifyRef } from '../members/signed-ref';
import { DEFAULT_FRAUD_SETTINGS, withFraudDefaults } from '../tenants/fraud-settings';
import { mergeSignals, reviewFor } from './risk-signal';

describe('withFraudDefaults', () => {
  it('fills every signal and field, keeping what is given', () => {
    expect(withFraudDefaults(undefined)).toEqual(DEFAULT_FRAUD_SETTINGS);
    expect(withFraudDefaults({ ip_burst: { leads_per_hour: 3 } }).ip_burst).toEqual({
      enabled: true,
      leads_per_hour: 3,
    });
  });

  it('ignores fields present but undefined (a partial DTO)', () => {
    const given = { amount_outlier: { enabled: true, factor: undefined } };
    expect(withFraudDefaults(given).amount_outlier).toEqual({ enabled: true, factor: 10 });
  });
});

describe('click-stamped refs', () => {
  const secret = 'x'.repeat(32);
  const DAY = 86_400_000;

  it('carry the click time inside the signature; refs without one never expire', () => {
    const now = Date.UTC(2026, 10, 25);
    const stamped = signRef({ t: 'org_1', r: 'usr_1', d: 'dl_1', c: now - 3 * DAY }, secret);
    const claims = verifyRef(stamped, secret, 'org_1')!;
    expect(claims.c).toBe(now - 3 * DAY);
    expect(isRefExpired(claims, 2, now)).toBe(true);
    expect(isRefExpired(claims, 3, now)).toBe(false);
    const plain = verifyRef(
      signRef({ t: 'org_1', r: 'usr_1', d: 'dl_1' }, secret),
      secret,
      'org_1',
    )!;
    expect(plain.c).toBeUndefined();
    expect(isRefExpired(plain, 1, now + 3650 * DAY)).toBe(false);
  });

  it('refuse a click time that is not an integer, even correctly signed', () => {
    const payload = Buffer.from(JSON.stringify({ t: 'org_1', r: 'u', d: 'd', c: 'soon' })).toString(
      'base64url',
    );
    const mac = createHmac('sha256', Buffer.from(secret)).update(payload).digest('base64url');
    expect(verifyRef(`${payload}.${mac}`, secret, 'org_1')).toBeUndefined();
  });
});

describe('reviews', () => {
  it('flag with the signals, or none', () => {
    const a = { code: 'ip_burst' as const, detail: 'a' };
    const b = { code: 'disposable_email' as const, detail: 'b' };
    expect(reviewFor([])).toBeNull();
    expect(reviewFor([a])).toEqual({ status: 'flagged', signals: [a] });
    expect(mergeSignals([a], [{ ...a, detail: 'again' }, b])).toEqual([a, b]);
  });
});
