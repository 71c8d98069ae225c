/**
 * Signed refs (docs/embedding.md): the lead form that takes them and the Federation upsert's signed_ref.
 * Setup: embed-action-suite.
 */
import { randomBytes } from 'node:crypto';
import { eventsOf } from '../../factories/money.factory';
import { upsertUser } from '../../factories/users.factory';
import { federationApi } from '../../utils/api-client';
import { embedActionSuite, OWN_ORIGIN, expectProblem, flip } from '../../utils/embed-action-suite';

describe('embed action API: signed refs and the lead form', () => {
  const a = embedActionSuite();

  describe('signed refs and the lead form', () => {
    let link: { signed_ref: string; deeplink_id: string; code: string };
    let foreignRef: string;

    const leadForm = (
      body: Record<string, unknown>,
      o: string | null = a.origin,
      slug = a.tenant.slug,
    ) => {
      const req = a.t.http().post(`/embed/v1/data/leads?tenant=${slug}`);
      if (o !== null) req.set('Origin', o);
      return req.send(body);
    };
    const contact = () => ({
      name: 'Visitor',
      email: `v-${randomBytes(4).toString('hex')}@example.org`,
    });

    beforeAll(async () => {
      link = (await a.referralLink({ target_type: 'offer', target_id: 'lead-form-offer' })).body;
      const stranger = await upsertUser(a.t, a.other.key, { full_name: 'Other Owner' });
      foreignRef = (
        await a.referralLink(
          { target_type: 'offer', target_id: 'lead-form-offer' },
          {
            slug: a.other.slug,
            origin: `https://${a.other.slug}.example`,
            bearer: a.tokens.issue(a.other.orgId, stranger.memberId).token,
          },
        )
      ).body.signed_ref;
    });

    it('creates a lead_form lead for the link owner from a valid ref, and emits lead.created', async () => {
      const person = contact();
      const res = await leadForm({
        ref: link.signed_ref,
        contact: person,
        metadata: { page: 'spring' },
      });
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(a.origin);
      expect(res.body).toEqual({ lead_id: expect.stringMatching(/^lead_/), status: 'new' });
      const [row] = await a.t.db.query(
        'SELECT source, referrer_user_id, referrer_member_id FROM leads WHERE tenant_id = $1 AND id = $2',
        [a.tenant.orgId, res.body.lead_id],
      );
      expect(row).toEqual({
        source: 'lead_form',
        referrer_user_id: a.owner.serviceUserId,
        referrer_member_id: a.owner.memberId,
      });
      const created = (await eventsOf(a.t, a.tenant.orgId, 'lead.created')).find(
        (e) => e.payload.lead_id === res.body.lead_id,
      );
      expect(created?.payload).toMatchObject({
        lead_id: res.body.lead_id,
        referrer_user_id: a.owner.serviceUserId,
        contact: { name: 'Visitor', email: person.email },
        offer_id: null,
        metadata: { page: 'spring' },
        source: 'lead_form',
      });
    });

    it('refuses a ref with any one character changed with 422 invalid_ref', async () => {
      const ref = link.signed_ref;
      const dot = ref.indexOf('.');
      const positions = [
        0,
        1,
        Math.floor(dot / 2),
        dot - 1,
        dot,
        dot + 1,
        Math.floor((dot + ref.length) / 2),
        ref.length - 2,
        ref.length - 1,
      ];
      const before = await a.t.db.query(
        'SELECT count(*)::int AS n FROM leads WHERE tenant_id = $1',
        [a.tenant.orgId],
      );
      for (const position of positions) {
        const res = await leadForm({ ref: flip(ref, position), contact: contact() });
        expect({ position, status: res.status, code: res.body.code }).toEqual({
          position,
          status: 422,
          code: 'invalid_ref',
        });
      }
      const after = await a.t.db.query(
        'SELECT count(*)::int AS n FROM leads WHERE tenant_id = $1',
        [a.tenant.orgId],
      );
      expect(after[0].n).toBe(before[0].n);
    });

    it("refuses another tenant's ref with 422 invalid_ref", async () => {
      expectProblem(await leadForm({ ref: foreignRef, contact: contact() }), 422, 'invalid_ref');
      // …which is valid on its own tenant.
      const own = await leadForm(
        { ref: foreignRef, contact: contact() },
        `https://${a.other.slug}.example`,
        a.other.slug,
      );
      expect(own.status).toBe(200);
    });

    it('validates the body: contact required, unknown fields refused', async () => {
      expectProblem(await leadForm({ ref: link.signed_ref }), 400, 'validation_failed');
      expectProblem(
        await leadForm({ ref: link.signed_ref, contact: { name: 'No Reach' } }),
        400,
        'validation_failed',
      );
      expectProblem(
        await leadForm({
          ref: link.signed_ref,
          contact: contact(),
          referrer_user_id: a.second.serviceUserId,
        }),
        400,
        'validation_failed',
      );
      expectProblem(await leadForm({ contact: contact() }), 400, 'validation_failed');
    });

    it("allows the service's own origin on the lead form but not on the Data API reads", async () => {
      const res = await leadForm({ ref: link.signed_ref, contact: contact() }, OWN_ORIGIN);
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(OWN_ORIGIN);
      // A same-origin browser request without Origin counts as the own origin.
      const sameOrigin = await a.t
        .http()
        .post(`/embed/v1/data/leads?tenant=${a.tenant.slug}`)
        .set('Sec-Fetch-Site', 'same-origin')
        .send({ ref: link.signed_ref, contact: contact() });
      expect(sameOrigin.status).toBe(200);

      for (const read of ['cabinet', 'bonuses', 'leads', 'referral-tree', 'partners']) {
        const denied = await a.t
          .http()
          .get(`/embed/v1/data/${read}/${a.owner.memberId}?tenant=${a.tenant.slug}`)
          .set('Origin', OWN_ORIGIN);
        expectProblem(denied, 403, 'origin_not_allowed');
        expect(denied.headers['access-control-allow-origin']).toBe('');
      }
      // Foreign and missing origins stay refused on the lead form.
      expectProblem(
        await leadForm({ ref: link.signed_ref, contact: contact() }, 'https://evil.example'),
        403,
        'origin_not_allowed',
      );
      expectProblem(
        await leadForm({ ref: link.signed_ref, contact: contact() }, null),
        403,
        'origin_not_allowed',
      );
    });

    describe('the Federation upsert with signed_ref', () => {
      const upsert = (body: Record<string, unknown>) =>
        federationApi(a.t, a.tenant.key).upsertUser({
          external_id: `ref-${randomBytes(5).toString('hex')}`,
          ...body,
        });

      it("sets the referrer from the ref's link owner", async () => {
        const res = await upsert({ full_name: 'Referred By Link', signed_ref: link.signed_ref });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({
          action: 'created',
          referrer_user_id: a.owner.serviceUserId,
        });
        const [row] = await a.t.db.query(
          'SELECT referrer_member_id FROM members WHERE tenant_id = $1 AND id = $2',
          [a.tenant.orgId, res.body.tenant_service_id],
        );
        expect(row.referrer_member_id).toBe(a.owner.memberId);
      });

      it('refuses signed_ref together with referrer_user_id with 400 validation_failed', async () => {
        expectProblem(
          await upsert({ signed_ref: link.signed_ref, referrer_user_id: a.second.serviceUserId }),
          400,
          'validation_failed',
        );
      });

      it("refuses a tampered or another tenant's ref with 422 invalid_ref", async () => {
        const ref = link.signed_ref;
        expectProblem(await upsert({ signed_ref: flip(ref, 3) }), 422, 'invalid_ref');
        expectProblem(await upsert({ signed_ref: flip(ref, ref.length - 1) }), 422, 'invalid_ref');
        expectProblem(await upsert({ signed_ref: foreignRef }), 422, 'invalid_ref');
      });
    });
  });
});
