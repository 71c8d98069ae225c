import { loadConfig } from './load-config';
import express from 'express';
import fc from 'fast-check';
import proxyaddr from 'proxy-addr';
import request from 'supertest';
import { expressTrustProxy, parseTrustProxy, trustProxyError, trustProxyFn } from './trust-proxy';

const SECRETS = {
  ADMIN_TOKEN: 'adm_0123456789abcdefghijklmnop',
  JWT_SECRET: 'jwt-secret-jwt-secret-jwt-secret-0123',
  REF_SIGNING_SECRET: 'ref-secret-ref-secret-ref-secret-0123',
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
};

/** docs/security.md: nobody's X-Forwarded-For is trusted unless TRUST_PROXY says whose. */
describe('TRUST_PROXY', () => {
  const load = (value?: string) =>
    loadConfig(value === undefined ? SECRETS : { ...SECRETS, TRUST_PROXY: value }, {
      devSecretsFile: '/nonexistent/unused.json',
    });

  it('trusts nobody by default', () => {
    expect(load().trustProxy).toBe(false);
    expect(expressTrustProxy(load().trustProxy)).toBe(false);
  });

  it.each([
    ['', false],
    ['false', false],
    ['0', false],
    ['1', 1],
    ['2', 2],
    ['32', 32],
    ['loopback', ['loopback']],
    ['loopback, 10.0.0.0/8', ['loopback', '10.0.0.0/8']],
    ['linklocal,uniquelocal', ['linklocal', 'uniquelocal']],
    ['203.0.113.7', ['203.0.113.7']],
    ['10.0.0.0/8,172.16.0.0/12,192.168.0.0/16', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16']],
    ['fd00::/8,::1', ['fd00::/8', '::1']],
    ['0.0.0.0/0', ['0.0.0.0/0']],
  ])('reads %j as %j', (value, expected) => {
    expect(trustProxyError(value)).toBeUndefined();
    expect(load(value).trustProxy).toEqual(expected);
    expect(parseTrustProxy(value)).toEqual(expected);
  });

  it.each([
    ['true', /every client/],
    ['33', /hop count/],
    ['-1', /not loopback/],
    ['1.5', /not loopback/],
    ['localhost', /"localhost" is not/],
    ['10.0.0.0/33', /"10.0.0.0\/33" is not/],
    ['fd00::/129', /is not/],
    ['10.0.0.0/8/8', /is not/],
    ['10.0.0/8', /is not/],
    ['loopback,', /"" is not/],
    ['loopback;10.0.0.1', /is not/],
    ['fe80::1%eth0', /is not/],
    ['*', /is not/],
  ])('refuses %j with a ConfigError naming TRUST_PROXY', (value, message) => {
    expect(trustProxyError(value)).toMatch(message);
    expect(() => load(value)).toThrow(/TRUST_PROXY/);
  });

  it('hands Express a fresh array (it may keep it) and numbers as they are', () => {
    const list = parseTrustProxy('loopback,10.0.0.0/8');
    const given = expressTrustProxy(list);
    expect(given).toEqual(['loopback', '10.0.0.0/8']);
    expect(given).not.toBe(list);
    expect(expressTrustProxy(2)).toBe(2);
  });

  it('names the client as Express names it from the value form (the fast lanes use the function)', async () => {
    const settings = ['false', '1', '3', 'loopback', 'loopback,10.0.0.0/8', 'uniquelocal,::1'];
    const apps = settings.map((value) => {
      const setting = parseTrustProxy(value);
      const app = express();
      app.set('trust proxy', expressTrustProxy(setting));
      const trust = trustProxyFn(setting);
      app.get('/', (req, res) => {
        res.json({ express: req.ip, lane: proxyaddr(req, trust) });
      });
      return app;
    });
    const address = fc.oneof(
      fc.ipV4(),
      fc.ipV6(),
      fc.constantFrom('10.1.2.3', '127.0.0.1', '::1', 'fd00::5', '192.168.0.9', 'junk'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: apps.length - 1 }),
        fc.array(address, { maxLength: 5 }),
        async (which, hops) => {
          const call = request(apps[which]).get('/');
          if (hops.length) void call.set('X-Forwarded-For', hops.join(', '));
          const { body } = await call;
          expect(body.lane).toBe(body.express);
        },
      ),
      { numRuns: 150 },
    );
  });
});
