/**
 * Registering leads over the Federation API (POST /federation/v1/leads): the stored lead, the
 * lead.created event, validation, refusals, and the lead bonus. Setup: leads-suite.
 */
import { createLead, eventsOf } from '../../factories/money.factory';
import { createTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { adminApi } from '../../utils/api-client';
import {
  leadsSuite,
  ISO_MS_UTC,
  LEAD_ID,
  EVENT_ID,
  BONUS_ID,
  UNKNOWN_USR,
} from '../../utils/leads-suite';

describe('leads: POST /federation/v1/leads and the lead bonus', () => {
  const s = leadsSuite();

  describe('create', () => {
    it('answers 200 {lead_id, status: new} and stores the lead', async () => {
      const res = await s.postLead(s.validLead({ metadata: { utm_source: 'mail' } }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ lead_id: expect.stringMatching(LEAD_ID), status: 'new' });
      const [row] = await s.t.db.query(
        `SELECT status, source, referrer_user_id, contact_email, metadata FROM leads
          WHERE tenant_id = $1 AND id = $2`,
        [s.tenant.orgId, res.body.lead_id],
      );
      expect(row).toEqual({
        status: 'new',
        source: 'federation',
        referrer_user_id: s.referrer.serviceUserId,
        contact_email: 'ivan@example.org',
        metadata: { utm_source: 'mail' },
      });
    });

    it('accepts a phone instead of an email', async () => {
      const res = await s.postLead(
        s.validLead({ contact: { name: 'Ivan', phone: '+7 900 123-45-67' } }),
      );
      expect(res.status).toBe(200);
      const [created] = await eventsOf(s.t, s.tenant.orgId, 'lead.created');
      expect((created.payload as { contact: unknown }).contact).toEqual({
        name: 'Ivan',
        email: null,
      });
    });

    it('emits lead.created with exactly the seed payload (+ source) in a full envelope', async () => {
      const res = await s.postLead(s.validLead({ metadata: { campaign: 'spring', n: 3 } }));
      const events = await eventsOf(s.t, s.tenant.orgId);
      expect(events.map((e) => e.event_type)).toEqual(['lead.created']);
      const [event] = events;
      expect(Object.keys(event).sort()).toEqual(
        ['event_id', 'event_type', 'occurred_at', 'payload'].sort(),
      );
      expect(event.event_type).toBe('lead.created');
      expect(event.event_id).toMatch(EVENT_ID);
      expect(event.occurred_at).toMatch(ISO_MS_UTC);
      expect(new Date(event.occurred_at).toISOString()).toBe(event.occurred_at);
      expect(event.payload).toStrictEqual({
        lead_id: res.body.lead_id,
        referrer_user_id: s.referrer.serviceUserId,
        contact: { name: 'Ivan Petrov', email: 'ivan@example.org' },
        offer_id: null,
        metadata: { campaign: 'spring', n: 3 },
        source: 'federation',
      });
    });

    it('defaults metadata to {} and carries the offer_id', async () => {
      const offer = await s.createOffer(s.tenant.slug, { name: 'Plan' });
      const res = await s.postLead(s.validLead({ offer_id: offer.offer_id }));
      expect(res.status).toBe(200);
      const [event] = await eventsOf(s.t, s.tenant.orgId, 'lead.created');
      expect(event.payload).toMatchObject({ offer_id: offer.offer_id, metadata: {} });
    });

    describe('validation: 400 validation_failed with errors[]', () => {
      const cases: [string, () => Record<string, unknown>, string][] = [
        [
          'missing referrer_user_id',
          () => ({ contact: { name: 'A', email: 'a@example.org' } }),
          'referrer_user_id',
        ],
        [
          'malformed referrer_user_id',
          () => s.validLead({ referrer_user_id: 'mbr_123' }),
          'referrer_user_id',
        ],
        ['missing contact', () => s.validLead({ contact: undefined }), 'contact'],
        [
          'contact.name missing',
          () => s.validLead({ contact: { email: 'a@example.org' } }),
          'contact.name',
        ],
        [
          'contact.name empty',
          () => s.validLead({ contact: { name: '', email: 'a@example.org' } }),
          'contact.name',
        ],
        [
          'contact.name over 200',
          () => s.validLead({ contact: { name: 'n'.repeat(201), email: 'a@example.org' } }),
          'contact.name',
        ],
        ['neither email nor phone', () => s.validLead({ contact: { name: 'A' } }), 'contact'],
        [
          'bad email',
          () => s.validLead({ contact: { name: 'A', email: 'not-an-email' } }),
          'contact.email',
        ],
        [
          'bad phone',
          () => s.validLead({ contact: { name: 'A', phone: 'call me' } }),
          'contact.phone',
        ],
        [
          'metadata with 51 keys',
          () =>
            s.validLead({
              metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])),
            }),
          'metadata',
        ],
        [
          'metadata over 4 KiB',
          () => s.validLead({ metadata: { big: 'x'.repeat(4087) } }),
          'metadata',
        ],
        [
          'metadata over 4 KiB in UTF-8 bytes (fewer characters)',
          () => s.validLead({ metadata: { big: 'я'.repeat(2044) } }),
          'metadata',
        ],
        ['metadata an array', () => s.validLead({ metadata: ['a'] }), 'metadata'],
        ['metadata a string', () => s.validLead({ metadata: 'x' }), 'metadata'],
        ['unknown field', () => s.validLead({ status: 'converted' }), 'status'],
        [
          'unknown field inside contact',
          () => s.validLead({ contact: { name: 'A', email: 'a@example.org', age: 3 } }),
          'contact.age',
        ],
        ['offer_id not a string', () => s.validLead({ offer_id: 5 }), 'offer_id'],
      ];

      it.each(cases)('%s', async (_name, body, field) => {
        const res = await s.postLead(body());
        expect(res.status).toBe(400);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.body.code).toBe('validation_failed');
        expect(Array.isArray(res.body.errors)).toBe(true);
        const errors = res.body.errors ?? [];
        const fields = errors.map((e) => e.field);
        expect(fields.some((f) => f === field || f.startsWith(`${field}.`))).toBe(true);
        for (const e of errors) expect(typeof e.message).toBe('string');
        expect(await eventsOf(s.t, s.tenant.orgId)).toHaveLength(0);
      });

      it('accepts metadata at the limits: 50 keys, exactly 4096 bytes', async () => {
        const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
        expect((await s.postLead(s.validLead({ metadata: fifty }))).status).toBe(200);
        const exact = { big: 'x'.repeat(4086) };
        expect(Buffer.byteLength(JSON.stringify(exact))).toBe(4096);
        expect((await s.postLead(s.validLead({ metadata: exact }))).status).toBe(200);
      });

      it('accepts nested metadata', async () => {
        const res = await s.postLead(s.validLead({ metadata: { a: { b: [1, 2, { c: true }] } } }));
        expect(res.status).toBe(200);
      });
    });

    it('404 referrer_not_found for an unknown referrer and for another tenant’s user', async () => {
      const unknown = await s.postLead(s.validLead({ referrer_user_id: UNKNOWN_USR }));
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('referrer_not_found');

      const other = await createTenant(s.t);
      const stranger = await upsertUser(s.t, other.key);
      const foreign = await s.postLead(s.validLead({ referrer_user_id: stranger.serviceUserId }));
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('referrer_not_found');
      expect(await eventsOf(s.t, s.tenant.orgId)).toHaveLength(0);
    });

    it('404 offer_not_found for an unknown offer and for another tenant’s offer', async () => {
      const unknown = await s.postLead(s.validLead({ offer_id: 'ofr_01ARZ3NDEKTSV4RRFFQ69G5FAV' }));
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('offer_not_found');

      const other = await createTenant(s.t);
      const foreignOffer = await s.createOffer(other.slug, { name: 'Theirs' });
      const foreign = await s.postLead(s.validLead({ offer_id: foreignOffer.offer_id }));
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('offer_not_found');
      expect(await eventsOf(s.t, s.tenant.orgId)).toHaveLength(0);
    });

    it('422 self_referral when the contact email is the referrer’s own (any case)', async () => {
      const res = await s.postLead(
        s.validLead({ contact: { name: 'Me', email: 'partner@EXAMPLE.com' } }),
      );
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('self_referral');
      expect(await eventsOf(s.t, s.tenant.orgId)).toHaveLength(0);
      const [{ count }] = await s.t.db.query(
        `SELECT count(*)::int AS count FROM leads WHERE tenant_id = $1`,
        [s.tenant.orgId],
      );
      expect(count).toBe(0);
    });

    it('401 invalid_tenant_key without a valid key', async () => {
      const res = await s.postLead(s.validLead(), 'tk_nope');
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('invalid_tenant_key');
    });
  });

  describe('lead bonus', () => {
    it('accrues the tenant’s lead_bonus_kopecks as a pending bonus and emits bonus.pending', async () => {
      const paying = await createTenant(s.t, { program: { lead_bonus_kopecks: 500 } });
      const partner = await upsertUser(s.t, paying.key);
      const leadId = await createLead(s.t, paying.key, partner.serviceUserId);

      const bonuses = await s.bonusesOf(paying.orgId);
      expect(bonuses).toEqual([
        {
          id: expect.stringMatching(BONUS_ID),
          status: 'pending',
          source_type: 'lead',
          source_id: leadId,
          tier: null,
          amount: 500,
          currency: 'RUB',
          reason: null,
          service_user_id: partner.serviceUserId,
        },
      ]);
      const events = await eventsOf(s.t, paying.orgId);
      expect(events.map((e) => e.event_type)).toEqual(['lead.created', 'bonus.pending']);
      const pending = events[1];
      expect(pending.event_id).toMatch(EVENT_ID);
      expect(pending.occurred_at).toMatch(ISO_MS_UTC);
      expect(pending.payload).toStrictEqual({
        bonus_id: bonuses[0].id,
        user_id: partner.serviceUserId,
        amount_kopecks: 500,
        currency: 'RUB',
        source_type: 'lead',
        source_id: leadId,
      });

      const list = await adminApi(s.t, s.t.adminToken).raw(
        'get',
        `/admin/v1/tenants/${paying.slug}/bonuses`,
      );
      expect(list.body.items).toEqual([
        expect.objectContaining({
          bonus_id: bonuses[0].id,
          source_type: 'lead',
          source_id: leadId,
          tier: null,
          status: 'pending',
          amount_kopecks: 500,
        }),
      ]);
    });

    it('pays no lead bonus with the default program (lead_bonus_kopecks 0)', async () => {
      await createLead(s.t, s.tenant.key, s.referrer.serviceUserId);
      expect(await s.bonusesOf(s.tenant.orgId)).toEqual([]);
      expect(await eventsOf(s.t, s.tenant.orgId, 'bonus.pending')).toHaveLength(0);
    });

    it('pays the offer’s own lead bonus instead of the tenant’s for leads with that offer', async () => {
      const paying = await createTenant(s.t, { program: { lead_bonus_kopecks: 500 } });
      const partner = await upsertUser(s.t, paying.key);
      const offerRes = await adminApi(s.t, s.t.adminToken).raw(
        'post',
        `/admin/v1/tenants/${paying.slug}/offers`,
        {
          name: 'Premium',
          url: 'https://acme.example/premium',
          program: { lead_bonus_kopecks: 700 },
        },
      );
      expect(offerRes.status).toBe(201);
      expect(offerRes.body).toEqual({
        offer_id: expect.stringMatching(/^ofr_[0-9A-Z]{26}$/),
        name: 'Premium',
        url: 'https://acme.example/premium',
        program: {
          lead_bonus_kopecks: 700,
          tiers: [
            { tier: 'referrer', percent_bp: 1000 },
            { tier: 'upline_1', percent_bp: 300 },
          ],
          grace_period_hours: 336,
        },
        created_at: expect.stringMatching(ISO_MS_UTC),
      });
      // An offer with no program of its own: the tenant's lead bonus applies.
      const plain = await s.createOffer(paying.slug, { name: 'Plain' });

      const withOffer = await createLead(s.t, paying.key, partner.serviceUserId, {
        offer_id: offerRes.body.offer_id,
      });
      const withPlain = await createLead(s.t, paying.key, partner.serviceUserId, {
        offer_id: plain.offer_id,
      });
      const without = await createLead(s.t, paying.key, partner.serviceUserId);
      const amounts = Object.fromEntries(
        (await s.bonusesOf(paying.orgId)).map((b) => [b.source_id, b.amount]),
      );
      expect(amounts).toEqual({ [withOffer]: 700, [withPlain]: 500, [without]: 500 });
    });

    it('accrues no lead bonus for a deactivated referrer (the lead is still registered)', async () => {
      const paying = await createTenant(s.t, { program: { lead_bonus_kopecks: 500 } });
      const partner = await upsertUser(s.t, paying.key);
      const off = await adminApi(s.t, s.t.adminToken).raw(
        'post',
        `/admin/v1/tenants/${paying.slug}/users/${partner.memberId}/deactivate`,
      );
      expect(off.status).toBe(200);
      const res = await s.postLead(
        s.validLead({ referrer_user_id: partner.serviceUserId }),
        paying.key,
      );
      expect(res.status).toBe(200);
      expect(await s.bonusesOf(paying.orgId)).toEqual([]);
      expect((await eventsOf(s.t, paying.orgId)).map((e) => e.event_type)).toEqual([
        'lead.created',
      ]);
    });
  });
});
