/**
 * The Embed Action API's bearer JWT (seed 4.2; docs/embedding.md): what the popup issues, and the battery of
 * forged, expired, tampered and foreign tokens it refuses. Setup: embed-action-suite.
 */
import jwt from 'jsonwebtoken';
import { generateKeyPairSync, createHmac } from 'node:crypto';
import { upsertUser } from '../../factories/users.factory';
import {
  embedActionSuite,
  JWT_SECRET,
  PUBLIC_BASE_URL,
  OWN_ORIGIN,
  b64url,
  decodePart,
  expectProblem,
  flip,
} from '../../utils/embed-action-suite';

describe('embed action API: the bearer JWT', () => {
  const a = embedActionSuite();

  describe('the bearer JWT', () => {
    it('is issued as HS256 / typ JWT with iss, aud embed, sub, tid, scope, iat, exp = iat + 3600, jti', () => {
      const before = Math.floor(Date.now() / 1000);
      const issued = a.tokens.issue(a.tenant.orgId, a.owner.memberId);
      const [header, payload, signature] = issued.token.split('.');
      expect(decodePart(header)).toEqual({ alg: 'HS256', typ: 'JWT' });
      const claims = decodePart(payload);
      expect(Object.keys(claims).sort()).toEqual(
        ['aud', 'exp', 'iat', 'iss', 'jti', 'scope', 'sub', 'tid'].sort(),
      );
      expect(claims).toMatchObject({
        iss: PUBLIC_BASE_URL,
        aud: 'embed',
        sub: a.owner.memberId,
        tid: a.tenant.orgId,
        scope: 'profile:read',
      });
      expect(claims.iat).toBeGreaterThanOrEqual(before);
      expect(claims.iat).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
      expect(claims.exp).toBe((claims.iat as number) + 3600);
      expect(typeof claims.jti).toBe('string');
      expect((claims.jti as string).length).toBeGreaterThan(0);
      // expires_at of the popup message is epoch milliseconds (13 digits) of exp.
      expect(issued.expiresAt).toBe((claims.exp as number) * 1000);
      expect(String(issued.expiresAt)).toMatch(/^\d{13}$/);
      // HS256 under JWT_SECRET (the HMAC key is its UTF-8 bytes).
      const expected = createHmac('sha256', Buffer.from(JWT_SECRET, 'utf8'))
        .update(`${header}.${payload}`)
        .digest('base64url');
      expect(signature).toBe(expected);
      // A fresh jti each time.
      const again = decodePart(
        a.tokens.issue(a.tenant.orgId, a.owner.memberId).token.split('.')[1],
      );
      expect(again.jti).not.toBe(claims.jti);
    });

    it('is accepted when made by hand with the same secret and claims (control for the battery)', async () => {
      const handMade = jwt.sign(a.validClaims(), JWT_SECRET, { algorithm: 'HS256' });
      const res = await a.referralLink(a.website('/control'), { bearer: handMade });
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(a.origin);
    });

    it('refuses alg none (unsigned) with 401 invalid_token', async () => {
      for (const alg of ['none', 'None', 'NONE']) {
        const unsigned = `${b64url({ alg, typ: 'JWT' })}.${b64url(a.validClaims())}.`;
        expectProblem(
          await a.referralLink(a.website(), { bearer: unsigned }),
          401,
          'invalid_token',
        );
      }
      // `none` with the HS256 signature attached is no better.
      const signature = a.token.split('.')[2];
      const labelled = `${b64url({ alg: 'none', typ: 'JWT' })}.${a.token.split('.')[1]}.${signature}`;
      expectProblem(await a.referralLink(a.website(), { bearer: labelled }), 401, 'invalid_token');
    });

    it('refuses HS512 under the right secret with 401 invalid_token', async () => {
      const hs512 = jwt.sign(a.validClaims(), JWT_SECRET, { algorithm: 'HS512' });
      expect(decodePart(hs512.split('.')[0]).alg).toBe('HS512');
      expectProblem(await a.referralLink(a.website(), { bearer: hs512 }), 401, 'invalid_token');
      const hs384 = jwt.sign(a.validClaims(), JWT_SECRET, { algorithm: 'HS384' });
      expectProblem(await a.referralLink(a.website(), { bearer: hs384 }), 401, 'invalid_token');
    });

    it('refuses RS256, both really RSA-signed and HMAC-signed under an RS256 label (alg confusion)', async () => {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const rs256 = jwt.sign(a.validClaims(), privateKey, { algorithm: 'RS256' });
      expectProblem(await a.referralLink(a.website(), { bearer: rs256 }), 401, 'invalid_token');

      const head = b64url({ alg: 'RS256', typ: 'JWT' });
      const body = b64url(a.validClaims());
      const hmac = createHmac('sha256', Buffer.from(JWT_SECRET, 'utf8'))
        .update(`${head}.${body}`)
        .digest('base64url');
      expectProblem(
        await a.referralLink(a.website(), { bearer: `${head}.${body}.${hmac}` }),
        401,
        'invalid_token',
      );
    });

    it('refuses a token signed with another secret with 401 invalid_token', async () => {
      const forged = jwt.sign(a.validClaims(), `${JWT_SECRET}-but-not-quite`, {
        algorithm: 'HS256',
      });
      expectProblem(await a.referralLink(a.website(), { bearer: forged }), 401, 'invalid_token');
    });

    it('refuses an expired token with 401 token_expired', async () => {
      const now = Math.floor(Date.now() / 1000);
      const expired = jwt.sign(a.validClaims({ iat: now - 7200, exp: now - 60 }), JWT_SECRET, {
        algorithm: 'HS256',
      });
      expectProblem(await a.referralLink(a.website(), { bearer: expired }), 401, 'token_expired');
    });

    it('refuses a tampered payload (sub or tid changed, signature kept) with 401 invalid_token', async () => {
      const [header, payload, signature] = a.token.split('.');
      const claims = decodePart(payload);
      for (const change of [
        { sub: a.second.memberId },
        { tid: a.other.orgId },
        { scope: 'admin' },
      ]) {
        const tampered = `${header}.${b64url({ ...claims, ...change })}.${signature}`;
        expectProblem(
          await a.referralLink(a.website(), { bearer: tampered }),
          401,
          'invalid_token',
        );
      }
      // One character of the signature changed.
      const last = a.token.length - 2;
      expectProblem(
        await a.referralLink(a.website(), { bearer: flip(a.token, last) }),
        401,
        'invalid_token',
      );
    });

    it('refuses a wrong issuer or audience with 401 invalid_token', async () => {
      for (const change of [
        { iss: 'https://evil.example' },
        { iss: `${PUBLIC_BASE_URL}/` },
        { aud: 'admin' },
        { aud: ['other'] },
      ]) {
        const bad = jwt.sign(a.validClaims(change), JWT_SECRET, { algorithm: 'HS256' });
        expectProblem(await a.referralLink(a.website(), { bearer: bad }), 401, 'invalid_token');
      }
      const noIss = a.validClaims();
      delete (noIss as Partial<typeof noIss>).iss;
      expectProblem(
        await a.referralLink(a.website(), {
          bearer: jwt.sign(noIss, JWT_SECRET, { algorithm: 'HS256' }),
        }),
        401,
        'invalid_token',
      );
    });

    it.each(['exp', 'iat', 'iss', 'aud', 'sub', 'tid', 'scope', 'jti'])(
      'refuses a token signed with the right secret but without %s with 401 invalid_token (docs/security.md)',
      async (claim) => {
        const claims: Record<string, unknown> = a.validClaims();
        delete claims[claim];
        // jsonwebtoken adds iat by itself unless told not to.
        const bearer = jwt.sign(claims, JWT_SECRET, {
          algorithm: 'HS256',
          noTimestamp: claim === 'iat',
        });
        expect(Object.keys(decodePart(bearer.split('.')[1]))).not.toContain(claim);
        expectProblem(await a.referralLink(a.website(), { bearer }), 401, 'invalid_token');
      },
    );

    it('refuses claims the popup never issues: a longer life, a future iat, odd types (docs/security.md)', async () => {
      const now = Math.floor(Date.now() / 1000);
      for (const change of [
        { exp: now + 30 * 24 * 3600 },
        { iat: now + 600, exp: now + 3600 },
        { exp: String(now + 3600) },
        { aud: ['embed'] },
        { scope: 'admin' },
        { tid: '' },
        { sub: 42 },
        { jti: '' },
      ]) {
        // Signed by hand: jsonwebtoken would not sign some of these claim sets.
        const head = b64url({ alg: 'HS256', typ: 'JWT' });
        const body = b64url(a.validClaims(change));
        const signature = createHmac('sha256', Buffer.from(JWT_SECRET, 'utf8'))
          .update(`${head}.${body}`)
          .digest('base64url');
        const bad = `${head}.${body}.${signature}`;
        expectProblem(await a.referralLink(a.website(), { bearer: bad }), 401, 'invalid_token');
      }
      // Issued over an hour ago, whatever exp says: expired.
      const old = jwt.sign(a.validClaims({ iat: now - 3700, exp: now + 3600 }), JWT_SECRET, {
        algorithm: 'HS256',
      });
      expectProblem(await a.referralLink(a.website(), { bearer: old }), 401, 'token_expired');
    });

    it('refuses a missing or malformed Authorization header with 401 invalid_token', async () => {
      expectProblem(await a.referralLink(a.website(), { bearer: null }), 401, 'invalid_token');
      for (const value of [
        '',
        'Basic Zm9vOmJhcg==',
        `Token ${a.token}`,
        'Bearer',
        'Bearer not.a.jwt',
      ]) {
        const res = await a.t
          .http()
          .post(`/embed/v1/data/referral-link?tenant=${a.tenant.slug}`)
          .set('Origin', a.origin)
          .set('Authorization', value)
          .send(a.website());
        expectProblem(res, 401, 'invalid_token');
      }
    });

    it("refuses another tenant's valid token with 403 tenant_mismatch", async () => {
      const stranger = await upsertUser(a.t, a.other.key, { full_name: 'Stranger' });
      const foreign = a.tokens.issue(a.other.orgId, stranger.memberId).token;
      const res = await a.referralLink(a.website(), { bearer: foreign });
      expectProblem(res, 403, 'tenant_mismatch');
      // The same token works on its own tenant (from that tenant's origin).
      const own = await a.referralLink(
        { target_type: 'website', target_id: `https://${a.other.slug}.example/x` },
        { bearer: foreign, slug: a.other.slug, origin: `https://${a.other.slug}.example` },
      );
      expect(own.status).toBe(200);
    });

    it('refuses a valid token from a disallowed or missing Origin with 403 origin_not_allowed', async () => {
      for (const bad of ['https://evil.example', `http://${a.host}`, `${a.origin}:444`, 'null']) {
        const res = await a.referralLink(a.website(), { origin: bad });
        expectProblem(res, 403, 'origin_not_allowed');
        expect(res.headers['access-control-allow-origin']).toBe('');
      }
      expectProblem(await a.referralLink(a.website(), { origin: null }), 403, 'origin_not_allowed');
      // The service's own origin is not one of this tenant's origins.
      expectProblem(
        await a.referralLink(a.website(), { origin: OWN_ORIGIN }),
        403,
        'origin_not_allowed',
      );
    });
  });
});
