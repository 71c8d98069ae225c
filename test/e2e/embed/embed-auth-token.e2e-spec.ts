/**
 * Token-gated widgets (SPEC 14, docs/embedding.md §3): with `embed_auth: token` every Embed Data
 * read needs the popup JWT of the very member it reads, on the fast lanes as through Express; the
 * lead form does not. And the partner's own links, listed for the link widget. Setup:
 * embed-action-suite (a tenant, two partners and the first one's token).
 */
import jwt from 'jsonwebtoken';
import { randomUUID } from 'node:crypto';
import { DeeplinksService } from '../../../src/deeplinks/deeplinks.service';
import { adminApi } from '../../utils/api-client';
import { embedActionSuite, expectProblem, JWT_SECRET } from '../../utils/embed-action-suite';

/** Every Embed Data read, each naming the member it reads. */
const READS = ['cabinet', 'bonuses', 'leads', 'referral-tree', 'partners', 'payouts'];

describe('embed_auth: token (widgets that only the partner sees)', () => {
  const a = embedActionSuite();
  const admin = () => adminApi(a.t, a.t.adminToken);

  const read = (what: string, memberId: string, bearer?: string) => {
    const req = a.t
      .http()
      .get(`/embed/v1/data/${what}/${memberId}?tenant=${a.tenant.slug}`)
      .set('Origin', a.origin);
    if (bearer !== undefined) req.set('Authorization', `Bearer ${bearer}`);
    return req;
  };

  const setMode = async (embed_auth: unknown) =>
    admin().updateTenant(a.tenant.slug, { embed_auth } as never);

  it('is a tenant setting: origin by default, token on request, nothing else', async () => {
    expect((await admin().getTenant(a.tenant.slug)).body.embed_auth).toBe('origin');
    for (const bad of ['bearer', '', null, 1]) {
      const res = await setMode(bad);
      expectProblem(res, 400, 'validation_failed');
      expect(JSON.stringify(res.body.errors)).toContain('embed_auth');
    }
    // With `origin`, a read needs no token (section 4 as it was).
    expect((await read('cabinet', a.owner.memberId)).status).toBe(200);
    const res = await setMode('token');
    expect(res.status).toBe(200);
    expect(res.body.embed_auth).toBe('token');
  });

  describe('with token', () => {
    beforeAll(async () => {
      expect((await setMode('token')).status).toBe(200);
    });

    it('no token: 401 invalid_token on every read, readable by the allowed origin', async () => {
      for (const what of READS) {
        const res = await read(what, a.owner.memberId);
        expectProblem(res, 401, 'invalid_token');
        expect(res.headers['access-control-allow-origin']).toBe(a.origin);
        expect(JSON.stringify(res.body)).not.toContain('Link Owner');
      }
    });

    it("another member's token: 403 forbidden; another tenant's: 403 tenant_mismatch", async () => {
      const second = a.tokens.issue(a.tenant.orgId, a.second.memberId).token;
      const foreign = a.tokens.issue(a.other.orgId, a.owner.memberId).token;
      for (const what of READS) {
        expectProblem(await read(what, a.owner.memberId, second), 403, 'forbidden');
        expectProblem(await read(what, a.owner.memberId, foreign), 403, 'tenant_mismatch');
      }
    });

    it('an expired, a forged and a malformed token are refused', async () => {
      const now = Math.floor(Date.now() / 1000);
      const expired = jwt.sign(a.validClaims({ iat: now - 7200, exp: now - 3600 }), JWT_SECRET, {
        algorithm: 'HS256',
      });
      const forged = jwt.sign(a.validClaims(), 'another-secret-of-at-least-32-bytes!!', {
        algorithm: 'HS256',
      });
      for (const what of READS) {
        expectProblem(await read(what, a.owner.memberId, expired), 401, 'token_expired');
        expectProblem(await read(what, a.owner.memberId, forged), 401, 'invalid_token');
        expectProblem(await read(what, a.owner.memberId, 'not.a.jwt'), 401, 'invalid_token');
      }
    });

    it("the member's own token reads their data, each route as with origin gating", async () => {
      for (const what of READS) {
        const res = await read(what, a.owner.memberId, a.token);
        expect({ what, status: res.status }).toEqual({ what, status: 200 });
        expect(res.headers['access-control-allow-origin']).toBe(a.origin);
      }
      const cabinet = await read('cabinet', a.owner.memberId, a.token);
      expect(cabinet.body.user).toMatchObject({
        id_surrogate: a.owner.memberId,
        display_name: 'Link Owner',
      });
      // A foreign origin is still refused before the token is looked at.
      const foreign = await a.t
        .http()
        .get(`/embed/v1/data/cabinet/${a.owner.memberId}?tenant=${a.tenant.slug}`)
        .set('Origin', 'https://evil.example')
        .set('Authorization', `Bearer ${a.token}`);
      expectProblem(foreign, 403, 'origin_not_allowed');
    });

    it('the lead form still takes a visitor without a token', async () => {
      const link = await a.referralLink(a.website('/lead-form'));
      expect(link.status).toBe(200);
      const lead = await a.t
        .http()
        .post(`/embed/v1/data/leads?tenant=${a.tenant.slug}`)
        .set('Origin', a.origin)
        .send({ ref: link.body.signed_ref, contact: { name: 'Visitor', email: 'v@x.example' } });
      expect(lead.status).toBe(200);
      const leads = await read('leads', a.owner.memberId, a.token);
      expect(leads.body.leads.map((l: { contact_name: string }) => l.contact_name)).toContain(
        'Visitor',
      );
    });

    it('back to origin: reads need no token again at once', async () => {
      expect((await setMode('origin')).status).toBe(200);
      expect((await read('cabinet', a.owner.memberId)).status).toBe(200);
      expect((await setMode('token')).status).toBe(200);
      expectProblem(await read('cabinet', a.owner.memberId), 401, 'invalid_token');
    });
  });

  describe('GET /embed/v1/data/referral-links: the signed-in partner’s own links', () => {
    const list = (bearer?: string) => {
      const req = a.t
        .http()
        .get(`/embed/v1/data/referral-links?tenant=${a.tenant.slug}`)
        .set('Origin', a.origin);
      if (bearer !== undefined) req.set('Authorization', `Bearer ${bearer}`);
      return req;
    };

    it('lists them newest first with clicks and promo code; nobody else’s', async () => {
      const promo = `P${randomUUID().slice(0, 8)}`;
      const first = await a.referralLink(a.website('/first'));
      const second = await a.referralLink({
        ...a.website('/second'),
        promo_code: promo,
        recommendation_text: '<script>alert(1)</script>',
      });
      expect([first.status, second.status]).toEqual([200, 200]);
      // Two clicks on the first link, counted.
      for (let i = 0; i < 2; i++)
        expect((await a.t.http().get(`/s/${first.body.code}`)).status).toBe(302);
      await a.t.app.get(DeeplinksService).flushClicks();

      const res = await list(a.token);
      expect(res.status).toBe(200);
      const byCode = new Map(
        (res.body.items as { code: string }[]).map((item) => [item.code, item]),
      );
      expect(byCode.get(first.body.code)).toEqual({
        deeplink_id: first.body.deeplink_id,
        code: first.body.code,
        short_url: first.body.short_url,
        target_type: 'website',
        target_id: `${a.origin}/first`,
        promo_code: null,
        recommendation_text: null,
        clicks_count: 2,
        created_at: expect.any(String),
      });
      expect(byCode.get(second.body.code)).toMatchObject({
        promo_code: promo,
        recommendation_text: '<script>alert(1)</script>',
        clicks_count: 0,
      });
      const codes = (res.body.items as { code: string }[]).map((item) => item.code);
      expect(codes.indexOf(second.body.code)).toBeLessThan(codes.indexOf(first.body.code));

      // The second partner has none of them.
      const theirs = await list(a.tokens.issue(a.tenant.orgId, a.second.memberId).token);
      expect(theirs.status).toBe(200);
      expect(theirs.body.items).toEqual([]);
    });

    it('needs the token: none, expired or another tenant’s is refused', async () => {
      expectProblem(await list(), 401, 'invalid_token');
      const now = Math.floor(Date.now() / 1000);
      const expired = jwt.sign(a.validClaims({ iat: now - 7200, exp: now - 3600 }), JWT_SECRET, {
        algorithm: 'HS256',
      });
      expectProblem(await list(expired), 401, 'token_expired');
      const foreign = a.tokens.issue(a.other.orgId, a.owner.memberId).token;
      expectProblem(await list(foreign), 403, 'tenant_mismatch');
    });
  });
});
