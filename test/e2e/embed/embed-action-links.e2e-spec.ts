/**
 * POST /embed/v1/data/referral-link (seed 2.3, 5): the deeplink object, its limits, website
 * targets without open redirects, other target types and idempotency. Setup: embed-action-suite.
 */
import { randomBytes } from 'node:crypto';
import { type Response } from 'supertest';
import { createTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import {
  embedActionSuite,
  PUBLIC_BASE_URL,
  CODE,
  expectProblem,
} from '../../utils/embed-action-suite';

describe('embed action API: referral links', () => {
  const a = embedActionSuite();

  describe('POST /embed/v1/data/referral-link', () => {
    it('returns the deeplink object (seed 2.3) with an 8-character code under PUBLIC_BASE_URL/s', async () => {
      const res = await a.referralLink({
        ...a.website('/spring?utm=x'),
        recommendation_text: 'Great shop',
        promo_code: 'SPRING_10',
      });
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(a.origin);
      expect(Object.keys(res.body).sort()).toEqual(
        ['code', 'deeplink_id', 'reused', 'short_url', 'signed_ref'].sort(),
      );
      expect(res.body.code).toMatch(CODE);
      expect(res.body.deeplink_id).toMatch(/^dl_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(res.body.short_url).toBe(`${PUBLIC_BASE_URL}/s/${res.body.code}`);
      expect(res.body.signed_ref).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      expect(res.body.reused).toBe(false);
    });

    it.each([
      ['target_type unknown', { target_type: 'app', target_id: 'x' }],
      ['target_type missing', { target_id: 'x' }],
      ['target_id missing', { target_type: 'offer' }],
      ['target_id empty', { target_type: 'offer', target_id: '' }],
      ['target_id not a string', { target_type: 'offer', target_id: 42 }],
      ['promo_code with spaces', { target_type: 'offer', target_id: 'x', promo_code: 'SPRING 10' }],
      [
        'promo_code of 65 characters',
        { target_type: 'offer', target_id: 'x', promo_code: 'P'.repeat(65) },
      ],
      [
        'promo_code with other characters',
        { target_type: 'offer', target_id: 'x', promo_code: 'ÄBC!' },
      ],
      [
        'recommendation_text of 501 characters',
        { target_type: 'offer', target_id: 'x', recommendation_text: 'r'.repeat(501) },
      ],
      ['unknown field tenant', { target_type: 'offer', target_id: 'x', tenant: 'other' }],
      ['unknown field user_id', { target_type: 'offer', target_id: 'x', user_id: 'mbr_x' }],
      ['unknown field code', { target_type: 'offer', target_id: 'x', code: 'AAAAAAAA' }],
      ['unknown field deeplink_id', { target_type: 'offer', target_id: 'x', deeplink_id: 'dl_x' }],
    ])('refuses %s with 400 validation_failed', async (_label, body) => {
      const res = await a.referralLink(body);
      expectProblem(res, 400, 'validation_failed');
      expect(Array.isArray(res.body.errors)).toBe(true);
    });

    it('accepts the limits exactly: promo_code of 64 and recommendation_text of 500', async () => {
      const res = await a.referralLink({
        target_type: 'offer',
        target_id: 'limits',
        promo_code: 'P'.repeat(64),
        recommendation_text: 'r'.repeat(500),
      });
      expect(res.status).toBe(200);
    });

    it('refuses a JSON body sent as another type with 415', async () => {
      const res = await a.t
        .http()
        .post(`/embed/v1/data/referral-link?tenant=${a.tenant.slug}`)
        .set('Origin', a.origin)
        .set('Authorization', `Bearer ${a.token}`)
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send('target_type=offer&target_id=x');
      expectProblem(res, 415, 'unsupported_media_type');
    });

    describe('website targets: no open redirects', () => {
      const refused = () => [
        ['javascript:', 'javascript:alert(1)'],
        ['data:', 'data:text/html,<script>alert(1)</script>'],
        ['protocol-relative', '//evil.example'],
        ['protocol-relative to the tenant', `//${a.host}/x`],
        ['a foreign host', 'https://evil.example'],
        ['the tenant host as user info', `https://${a.host}@evil.example`],
        ['the tenant host as a sub-domain of evil', `https://${a.host}.evil.example`],
        ['backslash then @tenant', `https://evil.example\\@${a.host}`],
        ['backslashes for slashes', `https:\\\\evil.example`],
        ['backslash in the path', `https://${a.host}\\evil.example`],
        ['backslash after the host', `https://${a.host}/\\evil.example`],
        ['http on the tenant host', `http://${a.host}/x`],
        [
          'a look-alike IDN host (Cyrillic а)',
          `https://${a.host.replace('example', 'ex\u0430mple')}/`,
        ],
        ['https: without slashes', `https:${a.host}`],
        ['https: with one slash', `https:/${a.host}/x`],
        ['user info before the tenant host', `https://user@${a.host}/`],
        ['a relative path', '/catalog'],
        ['http on localhost, not an allowed host here', 'http://localhost/x'],
        ['a newline', `https://${a.host}/a\nb`],
      ];

      it('refuses every open-redirect shape with 422 target_not_allowed', async () => {
        const answers: string[] = [];
        for (const [label, target_id] of refused()) {
          const res = await a.referralLink({ target_type: 'website', target_id });
          answers.push(`${label}: ${res.status} ${res.body?.code}`);
        }
        expect(answers).toEqual(refused().map(([label]) => `${label}: 422 target_not_allowed`));
      });

      it('accepts the allowed origin hosts and the link_domains, with path and query', async () => {
        for (const target_id of [
          `${a.origin}/path?q`,
          `${a.origin}/catalog?item=42&x=a%20b#reviews`,
          `https://admin.${a.host}:8443/dashboard`,
          `https://${a.linkDomain}/promo/spring`,
        ]) {
          const res = await a.referralLink({ target_type: 'website', target_id });
          expect({ target_id, status: res.status }).toEqual({ target_id, status: 200 });
        }
      });

      it('accepts http://localhost only for a tenant that allows localhost', async () => {
        const local = await createTenant(a.t, { allowed_origins: ['http://localhost:5173'] });
        const member = await upsertUser(a.t, local.key, { full_name: 'Local Dev' });
        const localToken = a.tokens.issue(local.orgId, member.memberId).token;
        const call = (target_id: string) =>
          a.referralLink(
            { target_type: 'website', target_id },
            { slug: local.slug, origin: 'http://localhost:5173', bearer: localToken },
          );
        expect((await call('http://localhost/x?y=1')).status).toBe(200);
        expect((await call('http://localhost:5173/dev')).status).toBe(200);
        expectProblem(await call('http://127.0.0.1/x'), 422, 'target_not_allowed');
        expectProblem(await call('http://localhost.evil.example/x'), 422, 'target_not_allowed');
        // And the main tenant (no localhost origin) refuses it.
        expectProblem(
          await a.referralLink({ target_type: 'website', target_id: 'http://localhost/x' }),
          422,
          'target_not_allowed',
        );
      });
    });

    describe('other target types', () => {
      it.each(['offer', 'shop', 'partner', 'storefront'])(
        '%s takes ids of ^[A-Za-z0-9_.:-]{1,128}$ and refuses others with 422',
        async (target_type) => {
          for (const target_id of [
            'ofr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T',
            'shop:42',
            'a.b-c_d',
            'I'.repeat(128),
          ]) {
            const res = await a.referralLink({ target_type, target_id });
            expect({ target_id, status: res.status }).toEqual({ target_id, status: 200 });
          }
          for (const target_id of [
            'I'.repeat(129),
            'has space',
            'a/b',
            '<script>',
            'caf\u00e9',
            `${a.origin}/x`,
          ]) {
            const res = await a.referralLink({ target_type, target_id });
            expect({ target_id, status: res.status, code: res.body.code }).toEqual({
              target_id,
              status: 422,
              code: 'target_not_allowed',
            });
          }
        },
      );
    });

    describe('idempotency', () => {
      const base = () => ({
        target_type: 'website',
        target_id: `${a.origin}/idem/${randomBytes(4).toString('hex')}?a=1`,
        recommendation_text: 'Try it',
        // Promo codes are unique per tenant (docs/fraud.md): each test asks for its own.
        promo_code: `IDEM${randomBytes(3).toString('hex')}`,
      });

      it('returns the same link for the same six fields, with reused true', async () => {
        const body = base();
        const first = await a.referralLink(body);
        expect(first.status).toBe(200);
        expect(first.body.reused).toBe(false);
        const again = await a.referralLink(body);
        expect(again.status).toBe(200);
        expect(again.body).toEqual({ ...first.body, reused: true });
        // A new token of the same member (another popup sign-in) is the same member.
        const fresh = a.tokens.issue(a.tenant.orgId, a.owner.memberId).token;
        expect((await a.referralLink(body, { bearer: fresh })).body).toEqual({
          ...first.body,
          reused: true,
        });
      });

      it('makes a new link when any one of the fields differs', async () => {
        // Without a promo code: a code names one link of the tenant (docs/fraud.md).
        const { promo_code: code, ...body } = base();
        const first = (await a.referralLink(body)).body;
        const { recommendation_text: _r, ...withoutText } = body;
        const variants: [string, Promise<Response>][] = [
          [
            'member',
            a.referralLink(body, {
              bearer: a.tokens.issue(a.tenant.orgId, a.second.memberId).token,
            }),
          ],
          ['target_id', a.referralLink({ ...body, target_id: `${body.target_id}&b=2` })],
          ['recommendation_text', a.referralLink({ ...body, recommendation_text: 'Try it!' })],
          ['recommendation_text absent', a.referralLink(withoutText)],
          ['promo_code', a.referralLink({ ...body, promo_code: code })],
        ];
        const ids = new Set<string>([first.deeplink_id]);
        const codes = new Set<string>([first.code]);
        for (const [label, pending] of variants) {
          const res = await pending;
          expect({ label, status: res.status, reused: res.body.reused }).toEqual({
            label,
            status: 200,
            reused: false,
          });
          ids.add(res.body.deeplink_id);
          codes.add(res.body.code);
        }
        expect(ids.size).toBe(variants.length + 1);
        expect(codes.size).toBe(variants.length + 1);
        // Another member, or another link, asking for a code in use gets no link of it.
        const taken = await a.referralLink(
          { ...body, promo_code: code },
          { bearer: a.tokens.issue(a.tenant.orgId, a.second.memberId).token },
        );
        expect({ status: taken.status, code: taken.body.code }).toEqual({
          status: 409,
          code: 'promo_code_taken',
        });

        // target_type: the same id under two types.
        const asOffer = await a.referralLink({ target_type: 'offer', target_id: 'same-id-1' });
        const asShop = await a.referralLink({ target_type: 'shop', target_id: 'same-id-1' });
        expect(asShop.body.deeplink_id).not.toBe(asOffer.body.deeplink_id);
        expect(asShop.body.reused).toBe(false);

        // tenant: another tenant whose link_domains include this host, same target.
        const sibling = await createTenant(a.t, { link_domains: [a.host] });
        const member = await upsertUser(a.t, sibling.key, { full_name: 'Sibling' });
        const inSibling = await a.referralLink(
          { target_type: 'website', target_id: body.target_id },
          {
            slug: sibling.slug,
            origin: `https://${sibling.slug}.example`,
            bearer: a.tokens.issue(sibling.orgId, member.memberId).token,
          },
        );
        expect(inSibling.status).toBe(200);
        expect(inSibling.body.reused).toBe(false);
      });

      it('makes exactly one link for 20 concurrent identical requests', async () => {
        const body = base();
        const answers = await Promise.all(Array.from({ length: 20 }, () => a.referralLink(body)));
        expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
        expect(new Set(answers.map((r) => r.body.deeplink_id)).size).toBe(1);
        expect(new Set(answers.map((r) => r.body.code)).size).toBe(1);
        expect(new Set(answers.map((r) => r.body.signed_ref)).size).toBe(1);
        expect(answers.filter((r) => r.body.reused === false)).toHaveLength(1);
        const [{ count }] = await a.t.db.query(
          `SELECT count(*)::int AS count FROM deeplinks
            WHERE tenant_id = $1 AND member_id = $2 AND target_type = 'website' AND target_id = $3`,
          [a.tenant.orgId, a.owner.memberId, body.target_id],
        );
        expect(count).toBe(1);
      });
    });
  });
});
