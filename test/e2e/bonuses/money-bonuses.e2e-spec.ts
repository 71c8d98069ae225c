/**
 * Bonuses over the Admin API (list, manual, approve, reject), bad input, and the events of the
 * seed's section 6 exactly. Setup: money-suite.
 */
import { createLead, eventsOf, registerConversion } from '../../factories/money.factory';
import { createStaffToken, createTenant } from '../../factories/tenants.factory';
import { createChain, upsertUser } from '../../factories/users.factory';
import { BONUS_ID, ISO_MS_UTC, keysOf, moneySuite, TIERS, UNKNOWN } from '../../utils/money-suite';

const BONUS_FIELDS = [
  'bonus_id',
  'user_id',
  'amount_kopecks',
  'currency',
  'source_type',
  'source_id',
  'status',
  'tier',
  'approved_at',
  'rejected_at',
  'reversed_at',
  'reason',
  'due_at',
  'created_at',
  'review',
  'rule',
  'explanation',
].sort();
/** Seed section 6 (with the documented `source` and `written_off` extensions): the payload keys, exactly. */
const PAYLOAD_KEYS: Record<string, string[]> = {
  'lead.created': ['lead_id', 'referrer_user_id', 'contact', 'offer_id', 'metadata', 'source'],
  'bonus.pending': [
    'bonus_id',
    'user_id',
    'amount_kopecks',
    'currency',
    'source_type',
    'source_id',
  ],
  'bonus.approved': ['bonus_id', 'user_id', 'amount_kopecks', 'approved_at'],
  'bonus.rejected': ['bonus_id', 'user_id', 'amount_kopecks', 'rejected_at', 'reason'],
  'conversion.cascaded': ['conversion_id', 'lead_id', 'amount_kopecks', 'cascaded_bonuses'],
  'conversion.reversed': ['conversion_id', 'reversed_at', 'reason', 'written_off'],
};

describe('money: bonuses and their events', () => {
  const s = moneySuite();

  describe('bonuses admin', () => {
    const manual = (body: Record<string, unknown>, token = s.manager) =>
      s.admin(token).createBonus(s.tenant.slug, {
        currency: 'RUB',
        reason: 'campaign',
        ...body,
      });

    it('lists bonuses paginated, newest first, with exactly the documented fields', async () => {
      const { leadId, chain } = await s.chainWithLead(3);
      const conv = await registerConversion(s.t, s.tenant.key, {
        lead_id: leadId,
        amount_kopecks: 100_000,
        external_order_id: 'l-1',
      });
      const viewer = await createStaffToken(s.t, s.tenant.slug, 'viewer');
      const page1 = await s.listBonuses({ page_size: 2 }, viewer);
      expect(page1.status).toBe(200);
      expect(keysOf(page1.body)).toEqual(['items', 'pagination']);
      expect(page1.body.pagination).toEqual({ page: 1, page_size: 2, total: 3, total_pages: 2 });
      expect(page1.body.items).toHaveLength(2);
      for (const item of page1.body.items) expect(keysOf(item)).toEqual(BONUS_FIELDS);
      const page2 = await s.listBonuses({ page_size: 2, page: 2 }, viewer);
      expect(page2.body.pagination).toEqual({ page: 2, page_size: 2, total: 3, total_pages: 2 });
      expect(page2.body.items).toHaveLength(1);
      const all = [...page1.body.items, ...page2.body.items];
      expect(all.map((b) => b.bonus_id).sort()).toEqual(
        conv.cascaded_bonuses.map((b) => b.bonus_id).sort(),
      );
      const created = all.map((b) => Date.parse(b.created_at));
      expect(created).toEqual([...created].sort((a, b) => b - a));

      const referrerBonus = all.find((b) => b.tier === 'referrer')!;
      expect(referrerBonus).toEqual({
        bonus_id: conv.cascaded_bonuses[0].bonus_id,
        user_id: chain[2].serviceUserId,
        amount_kopecks: 10_000,
        currency: 'RUB',
        source_type: 'conversion',
        source_id: conv.conversion_id,
        status: 'pending',
        tier: 'referrer',
        approved_at: null,
        rejected_at: null,
        reversed_at: null,
        reason: null,
        due_at: expect.stringMatching(ISO_MS_UTC),
        created_at: expect.stringMatching(ISO_MS_UTC),
        review: null,
        rule: conv.cascaded_bonuses[0].rule,
        explanation: '10\u00a0% от 1\u00a0000,00\u00a0₽',
      });
      // The default grace period: 336 hours after creation.
      expect(Date.parse(referrerBonus.due_at) - Date.parse(referrerBonus.created_at)).toBe(
        336 * 3600 * 1000,
      );

      const past = await s.listBonuses({ page: 3, page_size: 2 }, viewer);
      expect(past.body.items).toEqual([]);
      expect(past.body.pagination.total).toBe(3);
    });

    it('filters by status and by user_id', async () => {
      const { leadId, chain } = await s.chainWithLead(2);
      const conv = await registerConversion(s.t, s.tenant.key, {
        lead_id: leadId,
        amount_kopecks: 100_000,
        external_order_id: 'f-1',
      });
      const [ref, up] = conv.cascaded_bonuses;
      await s.approve(ref.bonus_id);
      const approved = await s.listBonuses({ status: 'approved' });
      expect(approved.body.items.map((b) => b.bonus_id)).toEqual([ref.bonus_id]);
      expect(approved.body.pagination.total).toBe(1);
      const pending = await s.listBonuses({ status: 'pending' });
      expect(pending.body.items.map((b) => b.bonus_id)).toEqual([up.bonus_id]);
      const mine = await s.listBonuses({ user_id: chain[0].serviceUserId });
      expect(mine.body.items.map((b) => b.bonus_id)).toEqual([up.bonus_id]);
      const both = await s.listBonuses({ user_id: chain[0].serviceUserId, status: 'approved' });
      expect(both.body.items).toEqual([]);
      expect((await s.listBonuses({ user_id: UNKNOWN.user })).body.items).toEqual([]);
    });

    it.each([
      [{ status: 'settled' }],
      [{ status: 'all' }],
      [{ page: 0 }],
      [{ page_size: 101 }],
      [{ page_size: 'x' }],
      [{ user_id: 'mbr_1' }],
      [{ sort: 'amount' }],
    ])('400 for a bad list query %j', async (query) => {
      const res = await s.listBonuses(query);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    });

    it('another tenant’s bonuses are invisible and untouchable', async () => {
      const { leadId } = await s.chainWithLead(1);
      const conv = await registerConversion(s.t, s.tenant.key, {
        lead_id: leadId,
        amount_kopecks: 1000,
        external_order_id: 'iso',
      });
      const other = await createTenant(s.t);
      const otherManager = await createStaffToken(s.t, other.slug, 'manager');
      const list = await s.listBonuses({}, otherManager, other.slug);
      expect(list.body.items).toEqual([]);
      const foreign = await s
        .admin(otherManager)
        .approveBonus(other.slug, conv.cascaded_bonuses[0].bonus_id);
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('bonus_not_found');
      const crossSlug = await s.listBonuses({}, otherManager);
      expect(crossSlug.status).toBe(403);
      expect((await s.bonus(conv.cascaded_bonuses[0].bonus_id)).status).toBe('pending');
    });

    it('creates a manual bonus (201 pending, source_type manual) and audits it', async () => {
      const partner = await upsertUser(s.t, s.tenant.key);
      const res = await manual({ user_id: partner.serviceUserId, amount_kopecks: 25_000 });
      expect(res.status).toBe(201);
      expect(keysOf(res.body)).toEqual(BONUS_FIELDS);
      expect(res.body).toMatchObject({
        bonus_id: expect.stringMatching(BONUS_ID),
        user_id: partner.serviceUserId,
        amount_kopecks: 25_000,
        currency: 'RUB',
        source_type: 'manual',
        status: 'pending',
        tier: null,
        reason: 'campaign',
        approved_at: null,
      });
      expect(typeof res.body.source_id).toBe('string');
      const [pending] = await eventsOf(s.t, s.tenant.orgId, 'bonus.pending');
      expect(pending.payload).toStrictEqual({
        bonus_id: res.body.bonus_id,
        user_id: partner.serviceUserId,
        amount_kopecks: 25_000,
        currency: 'RUB',
        source_type: 'manual',
        source_id: res.body.source_id,
      });
      expect(await s.auditOf('bonus.created')).toEqual([
        expect.objectContaining({
          actor: { type: 'staff', name: `manager of ${s.tenant.slug}` },
          target_type: 'bonus',
          target_id: res.body.bonus_id,
        }),
      ]);

      const negative = await manual({ user_id: partner.serviceUserId, amount_kopecks: -5_000 });
      expect(negative.status).toBe(201);
      expect(negative.body).toMatchObject({ amount_kopecks: -5_000, status: 'pending' });
    });

    it('refuses bad manual bonuses: 0, non-integer, bad currency, no reason (400); unknown user (404)', async () => {
      const partner = await upsertUser(s.t, s.tenant.key);
      for (const patch of [
        { amount_kopecks: 0 },
        { amount_kopecks: 1.5 },
        { amount_kopecks: 100, currency: 'rub' },
        { amount_kopecks: 100, reason: undefined },
        { amount_kopecks: 100, user_id: partner.memberId.replace('mbr_', 'lead_') },
        { amount_kopecks: 100, status: 'approved' },
      ]) {
        const res = await manual({ user_id: partner.serviceUserId, ...patch });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation_failed');
      }
      const unknown = await manual({ user_id: UNKNOWN.user, amount_kopecks: 100 });
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('user_not_found');

      const other = await createTenant(s.t);
      const stranger = await upsertUser(s.t, other.key);
      const foreign = await manual({ user_id: stranger.serviceUserId, amount_kopecks: 100 });
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('user_not_found');
      expect((await s.counts()).bonuses).toBe(0);
    });

    it('a viewer may list but not create, approve or reject (403)', async () => {
      const partner = await upsertUser(s.t, s.tenant.key);
      const created = await manual({ user_id: partner.serviceUserId, amount_kopecks: 100 });
      const viewer = await createStaffToken(s.t, s.tenant.slug, 'viewer');
      expect((await s.listBonuses({}, viewer)).status).toBe(200);
      const attempts = [
        await manual({ user_id: partner.serviceUserId, amount_kopecks: 100 }, viewer),
        await s.approve(created.body.bonus_id, viewer),
        await s.reject(created.body.bonus_id, 'no', viewer),
      ];
      for (const res of attempts) {
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('forbidden');
      }
      expect((await s.bonus(created.body.bonus_id)).status).toBe('pending');
    });

    it('approves once: 200 + bonus.approved, then 409 invalid_transition; audited', async () => {
      const partner = await upsertUser(s.t, s.tenant.key);
      const created = await manual({ user_id: partner.serviceUserId, amount_kopecks: 1_234 });
      const res = await s.approve(created.body.bonus_id);
      expect(res.status).toBe(200);
      expect(keysOf(res.body)).toEqual(BONUS_FIELDS);
      expect(res.body).toMatchObject({
        bonus_id: created.body.bonus_id,
        status: 'approved',
        approved_at: expect.stringMatching(ISO_MS_UTC),
        rejected_at: null,
      });
      const events = await eventsOf(s.t, s.tenant.orgId, 'bonus.approved');
      expect(events).toHaveLength(1);
      expect(events[0].payload).toStrictEqual({
        bonus_id: created.body.bonus_id,
        user_id: partner.serviceUserId,
        amount_kopecks: 1_234,
        approved_at: res.body.approved_at,
      });

      const again = await s.approve(created.body.bonus_id);
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('invalid_transition');
      const rejectApproved = await s.reject(created.body.bonus_id, 'late');
      expect(rejectApproved.status).toBe(409);
      expect(rejectApproved.body.code).toBe('invalid_transition');
      expect(await eventsOf(s.t, s.tenant.orgId, 'bonus.approved')).toHaveLength(1);
      expect(await eventsOf(s.t, s.tenant.orgId, 'bonus.rejected')).toHaveLength(0);

      expect(await s.auditOf('bonus.approved')).toEqual([
        expect.objectContaining({
          actor: { type: 'staff', name: `manager of ${s.tenant.slug}` },
          target_type: 'bonus',
          target_id: created.body.bonus_id,
        }),
      ]);
    });

    it('rejects with a reason (required): 200 + bonus.rejected; audited', async () => {
      const partner = await upsertUser(s.t, s.tenant.key);
      const created = await manual({ user_id: partner.serviceUserId, amount_kopecks: -700 });
      for (const reason of [undefined, '']) {
        const noReason = await s.reject(created.body.bonus_id, reason);
        expect(noReason.status).toBe(400);
        expect(noReason.body.code).toBe('validation_failed');
      }
      expect((await s.bonus(created.body.bonus_id)).status).toBe('pending');

      const res = await s.reject(created.body.bonus_id, 'duplicate payout');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'rejected',
        reason: 'duplicate payout',
        rejected_at: expect.stringMatching(ISO_MS_UTC),
        approved_at: null,
      });
      const events = await eventsOf(s.t, s.tenant.orgId, 'bonus.rejected');
      expect(events).toHaveLength(1);
      expect(events[0].payload).toStrictEqual({
        bonus_id: created.body.bonus_id,
        user_id: partner.serviceUserId,
        amount_kopecks: -700,
        rejected_at: res.body.rejected_at,
        reason: 'duplicate payout',
      });
      expect((await s.reject(created.body.bonus_id, 'again')).body.code).toBe('invalid_transition');
      expect((await s.approve(created.body.bonus_id)).body.code).toBe('invalid_transition');

      expect(await s.auditOf('bonus.rejected')).toEqual([
        expect.objectContaining({
          actor: { type: 'staff', name: `manager of ${s.tenant.slug}` },
          target_id: created.body.bonus_id,
          details: expect.objectContaining({ reason: 'duplicate payout' }),
        }),
      ]);
    });

    it('404 bonus_not_found for an unknown bonus', async () => {
      for (const res of [await s.approve(UNKNOWN.bonus), await s.reject(UNKNOWN.bonus, 'x')]) {
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('bonus_not_found');
      }
    });
  });

  describe('bad input: a clear 4xx, never a 5xx', () => {
    it('400 validation_failed for NUL characters in stored strings', async () => {
      const { leadId } = await s.chainWithLead(1);
      const conv = await registerConversion(s.t, s.tenant.key, {
        lead_id: leadId,
        amount_kopecks: 1000,
        external_order_id: 'nul-ok',
      });
      const partner = await upsertUser(s.t, s.tenant.key);
      const attempts = [
        await s.register({ lead_id: leadId, amount_kopecks: 1000, external_order_id: 'o\u0000' }),
        await s.reverse(conv.conversion_id, 'refund\u0000'),
        await s.admin().createBonus(s.tenant.slug, {
          user_id: partner.serviceUserId,
          amount_kopecks: 100,
          currency: 'RUB',
          reason: 'r\u0000',
        }),
        await s.reject(conv.cascaded_bonuses[0].bonus_id, 'no\u0000'),
      ];
      for (const res of attempts) {
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation_failed');
      }
      expect((await s.bonus(conv.cascaded_bonuses[0].bonus_id)).status).toBe('pending');
      expect(await eventsOf(s.t, s.tenant.orgId, 'conversion.reversed')).toHaveLength(0);
    });

    it('a NUL character in a path id is a 4xx, not a 5xx', async () => {
      for (const res of [
        await s.approve('bns_%00'),
        await s.reject('bns_%00', 'x'),
        await s.reverse('cnv_%00'),
        await s.admin().reverseConversion(s.tenant.slug, 'cnv_%00', { reason: 'x' }),
      ]) {
        expect([400, 404]).toContain(res.status);
      }
    });
  });

  describe('events: the seed’s section 6, exactly', () => {
    it('every event type carries exactly the seed’s fields in a full envelope', async () => {
      const paying = await createTenant(s.t, {
        program: { lead_bonus_kopecks: 300, tiers: TIERS },
      });
      const owner = await createStaffToken(s.t, paying.slug, 'owner');
      const chain = await createChain(s.t, paying.key, 2);
      const leadId = await createLead(s.t, paying.key, chain[1].serviceUserId, {
        metadata: { a: 1 },
      });
      const conv = await registerConversion(s.t, paying.key, {
        lead_id: leadId,
        amount_kopecks: 10_000,
        external_order_id: 'ev',
      });
      const [first, second] = conv.cascaded_bonuses;
      expect((await s.admin(owner).approveBonus(paying.slug, first.bonus_id)).status).toBe(200);
      expect(
        (await s.admin(owner).rejectBonus(paying.slug, second.bonus_id, { reason: 'r' })).status,
      ).toBe(200);
      expect((await s.reverse(conv.conversion_id, 'x', paying.key)).status).toBe(200);

      const events = await eventsOf(s.t, paying.orgId);
      expect(new Set(events.map((e) => e.event_type))).toEqual(new Set(Object.keys(PAYLOAD_KEYS)));
      expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
      for (const e of events) {
        expect(keysOf(e)).toEqual(['event_id', 'event_type', 'occurred_at', 'payload']);
        expect(e.event_id).toMatch(/^evt_[0-9A-Z]{26}$/);
        expect(e.occurred_at).toMatch(ISO_MS_UTC);
        expect(keysOf(e.payload)).toEqual([...PAYLOAD_KEYS[e.event_type]].sort());
        for (const [k, v] of Object.entries(e.payload)) {
          if (k === 'amount_kopecks') expect(Number.isSafeInteger(v)).toBe(true);
          if (k.endsWith('_at')) expect(v).toMatch(ISO_MS_UTC);
        }
      }
      const one = (type: string) => events.filter((e) => e.event_type === type);
      expect(keysOf(one('lead.created')[0].payload.contact as object)).toEqual(['email', 'name']);
      for (const item of one('conversion.cascaded')[0].payload.cascaded_bonuses as object[]) {
        expect(keysOf(item)).toEqual(['amount_kopecks', 'tier', 'user_id']);
      }
      const writtenOff = one('conversion.reversed')[0].payload.written_off as object[];
      expect(writtenOff).toHaveLength(1);
      for (const item of writtenOff) {
        expect(keysOf(item)).toEqual(['amount_kopecks', 'bonus_id', 'user_id']);
      }
      // lead bonus + 2 cascaded bonuses pending; one approved; one rejected.
      expect(one('bonus.pending')).toHaveLength(3);
      expect(one('bonus.approved')).toHaveLength(1);
      expect(one('bonus.rejected')).toHaveLength(1);
    });
  });
});
