import { createLead, eventsOf } from '../factories/money.factory';
import { createStaffToken, createTenant, TestTenant } from '../factories/tenants.factory';
import { upsertUser, UpsertedUser } from '../factories/users.factory';
import { createTestApp, TestApp } from '../utils/create-test-app';

const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const LEAD_ID = /^lead_[0-9A-Z]{26}$/;
const EVENT_ID = /^evt_[0-9A-Z]{26}$/;
const BONUS_ID = /^bns_[0-9A-Z]{26}$/;
/** Well-formed but nobody's. */
const UNKNOWN_USR = 'usr_01ARZ3NDEKTSV4RRFFQ69G5FAV';

// Real PostgreSQL, Redis and concurrency: allow for a loaded machine (the project-level
// testTimeout in jest.config.js is not applied by Jest, which leaves its 5 s default).
jest.setTimeout(30_000);

describe('leads: POST /federation/v1/leads and lead status', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let referrer: UpsertedUser;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    tenant = await createTenant(t);
    referrer = await upsertUser(t, tenant.key, { email: 'Partner@Example.com', full_name: 'P' });
  });

  const postLead = (body: Record<string, unknown>, key = tenant.key) =>
    t.http().post('/federation/v1/leads').set('X-Service-Tenant-Key', key).send(body);
  const setStatus = (leadId: string, body: Record<string, unknown>, key = tenant.key) =>
    t
      .http()
      .post(`/federation/v1/leads/${leadId}/status`)
      .set('X-Service-Tenant-Key', key)
      .send(body);
  const validLead = (overrides: Record<string, unknown> = {}) => ({
    referrer_user_id: referrer.serviceUserId,
    contact: { name: 'Ivan Petrov', email: 'ivan@example.org' },
    ...overrides,
  });
  const bonusesOf = (orgId: string): Promise<Record<string, unknown>[]> =>
    t.db.query(
      `SELECT id, status, source_type, source_id, tier, amount_kopecks::int AS amount, currency,
              reason, service_user_id
         FROM bonuses WHERE tenant_id = $1 ORDER BY created_at, id`,
      [orgId],
    );
  const createOffer = async (slug: string, body: Record<string, unknown>) => {
    const res = await t
      .http()
      .post(`/admin/v1/tenants/${slug}/offers`)
      .set('Authorization', `Bearer ${t.adminToken}`)
      .send(body);
    expect(res.status).toBe(201);
    return res.body as { offer_id: string };
  };

  describe('create', () => {
    it('answers 200 {lead_id, status: new} and stores the lead', async () => {
      const res = await postLead(validLead({ metadata: { utm_source: 'mail' } }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ lead_id: expect.stringMatching(LEAD_ID), status: 'new' });
      const [row] = await t.db.query(
        `SELECT status, source, referrer_user_id, contact_email, metadata FROM leads
          WHERE tenant_id = $1 AND id = $2`,
        [tenant.orgId, res.body.lead_id],
      );
      expect(row).toEqual({
        status: 'new',
        source: 'federation',
        referrer_user_id: referrer.serviceUserId,
        contact_email: 'ivan@example.org',
        metadata: { utm_source: 'mail' },
      });
    });

    it('accepts a phone instead of an email', async () => {
      const res = await postLead(
        validLead({ contact: { name: 'Ivan', phone: '+7 900 123-45-67' } }),
      );
      expect(res.status).toBe(200);
      const [created] = await eventsOf(t, tenant.orgId, 'lead.created');
      expect((created.payload as { contact: unknown }).contact).toEqual({
        name: 'Ivan',
        email: null,
      });
    });

    it('emits lead.created with exactly the seed payload (+ source) in a full envelope', async () => {
      const res = await postLead(validLead({ metadata: { campaign: 'spring', n: 3 } }));
      const events = await eventsOf(t, tenant.orgId);
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
        referrer_user_id: referrer.serviceUserId,
        contact: { name: 'Ivan Petrov', email: 'ivan@example.org' },
        offer_id: null,
        metadata: { campaign: 'spring', n: 3 },
        source: 'federation',
      });
    });

    it('defaults metadata to {} and carries the offer_id', async () => {
      const offer = await createOffer(tenant.slug, { name: 'Plan' });
      const res = await postLead(validLead({ offer_id: offer.offer_id }));
      expect(res.status).toBe(200);
      const [event] = await eventsOf(t, tenant.orgId, 'lead.created');
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
          () => validLead({ referrer_user_id: 'mbr_123' }),
          'referrer_user_id',
        ],
        ['missing contact', () => validLead({ contact: undefined }), 'contact'],
        [
          'contact.name missing',
          () => validLead({ contact: { email: 'a@example.org' } }),
          'contact.name',
        ],
        [
          'contact.name empty',
          () => validLead({ contact: { name: '', email: 'a@example.org' } }),
          'contact.name',
        ],
        [
          'contact.name over 200',
          () => validLead({ contact: { name: 'n'.repeat(201), email: 'a@example.org' } }),
          'contact.name',
        ],
        ['neither email nor phone', () => validLead({ contact: { name: 'A' } }), 'contact'],
        [
          'bad email',
          () => validLead({ contact: { name: 'A', email: 'not-an-email' } }),
          'contact.email',
        ],
        [
          'bad phone',
          () => validLead({ contact: { name: 'A', phone: 'call me' } }),
          'contact.phone',
        ],
        [
          'metadata with 51 keys',
          () =>
            validLead({
              metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])),
            }),
          'metadata',
        ],
        [
          'metadata over 4 KiB',
          () => validLead({ metadata: { big: 'x'.repeat(4087) } }),
          'metadata',
        ],
        [
          'metadata over 4 KiB in UTF-8 bytes (fewer characters)',
          () => validLead({ metadata: { big: 'я'.repeat(2044) } }),
          'metadata',
        ],
        ['metadata an array', () => validLead({ metadata: ['a'] }), 'metadata'],
        ['metadata a string', () => validLead({ metadata: 'x' }), 'metadata'],
        ['unknown field', () => validLead({ status: 'converted' }), 'status'],
        [
          'unknown field inside contact',
          () => validLead({ contact: { name: 'A', email: 'a@example.org', age: 3 } }),
          'contact.age',
        ],
        ['offer_id not a string', () => validLead({ offer_id: 5 }), 'offer_id'],
      ];

      it.each(cases)('%s', async (_name, body, field) => {
        const res = await postLead(body());
        expect(res.status).toBe(400);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.body.code).toBe('validation_failed');
        expect(Array.isArray(res.body.errors)).toBe(true);
        const fields: string[] = res.body.errors.map((e: { field: string }) => e.field);
        expect(fields.some((f) => f === field || f.startsWith(`${field}.`))).toBe(true);
        for (const e of res.body.errors) expect(typeof e.message).toBe('string');
        expect(await eventsOf(t, tenant.orgId)).toHaveLength(0);
      });

      it('accepts metadata at the limits: 50 keys, exactly 4096 bytes', async () => {
        const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
        expect((await postLead(validLead({ metadata: fifty }))).status).toBe(200);
        const exact = { big: 'x'.repeat(4086) };
        expect(Buffer.byteLength(JSON.stringify(exact))).toBe(4096);
        expect((await postLead(validLead({ metadata: exact }))).status).toBe(200);
      });

      it('accepts nested metadata', async () => {
        const res = await postLead(validLead({ metadata: { a: { b: [1, 2, { c: true }] } } }));
        expect(res.status).toBe(200);
      });
    });

    it('404 referrer_not_found for an unknown referrer and for another tenant’s user', async () => {
      const unknown = await postLead(validLead({ referrer_user_id: UNKNOWN_USR }));
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('referrer_not_found');

      const other = await createTenant(t);
      const stranger = await upsertUser(t, other.key);
      const foreign = await postLead(validLead({ referrer_user_id: stranger.serviceUserId }));
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('referrer_not_found');
      expect(await eventsOf(t, tenant.orgId)).toHaveLength(0);
    });

    it('404 offer_not_found for an unknown offer and for another tenant’s offer', async () => {
      const unknown = await postLead(validLead({ offer_id: 'ofr_01ARZ3NDEKTSV4RRFFQ69G5FAV' }));
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('offer_not_found');

      const other = await createTenant(t);
      const foreignOffer = await createOffer(other.slug, { name: 'Theirs' });
      const foreign = await postLead(validLead({ offer_id: foreignOffer.offer_id }));
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('offer_not_found');
      expect(await eventsOf(t, tenant.orgId)).toHaveLength(0);
    });

    it('422 self_referral when the contact email is the referrer’s own (any case)', async () => {
      const res = await postLead(
        validLead({ contact: { name: 'Me', email: 'partner@EXAMPLE.com' } }),
      );
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('self_referral');
      expect(await eventsOf(t, tenant.orgId)).toHaveLength(0);
      const [{ count }] = await t.db.query(
        `SELECT count(*)::int AS count FROM leads WHERE tenant_id = $1`,
        [tenant.orgId],
      );
      expect(count).toBe(0);
    });

    it('401 invalid_tenant_key without a valid key', async () => {
      const res = await postLead(validLead(), 'tk_nope');
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('invalid_tenant_key');
    });
  });

  describe('lead bonus', () => {
    it('accrues the tenant’s lead_bonus_kopecks as a pending bonus and emits bonus.pending', async () => {
      const paying = await createTenant(t, { program: { lead_bonus_kopecks: 500 } });
      const partner = await upsertUser(t, paying.key);
      const leadId = await createLead(t, paying.key, partner.serviceUserId);

      const bonuses = await bonusesOf(paying.orgId);
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
      const events = await eventsOf(t, paying.orgId);
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

      const list = await t
        .http()
        .get(`/admin/v1/tenants/${paying.slug}/bonuses`)
        .set('Authorization', `Bearer ${t.adminToken}`);
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
      await createLead(t, tenant.key, referrer.serviceUserId);
      expect(await bonusesOf(tenant.orgId)).toEqual([]);
      expect(await eventsOf(t, tenant.orgId, 'bonus.pending')).toHaveLength(0);
    });

    it('pays the offer’s own lead bonus instead of the tenant’s for leads with that offer', async () => {
      const paying = await createTenant(t, { program: { lead_bonus_kopecks: 500 } });
      const partner = await upsertUser(t, paying.key);
      const offerRes = await t
        .http()
        .post(`/admin/v1/tenants/${paying.slug}/offers`)
        .set('Authorization', `Bearer ${t.adminToken}`)
        .send({
          name: 'Premium',
          url: 'https://acme.example/premium',
          program: { lead_bonus_kopecks: 700 },
        });
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
      const plain = await createOffer(paying.slug, { name: 'Plain' });

      const withOffer = await createLead(t, paying.key, partner.serviceUserId, {
        offer_id: offerRes.body.offer_id,
      });
      const withPlain = await createLead(t, paying.key, partner.serviceUserId, {
        offer_id: plain.offer_id,
      });
      const without = await createLead(t, paying.key, partner.serviceUserId);
      const amounts = Object.fromEntries(
        (await bonusesOf(paying.orgId)).map((b) => [b.source_id, b.amount]),
      );
      expect(amounts).toEqual({ [withOffer]: 700, [withPlain]: 500, [without]: 500 });
    });

    it('accrues no lead bonus for a deactivated referrer (the lead is still registered)', async () => {
      const paying = await createTenant(t, { program: { lead_bonus_kopecks: 500 } });
      const partner = await upsertUser(t, paying.key);
      const off = await t
        .http()
        .post(`/admin/v1/tenants/${paying.slug}/users/${partner.memberId}/deactivate`)
        .set('Authorization', `Bearer ${t.adminToken}`);
      expect(off.status).toBe(200);
      const res = await postLead(
        validLead({ referrer_user_id: partner.serviceUserId }),
        paying.key,
      );
      expect(res.status).toBe(200);
      expect(await bonusesOf(paying.orgId)).toEqual([]);
      expect((await eventsOf(t, paying.orgId)).map((e) => e.event_type)).toEqual(['lead.created']);
    });
  });

  describe('status', () => {
    it('moves new → processed → rejected and answers the lead', async () => {
      const leadId = await createLead(t, tenant.key, referrer.serviceUserId);
      const processed = await setStatus(leadId, { status: 'processed' });
      expect(processed.status).toBe(200);
      expect(processed.body).toEqual({
        lead_id: leadId,
        status: 'processed',
        source: 'federation',
        referrer_user_id: referrer.serviceUserId,
        offer_id: null,
        created_at: expect.stringMatching(ISO_MS_UTC),
        updated_at: expect.stringMatching(ISO_MS_UTC),
      });
      expect(Date.parse(processed.body.updated_at)).toBeGreaterThanOrEqual(
        Date.parse(processed.body.created_at),
      );
      const rejected = await setStatus(leadId, { status: 'rejected', reason: 'no answer' });
      expect(rejected.status).toBe(200);
      expect(rejected.body).toMatchObject({ lead_id: leadId, status: 'rejected' });
      const [row] = await t.db.query(
        `SELECT status, status_reason FROM leads WHERE tenant_id = $1 AND id = $2`,
        [tenant.orgId, leadId],
      );
      expect(row).toEqual({ status: 'rejected', status_reason: 'no answer' });
    });

    it('moves new → rejected directly', async () => {
      const leadId = await createLead(t, tenant.key, referrer.serviceUserId);
      const res = await setStatus(leadId, { status: 'rejected' });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('rejected');
    });

    it('rejected is final: every further request is 409 invalid_transition', async () => {
      const leadId = await createLead(t, tenant.key, referrer.serviceUserId);
      expect((await setStatus(leadId, { status: 'rejected' })).status).toBe(200);
      for (const status of ['new', 'processed', 'rejected', 'converted']) {
        const res = await setStatus(leadId, { status });
        expect(res.status).toBe(409);
        expect(res.body.code).toBe('invalid_transition');
      }
    });

    it('converted is final: a converted lead can be neither processed nor rejected', async () => {
      const leadId = await createLead(t, tenant.key, referrer.serviceUserId);
      const conv = await t
        .http()
        .post('/federation/v1/conversions/register')
        .set('X-Service-Tenant-Key', tenant.key)
        .send({ lead_id: leadId, amount_kopecks: 1000, currency: 'RUB', external_order_id: 'o1' });
      expect(conv.status).toBe(200);
      for (const status of ['new', 'processed', 'rejected', 'converted']) {
        const res = await setStatus(leadId, { status });
        expect(res.status).toBe(409);
        expect(res.body.code).toBe('invalid_transition');
      }
    });

    it('processed → processed and back to new are refused', async () => {
      const leadId = await createLead(t, tenant.key, referrer.serviceUserId);
      expect((await setStatus(leadId, { status: 'processed' })).status).toBe(200);
      for (const status of ['processed', 'new']) {
        const res = await setStatus(leadId, { status });
        expect(res.status).toBe(409);
        expect(res.body.code).toBe('invalid_transition');
      }
    });

    it('requesting converted is 409 invalid_transition (only a conversion converts)', async () => {
      const leadId = await createLead(t, tenant.key, referrer.serviceUserId);
      const res = await setStatus(leadId, { status: 'converted' });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('invalid_transition');
      const [row] = await t.db.query(`SELECT status FROM leads WHERE tenant_id = $1 AND id = $2`, [
        tenant.orgId,
        leadId,
      ]);
      expect(row.status).toBe('new');
    });

    it('400 for an unknown status, a missing status or an unknown field', async () => {
      const leadId = await createLead(t, tenant.key, referrer.serviceUserId);
      for (const body of [
        { status: 'done' },
        {},
        { status: 'all' },
        { status: 'processed', x: 1 },
      ]) {
        const res = await setStatus(leadId, body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation_failed');
        expect(res.body.errors.length).toBeGreaterThan(0);
      }
    });

    it('404 lead_not_found for an unknown lead', async () => {
      const res = await setStatus('lead_01ARZ3NDEKTSV4RRFFQ69G5FAV', { status: 'processed' });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('lead_not_found');
    });

    it('rejecting a lead rejects its pending lead bonus (lead_rejected) and emits bonus.rejected', async () => {
      const paying = await createTenant(t, { program: { lead_bonus_kopecks: 500 } });
      const partner = await upsertUser(t, paying.key);
      const leadId = await createLead(t, paying.key, partner.serviceUserId);
      const [bonus] = await bonusesOf(paying.orgId);

      const res = await setStatus(leadId, { status: 'rejected', reason: 'spam' }, paying.key);
      expect(res.status).toBe(200);
      const [after] = await bonusesOf(paying.orgId);
      expect(after).toMatchObject({ id: bonus.id, status: 'rejected', reason: 'lead_rejected' });

      const rejected = await eventsOf(t, paying.orgId, 'bonus.rejected');
      expect(rejected).toHaveLength(1);
      expect(rejected[0].payload).toStrictEqual({
        bonus_id: bonus.id,
        user_id: partner.serviceUserId,
        amount_kopecks: 500,
        rejected_at: expect.stringMatching(ISO_MS_UTC),
        reason: 'lead_rejected',
      });
    });

    it('rejecting a lead leaves an already approved lead bonus alone', async () => {
      const paying = await createTenant(t, { program: { lead_bonus_kopecks: 500 } });
      const partner = await upsertUser(t, paying.key);
      const leadId = await createLead(t, paying.key, partner.serviceUserId);
      const [bonus] = await bonusesOf(paying.orgId);
      const approve = await t
        .http()
        .post(`/admin/v1/tenants/${paying.slug}/bonuses/${bonus.id as string}/approve`)
        .set('Authorization', `Bearer ${t.adminToken}`);
      expect(approve.status).toBe(200);

      expect((await setStatus(leadId, { status: 'rejected' }, paying.key)).status).toBe(200);
      const [after] = await bonusesOf(paying.orgId);
      expect(after.status).toBe('approved');
      expect(await eventsOf(t, paying.orgId, 'bonus.rejected')).toHaveLength(0);
    });

    it('processing a lead leaves its pending lead bonus pending', async () => {
      const paying = await createTenant(t, { program: { lead_bonus_kopecks: 500 } });
      const partner = await upsertUser(t, paying.key);
      const leadId = await createLead(t, paying.key, partner.serviceUserId);
      expect((await setStatus(leadId, { status: 'processed' }, paying.key)).status).toBe(200);
      const [after] = await bonusesOf(paying.orgId);
      expect(after.status).toBe('pending');
    });
  });

  describe('staff lead status: POST /admin/v1/tenants/:slug/leads/:id/status', () => {
    it('a manager may change it; the audit log records the action and the actor', async () => {
      const manager = await createStaffToken(t, tenant.slug, 'manager');
      const leadId = await createLead(t, tenant.key, referrer.serviceUserId);
      const res = await t
        .http()
        .post(`/admin/v1/tenants/${tenant.slug}/leads/${leadId}/status`)
        .set('Authorization', `Bearer ${manager}`)
        .send({ status: 'rejected', reason: 'duplicate' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ lead_id: leadId, status: 'rejected' });

      const audit = await t
        .http()
        .get(`/admin/v1/tenants/${tenant.slug}/audit-log`)
        .query({ action: 'lead.status_changed' })
        .set('Authorization', `Bearer ${manager}`);
      expect(audit.status).toBe(200);
      expect(audit.body.items).toEqual([
        {
          id: expect.any(String),
          at: expect.stringMatching(ISO_MS_UTC),
          actor: { type: 'staff', name: `manager of ${tenant.slug}` },
          action: 'lead.status_changed',
          target_type: 'lead',
          target_id: leadId,
          details: expect.objectContaining({ status: 'rejected', reason: 'duplicate' }),
        },
      ]);
    });

    it('a viewer gets 403 forbidden and nothing changes', async () => {
      const viewer = await createStaffToken(t, tenant.slug, 'viewer');
      const leadId = await createLead(t, tenant.key, referrer.serviceUserId);
      const res = await t
        .http()
        .post(`/admin/v1/tenants/${tenant.slug}/leads/${leadId}/status`)
        .set('Authorization', `Bearer ${viewer}`)
        .send({ status: 'processed' });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('forbidden');
      const [row] = await t.db.query(`SELECT status FROM leads WHERE tenant_id = $1 AND id = $2`, [
        tenant.orgId,
        leadId,
      ]);
      expect(row.status).toBe('new');
    });

    it('refuses invalid transitions the same way (409) and unknown leads (404)', async () => {
      const manager = await createStaffToken(t, tenant.slug, 'manager');
      const leadId = await createLead(t, tenant.key, referrer.serviceUserId);
      const staff = (id: string, status: string) =>
        t
          .http()
          .post(`/admin/v1/tenants/${tenant.slug}/leads/${id}/status`)
          .set('Authorization', `Bearer ${manager}`)
          .send({ status });
      expect((await staff(leadId, 'converted')).body.code).toBe('invalid_transition');
      expect((await staff('lead_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'processed')).body.code).toBe(
        'lead_not_found',
      );
    });
  });

  describe('bad input: kept exactly or refused with a clear 4xx, never a 5xx', () => {
    it('keeps metadata exactly as sent, whatever its key names', async () => {
      // Names that happen to exist on Object.prototype are ordinary keys in a JSON object.
      const metadata = JSON.parse(
        '{"toString":"t","valueOf":1,"hasOwnProperty":"h","nested":{"toString":"z","b":1},"plain":"kept"}',
      ) as Record<string, unknown>;
      const res = await postLead(validLead({ metadata }));
      expect(res.status).toBe(200);
      const [event] = await eventsOf(t, tenant.orgId, 'lead.created');
      expect(event.payload.metadata).toStrictEqual(metadata);
      const [row] = await t.db.query(
        `SELECT metadata FROM leads WHERE tenant_id = $1 AND id = $2`,
        [tenant.orgId, res.body.lead_id],
      );
      expect(row.metadata).toStrictEqual(metadata);
    });

    it.each(['constructor', 'prototype', '__proto__'])(
      'refuses the reserved key %s with a named 400 instead of dropping it',
      async (key) => {
        const metadata = JSON.parse(`{"ok":1,"nested":{"${key}":"x"}}`) as Record<string, unknown>;
        const res = await postLead(validLead({ metadata }));
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation_failed');
        expect(res.body.errors).toEqual([
          { field: `metadata.nested.${key}`, message: expect.stringContaining('reserved key') },
        ]);
      },
    );

    it.each([
      [
        'a NUL character in contact.name',
        () => validLead({ contact: { name: 'a\u0000b', email: 'a@example.org' } }),
      ],
      ['a NUL character in a metadata value', () => validLead({ metadata: { note: 'x\u0000y' } })],
    ])('400 validation_failed for %s', async (_name, body) => {
      const res = await postLead(body());
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(await eventsOf(t, tenant.orgId)).toHaveLength(0);
    });

    it('a NUL character in a lead id is a 4xx, not a 5xx', async () => {
      const res = await setStatus('lead_%00', { status: 'processed' });
      expect([400, 404]).toContain(res.status);
      const staff = await t
        .http()
        .post(`/admin/v1/tenants/${tenant.slug}/leads/lead_%00/status`)
        .set('Authorization', `Bearer ${t.adminToken}`)
        .send({ status: 'processed' });
      expect([400, 404]).toContain(staff.status);
    });
  });

  describe('tenant isolation', () => {
    it('tenant B cannot see or change tenant A’s lead: 404 lead_not_found, as if missing', async () => {
      const leadId = await createLead(t, tenant.key, referrer.serviceUserId);
      const other = await createTenant(t);

      const foreign = await setStatus(leadId, { status: 'rejected' }, other.key);
      const missing = await setStatus(
        'lead_01ARZ3NDEKTSV4RRFFQ69G5FAV',
        { status: 'rejected' },
        other.key,
      );
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('lead_not_found');
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe(foreign.body.code);

      const conv = await t
        .http()
        .post('/federation/v1/conversions/register')
        .set('X-Service-Tenant-Key', other.key)
        .send({ lead_id: leadId, amount_kopecks: 1000, currency: 'RUB', external_order_id: 'x' });
      expect(conv.status).toBe(404);
      expect(conv.body.code).toBe('lead_not_found');

      const otherStaff = await createStaffToken(t, other.slug, 'owner');
      const viaOwnSlug = await t
        .http()
        .post(`/admin/v1/tenants/${other.slug}/leads/${leadId}/status`)
        .set('Authorization', `Bearer ${otherStaff}`)
        .send({ status: 'rejected' });
      expect(viaOwnSlug.status).toBe(404);
      expect(viaOwnSlug.body.code).toBe('lead_not_found');
      const viaForeignSlug = await t
        .http()
        .post(`/admin/v1/tenants/${tenant.slug}/leads/${leadId}/status`)
        .set('Authorization', `Bearer ${otherStaff}`)
        .send({ status: 'rejected' });
      expect(viaForeignSlug.status).toBe(403);

      const [row] = await t.db.query(`SELECT status FROM leads WHERE tenant_id = $1 AND id = $2`, [
        tenant.orgId,
        leadId,
      ]);
      expect(row.status).toBe('new');
      expect(await eventsOf(t, other.orgId)).toHaveLength(0);
    });
  });
});
