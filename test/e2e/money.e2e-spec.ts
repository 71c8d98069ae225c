import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { BONUSES_QUEUE } from '../../src/bonuses/bonuses.queue';
import { BonusesService } from '../../src/bonuses/bonuses.service';
import { createLead, eventsOf, registerConversion } from '../factories/money.factory';
import { createStaffToken, createTenant, TestTenant } from '../factories/tenants.factory';
import { createChain, upsertUser, UpsertedUser } from '../factories/users.factory';
import { createTestApp, TestApp } from '../utils/create-test-app';

const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BONUS_ID = /^bns_[0-9A-Z]{26}$/;
const UNKNOWN = {
  lead: 'lead_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  conversion: 'cnv_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  bonus: 'bns_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  user: 'usr_01ARZ3NDEKTSV4RRFFQ69G5FAV',
};
/** referrer 10 %, upline_1 3 %, upline_2 2 %: all percentages, so every share is checkable. */
const TIERS = [
  { tier: 'referrer', percent_bp: 1000 },
  { tier: 'upline_1', percent_bp: 300 },
  { tier: 'upline_2', percent_bp: 200 },
];
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
].sort();
/** Seed section 6 (with SPEC's `source` and `written_off` extensions): the payload keys, exactly. */
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

type Bonus = Record<string, unknown> & { bonus_id: string; status: string };
const keysOf = (o: object) => Object.keys(o).sort();
const byId = <T extends { bonus_id: string }>(a: T, b: T) => a.bonus_id.localeCompare(b.bonus_id);

// Real PostgreSQL, Redis and concurrency: allow for a loaded machine (the project-level
// testTimeout in jest.config.js is not applied by Jest, which leaves its 5 s default).
jest.setTimeout(30_000);

describe('money: conversions and bonuses', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let manager: string;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    tenant = await createTenant(t, { program: { tiers: TIERS } });
    manager = await createStaffToken(t, tenant.slug, 'manager');
  });

  const fed = (path: string, body: Record<string, unknown>, key = tenant.key) =>
    t.http().post(path).set('X-Service-Tenant-Key', key).send(body);
  const register = (body: Record<string, unknown>, key = tenant.key) =>
    fed('/federation/v1/conversions/register', { currency: 'RUB', ...body }, key);
  const reverse = (conversionId: string, reason = 'refund', key = tenant.key) =>
    fed(`/federation/v1/conversions/${conversionId}/reverse`, { reason }, key);
  const staffPost = (path: string, token: string, body: Record<string, unknown> = {}) =>
    t
      .http()
      .post(`/admin/v1/tenants/${tenant.slug}${path}`)
      .set('Authorization', `Bearer ${token}`)
      .send(body);
  const approve = (bonusId: string, token = manager) =>
    staffPost(`/bonuses/${bonusId}/approve`, token);
  const reject = (bonusId: string, reason: string | undefined, token = manager) =>
    staffPost(`/bonuses/${bonusId}/reject`, token, reason === undefined ? {} : { reason });
  const listBonuses = (query: Record<string, string | number> = {}, token = manager, slug = '') =>
    t
      .http()
      .get(`/admin/v1/tenants/${slug || tenant.slug}/bonuses`)
      .query(query)
      .set('Authorization', `Bearer ${token}`);
  const bonus = async (bonusId: string): Promise<Bonus> => {
    const res = await listBonuses({ page_size: 100 });
    const found = (res.body.items as Bonus[]).find((b) => b.bonus_id === bonusId);
    if (!found) throw new Error(`bonus ${bonusId} not listed`);
    return found;
  };
  const leadStatus = async (leadId: string, orgId = tenant.orgId): Promise<string> => {
    const [row] = await t.db.query(`SELECT status FROM leads WHERE tenant_id = $1 AND id = $2`, [
      orgId,
      leadId,
    ]);
    return row.status;
  };
  const counts = async (orgId = tenant.orgId) => {
    const [row] = await t.db.query(
      `SELECT (SELECT count(*)::int FROM conversions WHERE tenant_id = $1) AS conversions,
              (SELECT count(*)::int FROM bonuses WHERE tenant_id = $1) AS bonuses,
              (SELECT count(*)::int FROM events WHERE tenant_id = $1) AS events`,
      [orgId],
    );
    return row as { conversions: number; bonuses: number; events: number };
  };
  const auditOf = async (action: string) => {
    const res = await t
      .http()
      .get(`/admin/v1/tenants/${tenant.slug}/audit-log`)
      .query({ action })
      .set('Authorization', `Bearer ${manager}`);
    expect(res.status).toBe(200);
    return res.body.items as {
      actor: { type: string; name: string };
      action: string;
      target_type: string;
      target_id: string;
      details: Record<string, unknown>;
    }[];
  };
  /** A chain of `length` members [root … referrer] and a lead of the deepest one. */
  const chainWithLead = async (length: number, leadBody: Record<string, unknown> = {}) => {
    const chain = await createChain(t, tenant.key, length);
    const leadId = await createLead(t, tenant.key, chain[length - 1].serviceUserId, leadBody);
    return { chain, leadId, referrer: chain[length - 1] };
  };
  const share = (m: UpsertedUser, amount: number, tier: string) => ({
    user_id: m.serviceUserId,
    amount_kopecks: amount,
    tier,
    bonus_id: expect.stringMatching(BONUS_ID),
  });

  describe('register', () => {
    it.each([
      ['amount 0', { amount_kopecks: 0 }, 'amount_kopecks'],
      ['negative amount', { amount_kopecks: -100 }, 'amount_kopecks'],
      ['non-integer amount', { amount_kopecks: 10.5 }, 'amount_kopecks'],
      ['amount as a string', { amount_kopecks: '1000' }, 'amount_kopecks'],
      ['amount over 2^53', { amount_kopecks: 2 ** 53 }, 'amount_kopecks'],
      ['lower-case currency', { currency: 'rub' }, 'currency'],
      ['two-letter currency', { currency: 'RU' }, 'currency'],
      ['missing currency', { currency: undefined }, 'currency'],
      ['missing external_order_id', { external_order_id: undefined }, 'external_order_id'],
      ['empty external_order_id', { external_order_id: '' }, 'external_order_id'],
      ['missing lead_id', { lead_id: undefined }, 'lead_id'],
      ['unknown field', { tier: 'referrer' }, 'tier'],
    ])('400 validation_failed: %s', async (_name, patch, field) => {
      const { leadId } = await chainWithLead(1);
      const before = await counts();
      const res = await register({
        lead_id: leadId,
        amount_kopecks: 1000,
        external_order_id: 'o-1',
        ...patch,
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
      expect(await counts()).toEqual(before);
      expect(await leadStatus(leadId)).toBe('new');
    });

    it('404 lead_not_found for an unknown lead', async () => {
      const res = await register({
        lead_id: UNKNOWN.lead,
        amount_kopecks: 1000,
        external_order_id: 'o-1',
      });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('lead_not_found');
    });

    it('409 invalid_transition for a rejected lead, and writes nothing', async () => {
      const { leadId } = await chainWithLead(1);
      const rej = await fed(`/federation/v1/leads/${leadId}/status`, { status: 'rejected' });
      expect(rej.status).toBe(200);
      const before = await counts();
      const res = await register({ lead_id: leadId, amount_kopecks: 1000, external_order_id: 'o' });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('invalid_transition');
      expect(await counts()).toEqual(before);
      expect(await leadStatus(leadId)).toBe('rejected');
    });

    it('the same external_order_id with another amount, currency or lead: 409 conflict', async () => {
      const { leadId, referrer } = await chainWithLead(2);
      const otherLead = await createLead(t, tenant.key, referrer.serviceUserId);
      const first = await register({
        lead_id: leadId,
        amount_kopecks: 10_000,
        external_order_id: 'ord-1',
      });
      expect(first.status).toBe(200);
      const before = await counts();
      for (const patch of [
        { amount_kopecks: 10_001 },
        { currency: 'USD' },
        { lead_id: otherLead },
      ]) {
        const res = await register({
          lead_id: leadId,
          amount_kopecks: 10_000,
          external_order_id: 'ord-1',
          ...patch,
        });
        expect(res.status).toBe(409);
        expect(res.body.code).toBe('external_order_id_conflict');
      }
      expect(await counts()).toEqual(before);
      expect(await leadStatus(otherLead)).toBe('new');
      // The same order with the same data answers the first conversion, byte for byte.
      const again = await register({
        lead_id: leadId,
        amount_kopecks: 10_000,
        external_order_id: 'ord-1',
      });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(await counts()).toEqual(before);
    });

    it('external_order_id is unique per tenant: another tenant may use the same one', async () => {
      const { leadId } = await chainWithLead(1);
      const other = await createTenant(t);
      const otherUser = await upsertUser(t, other.key);
      const otherLead = await createLead(t, other.key, otherUser.serviceUserId);
      await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 1000,
        external_order_id: 'shared',
      });
      const res = await register(
        { lead_id: otherLead, amount_kopecks: 5000, external_order_id: 'shared' },
        other.key,
      );
      expect(res.status).toBe(200);
      expect(res.body.cascaded_bonuses).toEqual([
        expect.objectContaining({ user_id: otherUser.serviceUserId, amount_kopecks: 500 }),
      ]);
    });

    it('converts the lead (from new and from processed)', async () => {
      const { leadId, referrer } = await chainWithLead(1);
      expect(await leadStatus(leadId)).toBe('new');
      await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 1000,
        external_order_id: 'a',
      });
      expect(await leadStatus(leadId)).toBe('converted');

      const processed = await createLead(t, tenant.key, referrer.serviceUserId);
      expect(
        (await fed(`/federation/v1/leads/${processed}/status`, { status: 'processed' })).status,
      ).toBe(200);
      await registerConversion(t, tenant.key, {
        lead_id: processed,
        amount_kopecks: 1000,
        external_order_id: 'b',
      });
      expect(await leadStatus(processed)).toBe('converted');
    });

    it('pays every repeat order of one lead', async () => {
      const { leadId, chain } = await chainWithLead(2);
      const [up, referrer] = chain;
      const first = await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 10_000,
        external_order_id: 'r-1',
      });
      const second = await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 20_000,
        external_order_id: 'r-2',
      });
      expect(second.conversion_id).not.toBe(first.conversion_id);
      expect(first.cascaded_bonuses).toEqual([
        share(referrer, 1000, 'referrer'),
        share(up, 300, 'upline_1'),
      ]);
      expect(second.cascaded_bonuses).toEqual([
        share(referrer, 2000, 'referrer'),
        share(up, 600, 'upline_1'),
      ]);
      expect(await eventsOf(t, tenant.orgId, 'conversion.cascaded')).toHaveLength(2);
      const [{ total }] = await t.db.query(
        `SELECT sum(amount_kopecks)::int AS total FROM bonuses WHERE tenant_id = $1`,
        [tenant.orgId],
      );
      expect(total).toBe(3900);
    });

    it('pays three tiers with floor, exactly, up to Number.MAX_SAFE_INTEGER', async () => {
      const { leadId, chain } = await chainWithLead(3);
      const [top, mid, referrer] = chain;
      const small = await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 123_457,
        external_order_id: 's',
      });
      expect(small.cascaded_bonuses).toEqual([
        share(referrer, 12_345, 'referrer'),
        share(mid, 3_703, 'upline_1'),
        share(top, 2_469, 'upline_2'),
      ]);
      const amount = Number.MAX_SAFE_INTEGER;
      const big = await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: amount,
        external_order_id: 'big',
      });
      const exact = (bp: bigint) => Number((BigInt(amount) * bp) / 10000n);
      expect(big.cascaded_bonuses.map((b) => b.amount_kopecks)).toEqual([
        exact(1000n),
        exact(300n),
        exact(200n),
      ]);
      const [{ stored }] = await t.db.query(
        `SELECT amount_kopecks::text AS stored FROM conversions WHERE tenant_id = $1 AND id = $2`,
        [tenant.orgId, big.conversion_id],
      );
      expect(stored).toBe(String(amount));
    });

    it('a deactivated upline gets nothing and the next tier is unchanged; activation restores it', async () => {
      const { leadId, chain } = await chainWithLead(3);
      const [top, mid, referrer] = chain;
      const off = await staffPost(`/users/${mid.memberId}/deactivate`, manager);
      expect(off.status).toBe(200);
      const res = await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 100_000,
        external_order_id: 'd-1',
      });
      expect(res.cascaded_bonuses).toEqual([
        share(referrer, 10_000, 'referrer'),
        share(top, 2_000, 'upline_2'),
      ]);
      const [cascaded] = await eventsOf(t, tenant.orgId, 'conversion.cascaded');
      expect(cascaded.payload.cascaded_bonuses).toEqual([
        { user_id: referrer.serviceUserId, amount_kopecks: 10_000, tier: 'referrer' },
        { user_id: top.serviceUserId, amount_kopecks: 2_000, tier: 'upline_2' },
      ]);
      expect((await listBonuses({ user_id: mid.serviceUserId })).body.items).toEqual([]);

      expect((await staffPost(`/users/${mid.memberId}/activate`, manager)).status).toBe(200);
      const after = await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 100_000,
        external_order_id: 'd-2',
      });
      expect(after.cascaded_bonuses.map((b) => b.tier)).toEqual([
        'referrer',
        'upline_1',
        'upline_2',
      ]);
    });

    it('a deactivated referrer gets nothing; the uplines are still paid their own tiers', async () => {
      const { leadId, chain } = await chainWithLead(2);
      const [up, referrer] = chain;
      expect((await staffPost(`/users/${referrer.memberId}/deactivate`, manager)).status).toBe(200);
      const res = await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 100_000,
        external_order_id: 'x',
      });
      expect(res.cascaded_bonuses).toEqual([share(up, 3_000, 'upline_1')]);
    });

    it('the chain ends early where the network ends', async () => {
      const alone = await chainWithLead(1);
      const res1 = await registerConversion(t, tenant.key, {
        lead_id: alone.leadId,
        amount_kopecks: 50_000,
        external_order_id: 'e-1',
      });
      expect(res1.cascaded_bonuses).toEqual([share(alone.referrer, 5_000, 'referrer')]);

      const two = await chainWithLead(2);
      const res2 = await registerConversion(t, tenant.key, {
        lead_id: two.leadId,
        amount_kopecks: 50_000,
        external_order_id: 'e-2',
      });
      expect(res2.cascaded_bonuses).toEqual([
        share(two.chain[1], 5_000, 'referrer'),
        share(two.chain[0], 1_500, 'upline_1'),
      ]);
    });

    it('uses the offer’s program for a lead with that offer_id', async () => {
      const offer = await t
        .http()
        .post(`/admin/v1/tenants/${tenant.slug}/offers`)
        .set('Authorization', `Bearer ${manager}`)
        .send({
          name: 'Premium',
          program: {
            tiers: [
              { tier: 'referrer', percent_bp: 2000 },
              { tier: 'upline_1', fixed_kopecks: 777 },
            ],
          },
        });
      expect(offer.status).toBe(201);
      const chain = await createChain(t, tenant.key, 3);
      const [, mid, referrer] = chain;
      const withOffer = await createLead(t, tenant.key, referrer.serviceUserId, {
        offer_id: offer.body.offer_id,
      });
      const plain = await createLead(t, tenant.key, referrer.serviceUserId);
      const res = await registerConversion(t, tenant.key, {
        lead_id: withOffer,
        amount_kopecks: 10_000,
        external_order_id: 'of-1',
      });
      // The offer has two tiers only: upline_2 of the tenant's program does not apply.
      expect(res.cascaded_bonuses).toEqual([
        share(referrer, 2_000, 'referrer'),
        share(mid, 777, 'upline_1'),
      ]);
      const res2 = await registerConversion(t, tenant.key, {
        lead_id: plain,
        amount_kopecks: 10_000,
        external_order_id: 'of-2',
      });
      expect(res2.cascaded_bonuses.map((b) => b.amount_kopecks)).toEqual([1000, 300, 200]);
    });

    it('creates each bonus pending, source conversion, in the conversion’s currency', async () => {
      const { leadId } = await chainWithLead(2);
      const res = await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 10_000,
        external_order_id: 'cur',
        currency: 'USD',
      });
      const items = (await listBonuses()).body.items as Bonus[];
      expect(items).toHaveLength(2);
      for (const b of items) {
        expect(b).toMatchObject({
          status: 'pending',
          source_type: 'conversion',
          source_id: res.conversion_id,
          currency: 'USD',
          approved_at: null,
          rejected_at: null,
          reversed_at: null,
        });
      }
      const pending = await eventsOf(t, tenant.orgId, 'bonus.pending');
      expect(pending.map((e) => e.payload).sort((a, b) => byId(a as Bonus, b as Bonus))).toEqual(
        res.cascaded_bonuses
          .map((b) => ({
            bonus_id: b.bonus_id,
            user_id: b.user_id,
            amount_kopecks: b.amount_kopecks,
            currency: 'USD',
            source_type: 'conversion',
            source_id: res.conversion_id,
          }))
          .sort(byId),
      );
    });
  });

  describe('preview', () => {
    it('returns what register would pay and writes nothing', async () => {
      const { leadId, chain } = await chainWithLead(3);
      await staffPost(`/users/${chain[1].memberId}/deactivate`, manager);
      const before = await counts();
      const preview = await fed('/federation/v1/conversions/preview', {
        lead_id: leadId,
        amount_kopecks: 123_457,
        currency: 'RUB',
      });
      expect(preview.status).toBe(200);
      expect(preview.body).toEqual({
        lead_id: leadId,
        amount_kopecks: 123_457,
        currency: 'RUB',
        cascaded_bonuses: [
          { user_id: chain[2].serviceUserId, amount_kopecks: 12_345, tier: 'referrer' },
          { user_id: chain[0].serviceUserId, amount_kopecks: 2_469, tier: 'upline_2' },
        ],
      });
      const withOrder = await fed('/federation/v1/conversions/preview', {
        lead_id: leadId,
        amount_kopecks: 123_457,
        currency: 'RUB',
        external_order_id: 'p-1',
      });
      expect(withOrder.body).toEqual(preview.body);
      expect(await counts()).toEqual(before);
      expect(await leadStatus(leadId)).toBe('new');

      const registered = await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 123_457,
        external_order_id: 'p-1',
      });
      expect(
        registered.cascaded_bonuses.map(({ user_id, amount_kopecks, tier }) => ({
          user_id,
          amount_kopecks,
          tier,
        })),
      ).toEqual(preview.body.cascaded_bonuses);
    });

    it('refuses like register: 404 unknown lead, 409 rejected lead, 400 bad amount', async () => {
      const { leadId } = await chainWithLead(1);
      const unknown = await fed('/federation/v1/conversions/preview', {
        lead_id: UNKNOWN.lead,
        amount_kopecks: 1,
        currency: 'RUB',
      });
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('lead_not_found');
      const bad = await fed('/federation/v1/conversions/preview', {
        lead_id: leadId,
        amount_kopecks: 0,
        currency: 'RUB',
      });
      expect(bad.status).toBe(400);
      await fed(`/federation/v1/leads/${leadId}/status`, { status: 'rejected' });
      const rejected = await fed('/federation/v1/conversions/preview', {
        lead_id: leadId,
        amount_kopecks: 1000,
        currency: 'RUB',
      });
      expect(rejected.status).toBe(409);
      expect(rejected.body.code).toBe('invalid_transition');
    });
  });

  describe('reverse', () => {
    it('writes off pending and approved bonuses, leaves rejected ones, emits conversion.reversed', async () => {
      const { leadId } = await chainWithLead(3);
      const conv = await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 100_000,
        external_order_id: 'rv-1',
      });
      const [ref, up1, up2] = conv.cascaded_bonuses;
      expect((await approve(ref.bonus_id)).status).toBe(200);
      expect((await reject(up1.bonus_id, 'fraud')).status).toBe(200);

      const res = await reverse(conv.conversion_id, 'refund');
      expect(res.status).toBe(200);
      expect(keysOf(res.body)).toEqual(
        ['conversion_id', 'status', 'reversed_at', 'reason', 'written_off'].sort(),
      );
      expect(res.body).toMatchObject({
        conversion_id: conv.conversion_id,
        status: 'reversed',
        reason: 'refund',
      });
      expect(res.body.reversed_at).toMatch(ISO_MS_UTC);
      const expectedWrittenOff = [ref, up2]
        .map((b) => ({
          bonus_id: b.bonus_id,
          user_id: b.user_id,
          amount_kopecks: b.amount_kopecks,
        }))
        .sort(byId);
      expect([...res.body.written_off].sort(byId)).toEqual(expectedWrittenOff);

      expect(await bonus(ref.bonus_id)).toMatchObject({
        status: 'reversed',
        reversed_at: expect.stringMatching(ISO_MS_UTC),
        approved_at: expect.stringMatching(ISO_MS_UTC),
      });
      expect(await bonus(up1.bonus_id)).toMatchObject({
        status: 'rejected',
        reason: 'fraud',
        reversed_at: null,
      });
      expect(await bonus(up2.bonus_id)).toMatchObject({ status: 'reversed' });
      expect((await listBonuses({ status: 'reversed' })).body.pagination.total).toBe(2);

      const events = await eventsOf(t, tenant.orgId, 'conversion.reversed');
      expect(events).toHaveLength(1);
      expect(events[0].payload).toStrictEqual({
        conversion_id: conv.conversion_id,
        reversed_at: res.body.reversed_at,
        reason: 'refund',
        written_off: res.body.written_off,
      });

      const twice = await reverse(conv.conversion_id);
      expect(twice.status).toBe(409);
      expect(twice.body.code).toBe('already_reversed');
      expect(await eventsOf(t, tenant.orgId, 'conversion.reversed')).toHaveLength(1);

      // A written-off bonus can be neither approved nor rejected any more.
      expect((await approve(up2.bonus_id)).body.code).toBe('invalid_transition');
      expect((await reject(up2.bonus_id, 'late')).body.code).toBe('invalid_transition');
    });

    it('400 without a reason; 404 conversion_not_found for unknown and foreign conversions', async () => {
      const { leadId } = await chainWithLead(1);
      const conv = await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 1000,
        external_order_id: 'rv-2',
      });
      const noReason = await fed(`/federation/v1/conversions/${conv.conversion_id}/reverse`, {});
      expect(noReason.status).toBe(400);
      expect(noReason.body.code).toBe('validation_failed');

      const unknown = await reverse(UNKNOWN.conversion);
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('conversion_not_found');

      const other = await createTenant(t);
      const foreign = await reverse(conv.conversion_id, 'refund', other.key);
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('conversion_not_found');
      expect((await bonus(conv.cascaded_bonuses[0].bonus_id)).status).toBe('pending');
    });

    it('staff reverse (manager) works and is audited; a viewer gets 403', async () => {
      const { leadId } = await chainWithLead(1);
      const conv = await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 1000,
        external_order_id: 'rv-3',
      });
      const viewer = await createStaffToken(t, tenant.slug, 'viewer');
      const denied = await staffPost(`/conversions/${conv.conversion_id}/reverse`, viewer, {
        reason: 'x',
      });
      expect(denied.status).toBe(403);
      expect((await bonus(conv.cascaded_bonuses[0].bonus_id)).status).toBe('pending');

      const res = await staffPost(`/conversions/${conv.conversion_id}/reverse`, manager, {
        reason: 'chargeback',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'reversed', reason: 'chargeback' });
      expect(res.body.written_off).toHaveLength(1);
      const audit = await auditOf('conversion.reversed');
      expect(audit).toEqual([
        expect.objectContaining({
          actor: { type: 'staff', name: `manager of ${tenant.slug}` },
          action: 'conversion.reversed',
          target_type: 'conversion',
          target_id: conv.conversion_id,
          details: expect.objectContaining({ reason: 'chargeback' }),
        }),
      ]);
      const unknown = await staffPost(`/conversions/${UNKNOWN.conversion}/reverse`, manager, {
        reason: 'x',
      });
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('conversion_not_found');
    });
  });

  describe('bonuses admin', () => {
    const manual = (body: Record<string, unknown>, token = manager) =>
      staffPost('/bonuses', token, { currency: 'RUB', reason: 'campaign', ...body });

    it('lists bonuses paginated, newest first, with exactly the documented fields', async () => {
      const { leadId, chain } = await chainWithLead(3);
      const conv = await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 100_000,
        external_order_id: 'l-1',
      });
      const viewer = await createStaffToken(t, tenant.slug, 'viewer');
      const page1 = await listBonuses({ page_size: 2 }, viewer);
      expect(page1.status).toBe(200);
      expect(keysOf(page1.body)).toEqual(['items', 'pagination']);
      expect(page1.body.pagination).toEqual({ page: 1, page_size: 2, total: 3, total_pages: 2 });
      expect(page1.body.items).toHaveLength(2);
      for (const item of page1.body.items) expect(keysOf(item)).toEqual(BONUS_FIELDS);
      const page2 = await listBonuses({ page_size: 2, page: 2 }, viewer);
      expect(page2.body.pagination).toEqual({ page: 2, page_size: 2, total: 3, total_pages: 2 });
      expect(page2.body.items).toHaveLength(1);
      const all = [...page1.body.items, ...page2.body.items] as Bonus[];
      expect(all.map((b) => b.bonus_id).sort()).toEqual(
        conv.cascaded_bonuses.map((b) => b.bonus_id).sort(),
      );
      const created = all.map((b) => Date.parse(b.created_at as string));
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
      });
      // The default grace period: 336 hours after creation.
      expect(
        Date.parse(referrerBonus.due_at as string) - Date.parse(referrerBonus.created_at as string),
      ).toBe(336 * 3600 * 1000);

      const past = await listBonuses({ page: 3, page_size: 2 }, viewer);
      expect(past.body.items).toEqual([]);
      expect(past.body.pagination.total).toBe(3);
    });

    it('filters by status and by user_id', async () => {
      const { leadId, chain } = await chainWithLead(2);
      const conv = await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 100_000,
        external_order_id: 'f-1',
      });
      const [ref, up] = conv.cascaded_bonuses;
      await approve(ref.bonus_id);
      const approved = await listBonuses({ status: 'approved' });
      expect(approved.body.items.map((b: Bonus) => b.bonus_id)).toEqual([ref.bonus_id]);
      expect(approved.body.pagination.total).toBe(1);
      const pending = await listBonuses({ status: 'pending' });
      expect(pending.body.items.map((b: Bonus) => b.bonus_id)).toEqual([up.bonus_id]);
      const mine = await listBonuses({ user_id: chain[0].serviceUserId });
      expect(mine.body.items.map((b: Bonus) => b.bonus_id)).toEqual([up.bonus_id]);
      const both = await listBonuses({ user_id: chain[0].serviceUserId, status: 'approved' });
      expect(both.body.items).toEqual([]);
      expect((await listBonuses({ user_id: UNKNOWN.user })).body.items).toEqual([]);
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
      const res = await listBonuses(query);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    });

    it('another tenant’s bonuses are invisible and untouchable', async () => {
      const { leadId } = await chainWithLead(1);
      const conv = await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 1000,
        external_order_id: 'iso',
      });
      const other = await createTenant(t);
      const otherManager = await createStaffToken(t, other.slug, 'manager');
      const list = await listBonuses({}, otherManager, other.slug);
      expect(list.body.items).toEqual([]);
      const foreign = await t
        .http()
        .post(
          `/admin/v1/tenants/${other.slug}/bonuses/${conv.cascaded_bonuses[0].bonus_id}/approve`,
        )
        .set('Authorization', `Bearer ${otherManager}`);
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('bonus_not_found');
      const crossSlug = await listBonuses({}, otherManager);
      expect(crossSlug.status).toBe(403);
      expect((await bonus(conv.cascaded_bonuses[0].bonus_id)).status).toBe('pending');
    });

    it('creates a manual bonus (201 pending, source_type manual) and audits it', async () => {
      const partner = await upsertUser(t, tenant.key);
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
      const [pending] = await eventsOf(t, tenant.orgId, 'bonus.pending');
      expect(pending.payload).toStrictEqual({
        bonus_id: res.body.bonus_id,
        user_id: partner.serviceUserId,
        amount_kopecks: 25_000,
        currency: 'RUB',
        source_type: 'manual',
        source_id: res.body.source_id,
      });
      expect(await auditOf('bonus.created')).toEqual([
        expect.objectContaining({
          actor: { type: 'staff', name: `manager of ${tenant.slug}` },
          target_type: 'bonus',
          target_id: res.body.bonus_id,
        }),
      ]);

      const negative = await manual({ user_id: partner.serviceUserId, amount_kopecks: -5_000 });
      expect(negative.status).toBe(201);
      expect(negative.body).toMatchObject({ amount_kopecks: -5_000, status: 'pending' });
    });

    it('refuses bad manual bonuses: 0, non-integer, bad currency, no reason (400); unknown user (404)', async () => {
      const partner = await upsertUser(t, tenant.key);
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

      const other = await createTenant(t);
      const stranger = await upsertUser(t, other.key);
      const foreign = await manual({ user_id: stranger.serviceUserId, amount_kopecks: 100 });
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('user_not_found');
      expect((await counts()).bonuses).toBe(0);
    });

    it('a viewer may list but not create, approve or reject (403)', async () => {
      const partner = await upsertUser(t, tenant.key);
      const created = await manual({ user_id: partner.serviceUserId, amount_kopecks: 100 });
      const viewer = await createStaffToken(t, tenant.slug, 'viewer');
      expect((await listBonuses({}, viewer)).status).toBe(200);
      const attempts = [
        await manual({ user_id: partner.serviceUserId, amount_kopecks: 100 }, viewer),
        await approve(created.body.bonus_id, viewer),
        await reject(created.body.bonus_id, 'no', viewer),
      ];
      for (const res of attempts) {
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('forbidden');
      }
      expect((await bonus(created.body.bonus_id)).status).toBe('pending');
    });

    it('approves once: 200 + bonus.approved, then 409 invalid_transition; audited', async () => {
      const partner = await upsertUser(t, tenant.key);
      const created = await manual({ user_id: partner.serviceUserId, amount_kopecks: 1_234 });
      const res = await approve(created.body.bonus_id);
      expect(res.status).toBe(200);
      expect(keysOf(res.body)).toEqual(BONUS_FIELDS);
      expect(res.body).toMatchObject({
        bonus_id: created.body.bonus_id,
        status: 'approved',
        approved_at: expect.stringMatching(ISO_MS_UTC),
        rejected_at: null,
      });
      const events = await eventsOf(t, tenant.orgId, 'bonus.approved');
      expect(events).toHaveLength(1);
      expect(events[0].payload).toStrictEqual({
        bonus_id: created.body.bonus_id,
        user_id: partner.serviceUserId,
        amount_kopecks: 1_234,
        approved_at: res.body.approved_at,
      });

      const again = await approve(created.body.bonus_id);
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('invalid_transition');
      const rejectApproved = await reject(created.body.bonus_id, 'late');
      expect(rejectApproved.status).toBe(409);
      expect(rejectApproved.body.code).toBe('invalid_transition');
      expect(await eventsOf(t, tenant.orgId, 'bonus.approved')).toHaveLength(1);
      expect(await eventsOf(t, tenant.orgId, 'bonus.rejected')).toHaveLength(0);

      expect(await auditOf('bonus.approved')).toEqual([
        expect.objectContaining({
          actor: { type: 'staff', name: `manager of ${tenant.slug}` },
          target_type: 'bonus',
          target_id: created.body.bonus_id,
        }),
      ]);
    });

    it('rejects with a reason (required): 200 + bonus.rejected; audited', async () => {
      const partner = await upsertUser(t, tenant.key);
      const created = await manual({ user_id: partner.serviceUserId, amount_kopecks: -700 });
      for (const reason of [undefined, '']) {
        const noReason = await reject(created.body.bonus_id, reason);
        expect(noReason.status).toBe(400);
        expect(noReason.body.code).toBe('validation_failed');
      }
      expect((await bonus(created.body.bonus_id)).status).toBe('pending');

      const res = await reject(created.body.bonus_id, 'duplicate payout');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'rejected',
        reason: 'duplicate payout',
        rejected_at: expect.stringMatching(ISO_MS_UTC),
        approved_at: null,
      });
      const events = await eventsOf(t, tenant.orgId, 'bonus.rejected');
      expect(events).toHaveLength(1);
      expect(events[0].payload).toStrictEqual({
        bonus_id: created.body.bonus_id,
        user_id: partner.serviceUserId,
        amount_kopecks: -700,
        rejected_at: res.body.rejected_at,
        reason: 'duplicate payout',
      });
      expect((await reject(created.body.bonus_id, 'again')).body.code).toBe('invalid_transition');
      expect((await approve(created.body.bonus_id)).body.code).toBe('invalid_transition');

      expect(await auditOf('bonus.rejected')).toEqual([
        expect.objectContaining({
          actor: { type: 'staff', name: `manager of ${tenant.slug}` },
          target_id: created.body.bonus_id,
          details: expect.objectContaining({ reason: 'duplicate payout' }),
        }),
      ]);
    });

    it('404 bonus_not_found for an unknown bonus', async () => {
      for (const res of [await approve(UNKNOWN.bonus), await reject(UNKNOWN.bonus, 'x')]) {
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('bonus_not_found');
      }
    });
  });

  describe('bad input: a clear 4xx, never a 5xx', () => {
    it('400 validation_failed for NUL characters in stored strings', async () => {
      const { leadId } = await chainWithLead(1);
      const conv = await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 1000,
        external_order_id: 'nul-ok',
      });
      const partner = await upsertUser(t, tenant.key);
      const attempts = [
        await register({ lead_id: leadId, amount_kopecks: 1000, external_order_id: 'o\u0000' }),
        await reverse(conv.conversion_id, 'refund\u0000'),
        await staffPost('/bonuses', manager, {
          user_id: partner.serviceUserId,
          amount_kopecks: 100,
          currency: 'RUB',
          reason: 'r\u0000',
        }),
        await reject(conv.cascaded_bonuses[0].bonus_id, 'no\u0000'),
      ];
      for (const res of attempts) {
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation_failed');
      }
      expect((await bonus(conv.cascaded_bonuses[0].bonus_id)).status).toBe('pending');
      expect(await eventsOf(t, tenant.orgId, 'conversion.reversed')).toHaveLength(0);
    });

    it('a NUL character in a path id is a 4xx, not a 5xx', async () => {
      for (const res of [
        await approve('bns_%00'),
        await reject('bns_%00', 'x'),
        await reverse('cnv_%00'),
        await staffPost('/conversions/cnv_%00/reverse', manager, { reason: 'x' }),
      ]) {
        expect([400, 404]).toContain(res.status);
      }
    });
  });

  describe('events: the seed’s section 6, exactly', () => {
    it('every event type carries exactly the seed’s fields in a full envelope', async () => {
      const paying = await createTenant(t, {
        program: { lead_bonus_kopecks: 300, tiers: TIERS },
      });
      const owner = await createStaffToken(t, paying.slug, 'owner');
      const chain = await createChain(t, paying.key, 2);
      const leadId = await createLead(t, paying.key, chain[1].serviceUserId, {
        metadata: { a: 1 },
      });
      const conv = await registerConversion(t, paying.key, {
        lead_id: leadId,
        amount_kopecks: 10_000,
        external_order_id: 'ev',
      });
      const admin = (path: string, body: Record<string, unknown> = {}) =>
        t
          .http()
          .post(`/admin/v1/tenants/${paying.slug}${path}`)
          .set('Authorization', `Bearer ${owner}`)
          .send(body);
      expect((await admin(`/bonuses/${conv.cascaded_bonuses[0].bonus_id}/approve`)).status).toBe(
        200,
      );
      expect(
        (await admin(`/bonuses/${conv.cascaded_bonuses[1].bonus_id}/reject`, { reason: 'r' }))
          .status,
      ).toBe(200);
      expect(
        (
          await fed(
            `/federation/v1/conversions/${conv.conversion_id}/reverse`,
            { reason: 'x' },
            paying.key,
          )
        ).status,
      ).toBe(200);

      const events = await eventsOf(t, paying.orgId);
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

  describe('races (real concurrency over HTTP)', () => {
    it('20 parallel approvals of one bonus: exactly one 200 and one bonus.approved', async () => {
      const partner = await upsertUser(t, tenant.key);
      const created = await staffPost('/bonuses', manager, {
        user_id: partner.serviceUserId,
        amount_kopecks: 1000,
        currency: 'RUB',
        reason: 'race',
      });
      const results = await Promise.all(
        Array.from({ length: 20 }, () => approve(created.body.bonus_id)),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, ...Array(19).fill(409)]);
      for (const r of results.filter((x) => x.status === 409)) {
        expect(r.body.code).toBe('invalid_transition');
      }
      expect(await eventsOf(t, tenant.orgId, 'bonus.approved')).toHaveLength(1);
      expect(await auditOf('bonus.approved')).toHaveLength(1);
    });

    it('parallel reversals of one conversion: one 200, one conversion.reversed', async () => {
      const { leadId } = await chainWithLead(3);
      const conv = await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 100_000,
        external_order_id: 'race-rv',
      });
      const results = await Promise.all(
        Array.from({ length: 10 }, () => reverse(conv.conversion_id)),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, ...Array(9).fill(409)]);
      for (const r of results.filter((x) => x.status === 409)) {
        expect(r.body.code).toBe('already_reversed');
      }
      const winner = results.find((r) => r.status === 200)!;
      expect(winner.body.written_off).toHaveLength(3);
      expect(await eventsOf(t, tenant.orgId, 'conversion.reversed')).toHaveLength(1);
      const reversed = await listBonuses({ status: 'reversed' });
      expect(reversed.body.pagination.total).toBe(3);
    });

    it('approve racing reverse ends consistent: reversed, and events match what happened', async () => {
      const { leadId } = await chainWithLead(1);
      for (let round = 0; round < 6; round++) {
        const conv = await registerConversion(t, tenant.key, {
          lead_id: leadId,
          amount_kopecks: 10_000,
          external_order_id: `race-${round}`,
        });
        const bonusId = conv.cascaded_bonuses[0].bonus_id;
        const [approved, reversed] = await Promise.all([
          approve(bonusId),
          reverse(conv.conversion_id),
        ]);
        expect(reversed.status).toBe(200);
        expect([200, 409]).toContain(approved.status);
        // Pending or approved, the bonus is written off either way.
        expect(reversed.body.written_off.map((b: { bonus_id: string }) => b.bonus_id)).toEqual([
          bonusId,
        ]);
        const final = await bonus(bonusId);
        expect(final.status).toBe('reversed');
        const approvedEvents = (await eventsOf(t, tenant.orgId, 'bonus.approved')).filter(
          (e) => e.payload.bonus_id === bonusId,
        );
        if (approved.status === 200) {
          expect(approvedEvents).toHaveLength(1);
          expect(final.approved_at).toBe(approved.body.approved_at);
        } else {
          expect(approved.body.code).toBe('invalid_transition');
          expect(approvedEvents).toHaveLength(0);
          expect(final.approved_at).toBeNull();
        }
        const reversedEvents = (await eventsOf(t, tenant.orgId, 'conversion.reversed')).filter(
          (e) => e.payload.conversion_id === conv.conversion_id,
        );
        expect(reversedEvents).toHaveLength(1);
      }
    });

    it('one order registered at once for two leads: one conversion, the other 409', async () => {
      const { referrer } = await chainWithLead(1);
      for (let round = 0; round < 3; round++) {
        const leadA = await createLead(t, tenant.key, referrer.serviceUserId);
        const leadB = await createLead(t, tenant.key, referrer.serviceUserId);
        const results = await Promise.all(
          [leadA, leadB, leadA, leadB].map((lead_id) =>
            register({ lead_id, amount_kopecks: 5_000, external_order_id: `dup-${round}` }),
          ),
        );
        const ok = results.filter((r) => r.status === 200);
        const conflicts = results.filter((r) => r.status === 409);
        expect(ok.length + conflicts.length).toBe(4);
        expect(ok.length).toBeGreaterThanOrEqual(1);
        expect(new Set(ok.map((r) => r.body.conversion_id)).size).toBe(1);
        for (const r of conflicts) expect(r.body.code).toBe('external_order_id_conflict');
        const rows: { lead_id: string }[] = await t.db.query(
          `SELECT lead_id FROM conversions WHERE tenant_id = $1 AND external_order_id = $2`,
          [tenant.orgId, `dup-${round}`],
        );
        expect(rows).toHaveLength(1);
        const loser = rows[0].lead_id === leadA ? leadB : leadA;
        expect(await leadStatus(rows[0].lead_id)).toBe('converted');
        expect(await leadStatus(loser)).toBe('new');
      }
      const cascaded = await eventsOf(t, tenant.orgId, 'conversion.cascaded');
      expect(cascaded).toHaveLength(3);
      expect((await counts()).bonuses).toBe(3);
    });

    it('rejecting a lead while it converts: one wins, the other 409, the state agrees', async () => {
      const { referrer } = await chainWithLead(1);
      for (let round = 0; round < 4; round++) {
        const leadId = await createLead(t, tenant.key, referrer.serviceUserId);
        const [conv, rej] = await Promise.all([
          register({ lead_id: leadId, amount_kopecks: 5_000, external_order_id: `lr-${round}` }),
          fed(`/federation/v1/leads/${leadId}/status`, { status: 'rejected' }),
        ]);
        expect([conv.status, rej.status].sort()).toEqual([200, 409]);
        const status = await leadStatus(leadId);
        const [{ count }] = await t.db.query(
          `SELECT count(*)::int AS count FROM conversions WHERE tenant_id = $1 AND lead_id = $2`,
          [tenant.orgId, leadId],
        );
        if (conv.status === 200) {
          expect(status).toBe('converted');
          expect(count).toBe(1);
          expect(rej.body.code).toBe('invalid_transition');
        } else {
          expect(status).toBe('rejected');
          expect(count).toBe(0);
          expect(conv.body.code).toBe('invalid_transition');
        }
      }
    });

    it('a staff approval racing the sweep approves once with one event', async () => {
      const due = await createTenant(t, { program: { grace_period_hours: 0 } });
      const owner = await createStaffToken(t, due.slug, 'owner');
      const partner = await upsertUser(t, due.key);
      const sweeper = t.app.get(BonusesService);
      for (let round = 0; round < 4; round++) {
        const created = await t
          .http()
          .post(`/admin/v1/tenants/${due.slug}/bonuses`)
          .set('Authorization', `Bearer ${owner}`)
          .send({
            user_id: partner.serviceUserId,
            amount_kopecks: 100,
            currency: 'RUB',
            reason: 'r',
          });
        const [res] = await Promise.all([
          t
            .http()
            .post(`/admin/v1/tenants/${due.slug}/bonuses/${created.body.bonus_id}/approve`)
            .set('Authorization', `Bearer ${owner}`),
          sweeper.approveDue(),
        ]);
        expect([200, 409]).toContain(res.status);
        const events = (await eventsOf(t, due.orgId, 'bonus.approved')).filter(
          (e) => e.payload.bonus_id === created.body.bonus_id,
        );
        expect(events).toHaveLength(1);
      }
    });

    it('two sweeps at once (two app instances) approve each due bonus once, one event each', async () => {
      const due = await createTenant(t, { program: { tiers: TIERS, grace_period_hours: 0 } });
      const chain = await createChain(t, due.key, 3);
      const bonusIds: string[] = [];
      for (let i = 0; i < 10; i++) {
        const leadId = await createLead(t, due.key, chain[2].serviceUserId);
        const conv = await registerConversion(t, due.key, {
          lead_id: leadId,
          amount_kopecks: 10_000 + i,
          external_order_id: `sweep-${i}`,
        });
        bonusIds.push(...conv.cascaded_bonuses.map((b) => b.bonus_id));
      }
      expect(bonusIds).toHaveLength(30);
      const [{ lagging }] = await t.db.query(
        `SELECT count(*)::int AS lagging FROM bonuses WHERE tenant_id = $1 AND due_at > now()`,
        [due.orgId],
      );
      expect(lagging).toBe(0);

      const t2 = await createTestApp();
      try {
        const a = t.app.get(BonusesService);
        const b = t2.app.get(BonusesService);
        expect(a).not.toBe(b);
        // Small batches so the sweeps interleave over several transactions each; every batch
        // touches the same three partners.
        await Promise.all([2, 3, 2, 3, 2, 3].map((size, i) => (i % 2 ? b : a).approveDue(size)));
      } finally {
        await t2.close();
      }
      const rows: { id: string; status: string }[] = await t.db.query(
        `SELECT id, status FROM bonuses WHERE tenant_id = $1`,
        [due.orgId],
      );
      expect(rows.map((r) => r.status)).toEqual(Array(30).fill('approved'));
      const events = await eventsOf(t, due.orgId, 'bonus.approved');
      expect(events.map((e) => e.payload.bonus_id as string).sort()).toEqual([...bonusIds].sort());
    });

    it('the worker’s repeatable sweep (Bull) approves a grace-0 bonus within seconds', async () => {
      const prefix = `${process.env.TEST_QUEUE_PREFIX ?? 'test'}:sweep${randomBytes(3).toString('hex')}`;
      const worker = await createTestApp({ BONUS_APPROVAL_SWEEP_MS: '500', QUEUE_PREFIX: prefix });
      const completed: unknown[] = [];
      try {
        const queue = worker.app.get<Queue>(getQueueToken(BONUSES_QUEUE), { strict: false });
        queue.on('completed', (_job, result) => completed.push(result));

        const due = await createTenant(t, { program: { grace_period_hours: 0 } });
        const owner = await createStaffToken(t, due.slug, 'owner');
        const partner = await upsertUser(t, due.key);
        const created = await t
          .http()
          .post(`/admin/v1/tenants/${due.slug}/bonuses`)
          .set('Authorization', `Bearer ${owner}`)
          .send({
            user_id: partner.serviceUserId,
            amount_kopecks: 4_200,
            currency: 'RUB',
            reason: 'sweep',
          });
        expect(created.status).toBe(201);
        expect(created.body.status).toBe('pending');

        let status = 'pending';
        const deadline = Date.now() + 8_000;
        while (status === 'pending' && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 200));
          const list = await t
            .http()
            .get(`/admin/v1/tenants/${due.slug}/bonuses`)
            .set('Authorization', `Bearer ${owner}`);
          status = list.body.items[0].status;
        }
        expect(status).toBe('approved');
        const repeatable = await queue.getRepeatableJobs();
        expect(repeatable.map((j) => Number(j.every))).toEqual([500]);
        // The worker's own repeatable job ran (not only some other process's sweep), which may
        // finish just after another process's sweep approved the bonus.
        for (let i = 0; i < 50 && completed.length === 0; i++) {
          await new Promise((r) => setTimeout(r, 100));
        }
        expect(completed.length).toBeGreaterThan(0);
        const events = await eventsOf(t, due.orgId, 'bonus.approved');
        expect(events.map((e) => e.payload.bonus_id)).toEqual([created.body.bonus_id]);
      } finally {
        await worker.close();
        const redis = new Redis(worker.config.redisUrl);
        const keys = await redis.keys(`${prefix}:*`);
        if (keys.length) await redis.del(...keys);
        redis.disconnect();
      }
    });
  });
});
