/**
 * Previewing and reversing conversions over the Federation and Admin APIs: what is paid, what is
 * written off, the events and the audit log. Setup: money-suite.
 */
import { eventsOf, registerConversion } from '../../factories/money.factory';
import { createStaffToken, createTenant } from '../../factories/tenants.factory';
import { byId, ISO_MS_UTC, keysOf, moneySuite, UNKNOWN } from '../../utils/money-suite';

describe('money: preview and reversal', () => {
  const s = moneySuite();

  describe('preview', () => {
    it('returns what register would pay and writes nothing', async () => {
      const { leadId, chain } = await s.chainWithLead(3);
      await s.admin().setMemberActive(s.tenant.slug, chain[1].memberId, false);
      const before = await s.counts();
      const preview = await s.fed().previewConversion({
        lead_id: leadId,
        amount_kopecks: 123_457,
        currency: 'RUB',
      });
      expect(preview.status).toBe(200);
      expect(preview.body).toEqual({
        lead_id: leadId,
        amount_kopecks: 123_457,
        currency: 'RUB',
        // What register pays, before there are bonus ids.
        cascaded_bonuses: [
          s.share(chain[2], 12_345, 'referrer'),
          s.share(chain[0], 2_469, 'upline_2'),
        ].map(({ bonus_id: _, ...share }) => share),
      });
      const withOrder = await s.fed().previewConversion({
        lead_id: leadId,
        amount_kopecks: 123_457,
        currency: 'RUB',
        external_order_id: 'p-1',
      });
      expect(withOrder.body).toEqual(preview.body);
      expect(await s.counts()).toEqual(before);
      expect(await s.leadStatus(leadId)).toBe('new');

      const registered = await registerConversion(s.t, s.tenant.key, {
        lead_id: leadId,
        amount_kopecks: 123_457,
        external_order_id: 'p-1',
      });
      expect(registered.cascaded_bonuses.map(({ bonus_id: _, ...share }) => share)).toEqual(
        preview.body.cascaded_bonuses,
      );
    });

    it('refuses like register: 404 unknown lead, 409 rejected lead, 400 bad amount', async () => {
      const { leadId } = await s.chainWithLead(1);
      const unknown = await s.fed().previewConversion({
        lead_id: UNKNOWN.lead,
        amount_kopecks: 1,
        currency: 'RUB',
      });
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('lead_not_found');
      const bad = await s.fed().previewConversion({
        lead_id: leadId,
        amount_kopecks: 0,
        currency: 'RUB',
      });
      expect(bad.status).toBe(400);
      await s.fed().setLeadStatus(leadId, { status: 'rejected' });
      const rejected = await s.fed().previewConversion({
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
      const { leadId } = await s.chainWithLead(3);
      const conv = await registerConversion(s.t, s.tenant.key, {
        lead_id: leadId,
        amount_kopecks: 100_000,
        external_order_id: 'rv-1',
      });
      const [ref, up1, up2] = conv.cascaded_bonuses;
      expect((await s.approve(ref.bonus_id)).status).toBe(200);
      expect((await s.reject(up1.bonus_id, 'fraud')).status).toBe(200);

      const res = await s.reverse(conv.conversion_id, 'refund');
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

      expect(await s.bonus(ref.bonus_id)).toMatchObject({
        status: 'reversed',
        reversed_at: expect.stringMatching(ISO_MS_UTC),
        approved_at: expect.stringMatching(ISO_MS_UTC),
      });
      expect(await s.bonus(up1.bonus_id)).toMatchObject({
        status: 'rejected',
        reason: 'fraud',
        reversed_at: null,
      });
      expect(await s.bonus(up2.bonus_id)).toMatchObject({ status: 'reversed' });
      expect((await s.listBonuses({ status: 'reversed' })).body.pagination.total).toBe(2);

      const events = await eventsOf(s.t, s.tenant.orgId, 'conversion.reversed');
      expect(events).toHaveLength(1);
      expect(events[0].payload).toStrictEqual({
        conversion_id: conv.conversion_id,
        reversed_at: res.body.reversed_at,
        reason: 'refund',
        written_off: res.body.written_off,
      });

      const twice = await s.reverse(conv.conversion_id);
      expect(twice.status).toBe(409);
      expect(twice.body.code).toBe('already_reversed');
      expect(await eventsOf(s.t, s.tenant.orgId, 'conversion.reversed')).toHaveLength(1);

      // A written-off bonus can be neither approved nor rejected any more.
      expect((await s.approve(up2.bonus_id)).body.code).toBe('invalid_transition');
      expect((await s.reject(up2.bonus_id, 'late')).body.code).toBe('invalid_transition');
    });

    it('400 without a reason; 404 conversion_not_found for unknown and foreign conversions', async () => {
      const { leadId } = await s.chainWithLead(1);
      const conv = await registerConversion(s.t, s.tenant.key, {
        lead_id: leadId,
        amount_kopecks: 1000,
        external_order_id: 'rv-2',
      });
      const noReason = await s.fed().reverseConversion(conv.conversion_id, {});
      expect(noReason.status).toBe(400);
      expect(noReason.body.code).toBe('validation_failed');

      const unknown = await s.reverse(UNKNOWN.conversion);
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('conversion_not_found');

      const other = await createTenant(s.t);
      const foreign = await s.reverse(conv.conversion_id, 'refund', other.key);
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('conversion_not_found');
      expect((await s.bonus(conv.cascaded_bonuses[0].bonus_id)).status).toBe('pending');
    });

    it('staff reverse (s.manager) works and is audited; a viewer gets 403', async () => {
      const { leadId } = await s.chainWithLead(1);
      const conv = await registerConversion(s.t, s.tenant.key, {
        lead_id: leadId,
        amount_kopecks: 1000,
        external_order_id: 'rv-3',
      });
      const viewer = await createStaffToken(s.t, s.tenant.slug, 'viewer');
      const denied = await s.admin(viewer).reverseConversion(s.tenant.slug, conv.conversion_id, {
        reason: 'x',
      });
      expect(denied.status).toBe(403);
      expect((await s.bonus(conv.cascaded_bonuses[0].bonus_id)).status).toBe('pending');

      const res = await s.admin().reverseConversion(s.tenant.slug, conv.conversion_id, {
        reason: 'chargeback',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'reversed', reason: 'chargeback' });
      expect(res.body.written_off).toHaveLength(1);
      const audit = await s.auditOf('conversion.reversed');
      expect(audit).toEqual([
        expect.objectContaining({
          actor: { type: 'staff', name: `manager of ${s.tenant.slug}` },
          action: 'conversion.reversed',
          target_type: 'conversion',
          target_id: conv.conversion_id,
          details: expect.objectContaining({ reason: 'chargeback' }),
        }),
      ]);
      const unknown = await s.admin().reverseConversion(s.tenant.slug, UNKNOWN.conversion, {
        reason: 'x',
      });
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('conversion_not_found');
    });
  });
});
