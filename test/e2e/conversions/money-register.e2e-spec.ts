/**
 * Registering conversions over the Federation API: validation, conflicts on external_order_id,
 * the lead's status and the cascade of bonuses over the tiers (README.md). Setup: money-suite.
 */
import { createLead, eventsOf, registerConversion } from '../../factories/money.factory';
import { createTenant } from '../../factories/tenants.factory';
import { createChain, upsertUser } from '../../factories/users.factory';
import { type Bonus, byId, moneySuite, UNKNOWN } from '../../utils/money-suite';

describe('money: registering conversions', () => {
  const s = moneySuite();

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
      const { leadId } = await s.chainWithLead(1);
      const before = await s.counts();
      const res = await s.register({
        lead_id: leadId,
        amount_kopecks: 1000,
        external_order_id: 'o-1',
        ...patch,
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors?.map((e) => e.field)).toContain(field);
      expect(await s.counts()).toEqual(before);
      expect(await s.leadStatus(leadId)).toBe('new');
    });

    it('404 lead_not_found for an unknown lead', async () => {
      const res = await s.register({
        lead_id: UNKNOWN.lead,
        amount_kopecks: 1000,
        external_order_id: 'o-1',
      });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('lead_not_found');
    });

    it('409 invalid_transition for a rejected lead, and writes nothing', async () => {
      const { leadId } = await s.chainWithLead(1);
      const rej = await s.fed().setLeadStatus(leadId, { status: 'rejected' });
      expect(rej.status).toBe(200);
      const before = await s.counts();
      const res = await s.register({
        lead_id: leadId,
        amount_kopecks: 1000,
        external_order_id: 'o',
      });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('invalid_transition');
      expect(await s.counts()).toEqual(before);
      expect(await s.leadStatus(leadId)).toBe('rejected');
    });

    it('the same external_order_id with another amount, currency or lead: 409 conflict', async () => {
      const { leadId, referrer } = await s.chainWithLead(2);
      const otherLead = await createLead(s.t, s.tenant.key, referrer.serviceUserId);
      const first = await s.register({
        lead_id: leadId,
        amount_kopecks: 10_000,
        external_order_id: 'ord-1',
      });
      expect(first.status).toBe(200);
      const before = await s.counts();
      for (const patch of [
        { amount_kopecks: 10_001 },
        { currency: 'USD' },
        { lead_id: otherLead },
      ]) {
        const res = await s.register({
          lead_id: leadId,
          amount_kopecks: 10_000,
          external_order_id: 'ord-1',
          ...patch,
        });
        expect(res.status).toBe(409);
        expect(res.body.code).toBe('external_order_id_conflict');
      }
      expect(await s.counts()).toEqual(before);
      expect(await s.leadStatus(otherLead)).toBe('new');
      // The same order with the same data answers the first conversion, byte for byte.
      const again = await s.register({
        lead_id: leadId,
        amount_kopecks: 10_000,
        external_order_id: 'ord-1',
      });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(await s.counts()).toEqual(before);
    });

    it('external_order_id is unique per tenant: another tenant may use the same one', async () => {
      const { leadId } = await s.chainWithLead(1);
      const other = await createTenant(s.t);
      const otherUser = await upsertUser(s.t, other.key);
      const otherLead = await createLead(s.t, other.key, otherUser.serviceUserId);
      await registerConversion(s.t, s.tenant.key, {
        lead_id: leadId,
        amount_kopecks: 1000,
        external_order_id: 'shared',
      });
      const res = await s.register(
        { lead_id: otherLead, amount_kopecks: 5000, external_order_id: 'shared' },
        other.key,
      );
      expect(res.status).toBe(200);
      expect(res.body.cascaded_bonuses).toEqual([
        expect.objectContaining({ user_id: otherUser.serviceUserId, amount_kopecks: 500 }),
      ]);
    });

    it('converts the lead (from new and from processed)', async () => {
      const { leadId, referrer } = await s.chainWithLead(1);
      expect(await s.leadStatus(leadId)).toBe('new');
      await registerConversion(s.t, s.tenant.key, {
        lead_id: leadId,
        amount_kopecks: 1000,
        external_order_id: 'a',
      });
      expect(await s.leadStatus(leadId)).toBe('converted');

      const processed = await createLead(s.t, s.tenant.key, referrer.serviceUserId);
      expect((await s.fed().setLeadStatus(processed, { status: 'processed' })).status).toBe(200);
      await registerConversion(s.t, s.tenant.key, {
        lead_id: processed,
        amount_kopecks: 1000,
        external_order_id: 'b',
      });
      expect(await s.leadStatus(processed)).toBe('converted');
    });

    it('pays every repeat order of one lead', async () => {
      const { leadId, chain } = await s.chainWithLead(2);
      const [up, referrer] = chain;
      const first = await registerConversion(s.t, s.tenant.key, {
        lead_id: leadId,
        amount_kopecks: 10_000,
        external_order_id: 'r-1',
      });
      const second = await registerConversion(s.t, s.tenant.key, {
        lead_id: leadId,
        amount_kopecks: 20_000,
        external_order_id: 'r-2',
      });
      expect(second.conversion_id).not.toBe(first.conversion_id);
      expect(first.cascaded_bonuses).toEqual([
        s.share(referrer, 1000, 'referrer'),
        s.share(up, 300, 'upline_1'),
      ]);
      expect(second.cascaded_bonuses).toEqual([
        s.share(referrer, 2000, 'referrer'),
        s.share(up, 600, 'upline_1'),
      ]);
      expect(await eventsOf(s.t, s.tenant.orgId, 'conversion.cascaded')).toHaveLength(2);
      const [{ total }] = await s.t.db.query(
        `SELECT sum(amount_kopecks)::int AS total FROM bonuses WHERE tenant_id = $1`,
        [s.tenant.orgId],
      );
      expect(total).toBe(3900);
    });

    it('pays three tiers with floor, exactly, up to Number.MAX_SAFE_INTEGER', async () => {
      const { leadId, chain } = await s.chainWithLead(3);
      const [top, mid, referrer] = chain;
      const small = await registerConversion(s.t, s.tenant.key, {
        lead_id: leadId,
        amount_kopecks: 123_457,
        external_order_id: 's',
      });
      expect(small.cascaded_bonuses).toEqual([
        s.share(referrer, 12_345, 'referrer'),
        s.share(mid, 3_703, 'upline_1'),
        s.share(top, 2_469, 'upline_2'),
      ]);
      const amount = Number.MAX_SAFE_INTEGER;
      const big = await s.t
        .http()
        .post('/federation/v1/conversions/preview')
        .set('X-Service-Tenant-Key', s.tenant.key)
        .send({ lead_id: leadId, amount_kopecks: amount, currency: 'RUB' });
      expect(big.status).toBe(200);
      const exact = (bp: bigint) => Number((BigInt(amount) * bp) / 10000n);
      expect(
        big.body.cascaded_bonuses.map((b: { amount_kopecks: number }) => b.amount_kopecks),
      ).toEqual([exact(1000n), exact(300n), exact(200n)]);
      // Registered, it would take the tenant's revenue past 2^53 - 1 (docs/money.md, "The safe
      // range"): refused, nothing stored. test/e2e/bonuses/money-safe-range.e2e-spec.ts registers it
      // on a tenant of its own.
      const refused = await s.t
        .http()
        .post('/federation/v1/conversions/register')
        .set('X-Service-Tenant-Key', s.tenant.key)
        .send({
          lead_id: leadId,
          amount_kopecks: amount,
          currency: 'RUB',
          external_order_id: 'big',
        });
      expect(refused.status).toBe(422);
      expect(refused.body.code).toBe('amount_out_of_range');
    });

    it('a deactivated upline gets nothing and the next tier is unchanged; activation restores it', async () => {
      const { leadId, chain } = await s.chainWithLead(3);
      const [top, mid, referrer] = chain;
      const off = await s.admin().setMemberActive(s.tenant.slug, mid.memberId, false);
      expect(off.status).toBe(200);
      const res = await registerConversion(s.t, s.tenant.key, {
        lead_id: leadId,
        amount_kopecks: 100_000,
        external_order_id: 'd-1',
      });
      expect(res.cascaded_bonuses).toEqual([
        s.share(referrer, 10_000, 'referrer'),
        s.share(top, 2_000, 'upline_2'),
      ]);
      const [cascaded] = await eventsOf(s.t, s.tenant.orgId, 'conversion.cascaded');
      expect(cascaded.payload.cascaded_bonuses).toEqual([
        { user_id: referrer.serviceUserId, amount_kopecks: 10_000, tier: 'referrer' },
        { user_id: top.serviceUserId, amount_kopecks: 2_000, tier: 'upline_2' },
      ]);
      expect((await s.listBonuses({ user_id: mid.serviceUserId })).body.items).toEqual([]);

      expect((await s.admin().setMemberActive(s.tenant.slug, mid.memberId, true)).status).toBe(200);
      const after = await registerConversion(s.t, s.tenant.key, {
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
      const { leadId, chain } = await s.chainWithLead(2);
      const [up, referrer] = chain;
      expect(
        (await s.admin().setMemberActive(s.tenant.slug, referrer.memberId, false)).status,
      ).toBe(200);
      const res = await registerConversion(s.t, s.tenant.key, {
        lead_id: leadId,
        amount_kopecks: 100_000,
        external_order_id: 'x',
      });
      expect(res.cascaded_bonuses).toEqual([s.share(up, 3_000, 'upline_1')]);
    });

    it('the chain ends early where the network ends', async () => {
      const alone = await s.chainWithLead(1);
      const res1 = await registerConversion(s.t, s.tenant.key, {
        lead_id: alone.leadId,
        amount_kopecks: 50_000,
        external_order_id: 'e-1',
      });
      expect(res1.cascaded_bonuses).toEqual([s.share(alone.referrer, 5_000, 'referrer')]);

      const two = await s.chainWithLead(2);
      const res2 = await registerConversion(s.t, s.tenant.key, {
        lead_id: two.leadId,
        amount_kopecks: 50_000,
        external_order_id: 'e-2',
      });
      expect(res2.cascaded_bonuses).toEqual([
        s.share(two.chain[1], 5_000, 'referrer'),
        s.share(two.chain[0], 1_500, 'upline_1'),
      ]);
    });

    it('uses the offer’s program for a lead with that offer_id', async () => {
      const offer = await s.admin().createOffer(s.tenant.slug, {
        name: 'Premium',
        program: {
          tiers: [
            { tier: 'referrer', percent_bp: 2000 },
            { tier: 'upline_1', fixed_kopecks: 777 },
          ],
        },
      });
      expect(offer.status).toBe(201);
      const chain = await createChain(s.t, s.tenant.key, 3);
      const [, mid, referrer] = chain;
      const withOffer = await createLead(s.t, s.tenant.key, referrer.serviceUserId, {
        offer_id: offer.body.offer_id,
      });
      const plain = await createLead(s.t, s.tenant.key, referrer.serviceUserId);
      const res = await registerConversion(s.t, s.tenant.key, {
        lead_id: withOffer,
        amount_kopecks: 10_000,
        external_order_id: 'of-1',
      });
      // The offer has two tiers only: upline_2 of the tenant's program does not apply.
      expect(res.cascaded_bonuses).toEqual([
        s.share(referrer, 2_000, 'referrer'),
        s.share(mid, 777, 'upline_1'),
      ]);
      const res2 = await registerConversion(s.t, s.tenant.key, {
        lead_id: plain,
        amount_kopecks: 10_000,
        external_order_id: 'of-2',
      });
      expect(res2.cascaded_bonuses.map((b) => b.amount_kopecks)).toEqual([1000, 300, 200]);
    });

    it('creates each bonus pending, source conversion, in the conversion’s currency', async () => {
      const { leadId } = await s.chainWithLead(2);
      const res = await registerConversion(s.t, s.tenant.key, {
        lead_id: leadId,
        amount_kopecks: 10_000,
        external_order_id: 'cur',
        currency: 'USD',
      });
      const { items } = (await s.listBonuses()).body;
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
      const pending = await eventsOf(s.t, s.tenant.orgId, 'bonus.pending');
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
});
