/**
 * Webhook delivery end to end: each of the six events signed, with the stored bytes and the exact
 * payload keys; only subscribed types; nothing to a disabled endpoint. Setup: webhooks-suite.
 */
import { createLead, eventsOf, registerConversion } from '../../factories/money.factory';
import { createChain, upsertUser } from '../../factories/users.factory';
import { federationApi } from '../../utils/api-client';
import {
  webhooksSuite,
  type Envelope,
  EVENT_ID,
  ISO_MS,
  sleep,
  hmac,
  sorted,
} from '../../utils/webhooks-suite';

describe('webhooks: envelope, headers and payloads', () => {
  const w = webhooksSuite();

  describe('envelope, headers and payloads', () => {
    it('delivers each of the six events, signed, with the stored bytes and the exact payload keys', async () => {
      const { tenant, path, url } = await w.tenantWithPath(undefined, {
        program: {
          lead_bonus_kopecks: 5000,
          tiers: [
            { tier: 'referrer', percent_bp: 1000 },
            { tier: 'upline_1', percent_bp: 300 },
          ],
          grace_period_hours: 336,
        },
      });
      const secret = await w.configure(tenant.slug, url, [
        'lead.created',
        'bonus.pending',
        'bonus.approved',
        'bonus.rejected',
        'conversion.cascaded',
        'conversion.reversed',
      ]);
      const [root, referrer] = await createChain(w.t, tenant.key, 2);

      // lead.created + bonus.pending (the lead bonus)
      const leadId = await createLead(w.t, tenant.key, referrer.serviceUserId, {
        contact: { name: 'Мария', email: 'maria@example.org', phone: '+79990000000' },
        metadata: { campaign: 'spring', nested: { a: 1 } },
      });
      const leadBonus = (await eventsOf(w.t, tenant.orgId, 'bonus.pending'))[0].payload;
      // bonus.approved
      const approved = await w.admin().approveBonus(tenant.slug, leadBonus.bonus_id as string);
      expect(approved.status).toBe(200);
      // bonus.pending ×2 + conversion.cascaded
      const conversion = await registerConversion(w.t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 100000,
        external_order_id: `order-${tenant.slug}`,
      });
      const upline = conversion.cascaded_bonuses.find((b) => b.tier === 'upline_1')!;
      const direct = conversion.cascaded_bonuses.find((b) => b.tier === 'referrer')!;
      // bonus.rejected
      const rejected = await w
        .admin()
        .rejectBonus(tenant.slug, upline.bonus_id, { reason: 'fraud check' });
      expect(rejected.status).toBe(200);
      // conversion.reversed
      const reversed = await federationApi(w.t, tenant.key).reverseConversion(
        conversion.conversion_id,
        { reason: 'refund' },
      );
      expect(reversed.status).toBe(200);

      const stored: { id: string; event_type: string; body: string }[] = await w.t.db.query(
        `SELECT id, event_type, body FROM events WHERE tenant_id = $1`,
        [tenant.orgId],
      );
      expect(stored).toHaveLength(8);
      await w.waitForRequests(path, 8);
      await sleep(300);
      const received = w.requestsTo(path);
      expect(received).toHaveLength(8);

      const byType = new Map<string, Envelope[]>();
      const nowS = Math.floor(Date.now() / 1000);
      for (const req of received) {
        const raw = req.body.toString('utf8');
        const envelope = JSON.parse(raw) as Envelope;
        expect(sorted(envelope)).toEqual(['event_id', 'event_type', 'occurred_at', 'payload']);
        expect(envelope.event_id).toMatch(EVENT_ID);
        expect(envelope.occurred_at).toMatch(ISO_MS);
        // The bytes are the ones stored in the outbox.
        const row = stored.find((s) => s.id === envelope.event_id)!;
        expect(row).toBeDefined();
        expect(row.event_type).toBe(envelope.event_type);
        expect(req.body.equals(Buffer.from(row.body, 'utf8'))).toBe(true);

        const h = req.headers;
        expect(h['content-type']).toMatch(/^application\/json\b/);
        expect(h['x-service-signature']).toBe(hmac(secret, req.body));
        expect(h['x-service-event-id']).toBe(envelope.event_id);
        expect(h['x-service-event-type']).toBe(envelope.event_type);
        expect(h['x-service-delivery-attempt']).toBe('1');
        const ts = h['x-service-timestamp'] as string;
        expect(ts).toMatch(/^\d{10}$/);
        expect(Math.abs(Number(ts) - nowS)).toBeLessThan(60);
        expect(h['x-service-signature-timestamped']).toBe(hmac(secret, `${ts}.${raw}`));
        expect(h['x-service-signature-previous']).toBeUndefined();
        byType.set(envelope.event_type, [...(byType.get(envelope.event_type) ?? []), envelope]);
      }
      expect([...byType.keys()].sort()).toEqual([
        'bonus.approved',
        'bonus.pending',
        'bonus.rejected',
        'conversion.cascaded',
        'conversion.reversed',
        'lead.created',
      ]);
      expect(byType.get('bonus.pending')).toHaveLength(3);

      const [lead] = byType.get('lead.created')!;
      expect(sorted(lead.payload)).toEqual([
        'contact',
        'lead_id',
        'metadata',
        'offer_id',
        'referrer_user_id',
        'source',
      ]);
      expect(lead.payload).toEqual({
        lead_id: leadId,
        referrer_user_id: referrer.serviceUserId,
        contact: { name: 'Мария', email: 'maria@example.org' },
        offer_id: null,
        metadata: { campaign: 'spring', nested: { a: 1 } },
        source: 'federation',
      });

      for (const pending of byType.get('bonus.pending')!) {
        expect(sorted(pending.payload)).toEqual([
          'amount_kopecks',
          'bonus_id',
          'currency',
          'source_id',
          'source_type',
          'user_id',
        ]);
      }
      expect(byType.get('bonus.pending')!.map((e) => e.payload)).toEqual(
        expect.arrayContaining([
          {
            bonus_id: leadBonus.bonus_id,
            user_id: referrer.serviceUserId,
            amount_kopecks: 5000,
            currency: 'RUB',
            source_type: 'lead',
            source_id: leadId,
          },
          {
            bonus_id: direct.bonus_id,
            user_id: referrer.serviceUserId,
            amount_kopecks: 10000,
            currency: 'RUB',
            source_type: 'conversion',
            source_id: conversion.conversion_id,
          },
          {
            bonus_id: upline.bonus_id,
            user_id: root.serviceUserId,
            amount_kopecks: 3000,
            currency: 'RUB',
            source_type: 'conversion',
            source_id: conversion.conversion_id,
          },
        ]),
      );

      const [approvedEvent] = byType.get('bonus.approved')!;
      expect(sorted(approvedEvent.payload)).toEqual([
        'amount_kopecks',
        'approved_at',
        'bonus_id',
        'user_id',
      ]);
      expect(approvedEvent.payload).toMatchObject({
        bonus_id: leadBonus.bonus_id,
        user_id: referrer.serviceUserId,
        amount_kopecks: 5000,
      });
      expect(approvedEvent.payload.approved_at).toMatch(ISO_MS);

      const [rejectedEvent] = byType.get('bonus.rejected')!;
      expect(sorted(rejectedEvent.payload)).toEqual([
        'amount_kopecks',
        'bonus_id',
        'reason',
        'rejected_at',
        'user_id',
      ]);
      expect(rejectedEvent.payload).toMatchObject({
        bonus_id: upline.bonus_id,
        user_id: root.serviceUserId,
        amount_kopecks: 3000,
        reason: 'fraud check',
      });
      expect(rejectedEvent.payload.rejected_at).toMatch(ISO_MS);

      const [cascaded] = byType.get('conversion.cascaded')!;
      expect(sorted(cascaded.payload)).toEqual([
        'amount_kopecks',
        'cascaded_bonuses',
        'conversion_id',
        'lead_id',
      ]);
      expect(cascaded.payload).toEqual({
        conversion_id: conversion.conversion_id,
        lead_id: leadId,
        amount_kopecks: 100000,
        cascaded_bonuses: [
          { user_id: referrer.serviceUserId, amount_kopecks: 10000, tier: 'referrer' },
          { user_id: root.serviceUserId, amount_kopecks: 3000, tier: 'upline_1' },
        ],
      });

      const [reversal] = byType.get('conversion.reversed')!;
      expect(sorted(reversal.payload)).toEqual([
        'conversion_id',
        'reason',
        'reversed_at',
        'written_off',
      ]);
      // Only the still-pending referrer bonus is written off; the rejected one is not.
      expect(reversal.payload).toMatchObject({
        conversion_id: conversion.conversion_id,
        reason: 'refund',
        written_off: [
          { bonus_id: direct.bonus_id, user_id: referrer.serviceUserId, amount_kopecks: 10000 },
        ],
      });
      expect(reversal.payload.reversed_at).toMatch(ISO_MS);

      // The operator's view shows the envelope exactly as delivered.
      const detail = await w.waitForDetail(tenant.slug, reversal.event_id, w.status('delivered'));
      expect(detail.event).toEqual(reversal);
    });

    it('delivers only the subscribed event types', async () => {
      const { tenant, path, url } = await w.tenantWithPath(undefined, {
        program: { lead_bonus_kopecks: 1000 },
      });
      await w.configure(tenant.slug, url, ['conversion.cascaded']);
      const referrer = await upsertUser(w.t, tenant.key);
      // lead.created, bonus.pending ×2 and conversion.cascaded are all written to the outbox …
      const leadId = await createLead(w.t, tenant.key, referrer.serviceUserId);
      const conversion = await registerConversion(w.t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 50000,
        external_order_id: `order-${tenant.slug}`,
      });
      expect(await eventsOf(w.t, tenant.orgId)).toHaveLength(4);

      // … but only conversion.cascaded becomes a delivery and reaches the receiver.
      const list = await w.admin().webhookEvents(tenant.slug);
      expect(list.status).toBe(200);
      expect(list.body.items.map((i: { event_type: string }) => i.event_type)).toEqual([
        'conversion.cascaded',
      ]);
      await w.waitForRequests(path, 1);
      await sleep(700);
      const received = w.requestsTo(path);
      expect(received.map((r) => r.headers['x-service-event-type'])).toEqual([
        'conversion.cascaded',
      ]);
      expect(JSON.parse(received[0].body.toString('utf8')).payload.conversion_id).toBe(
        conversion.conversion_id,
      );
    });

    it('sends nothing to a disabled endpoint', async () => {
      const { tenant, path, url } = await w.tenantWithPath();
      await w.configure(
        tenant.slug,
        url,
        ['lead.created', 'bonus.pending', 'conversion.cascaded'],
        false,
      );
      const referrer = await upsertUser(w.t, tenant.key);
      const leadId = await createLead(w.t, tenant.key, referrer.serviceUserId);
      await registerConversion(w.t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 50000,
        external_order_id: `order-${tenant.slug}`,
      });
      expect((await eventsOf(w.t, tenant.orgId)).length).toBeGreaterThanOrEqual(3);
      await sleep(700);
      expect(w.requestsTo(path)).toHaveLength(0);
      const list = await w.admin().webhookEvents(tenant.slug);
      expect(list.body.pagination.total).toBe(0);
    });
  });
});
