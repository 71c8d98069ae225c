/**
 * A lead's status over the Federation and Admin APIs: the transitions, what they do to the lead
 * bonus, bad input and tenant isolation. Setup: leads-suite.
 */
import { createLead, eventsOf } from '../../factories/money.factory';
import { createStaffToken, createTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { adminApi, federationApi } from '../../utils/api-client';
import { leadsSuite, ISO_MS_UTC } from '../../utils/leads-suite';

describe('leads: lead status', () => {
  const s = leadsSuite();

  describe('status', () => {
    it('moves new → processed → rejected and answers the lead', async () => {
      const leadId = await createLead(s.t, s.tenant.key, s.referrer.serviceUserId);
      const processed = await s.setStatus(leadId, { status: 'processed' });
      expect(processed.status).toBe(200);
      expect(processed.body).toEqual({
        lead_id: leadId,
        status: 'processed',
        source: 'federation',
        referrer_user_id: s.referrer.serviceUserId,
        offer_id: null,
        created_at: expect.stringMatching(ISO_MS_UTC),
        updated_at: expect.stringMatching(ISO_MS_UTC),
      });
      expect(Date.parse(processed.body.updated_at)).toBeGreaterThanOrEqual(
        Date.parse(processed.body.created_at),
      );
      const rejected = await s.setStatus(leadId, { status: 'rejected', reason: 'no answer' });
      expect(rejected.status).toBe(200);
      expect(rejected.body).toMatchObject({ lead_id: leadId, status: 'rejected' });
      const [row] = await s.t.db.query(
        `SELECT status, status_reason FROM leads WHERE tenant_id = $1 AND id = $2`,
        [s.tenant.orgId, leadId],
      );
      expect(row).toEqual({ status: 'rejected', status_reason: 'no answer' });
    });

    it('moves new → rejected directly', async () => {
      const leadId = await createLead(s.t, s.tenant.key, s.referrer.serviceUserId);
      const res = await s.setStatus(leadId, { status: 'rejected' });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('rejected');
    });

    it('rejected is final: every further request is 409 invalid_transition', async () => {
      const leadId = await createLead(s.t, s.tenant.key, s.referrer.serviceUserId);
      expect((await s.setStatus(leadId, { status: 'rejected' })).status).toBe(200);
      for (const status of ['new', 'processed', 'rejected', 'converted']) {
        const res = await s.setStatus(leadId, { status });
        expect(res.status).toBe(409);
        expect(res.body.code).toBe('invalid_transition');
      }
    });

    it('converted is final: a converted lead can be neither processed nor rejected', async () => {
      const leadId = await createLead(s.t, s.tenant.key, s.referrer.serviceUserId);
      const conv = await federationApi(s.t, s.tenant.key).raw(
        'post',
        '/federation/v1/conversions/register',
        { lead_id: leadId, amount_kopecks: 1000, currency: 'RUB', external_order_id: 'o1' },
      );
      expect(conv.status).toBe(200);
      for (const status of ['new', 'processed', 'rejected', 'converted']) {
        const res = await s.setStatus(leadId, { status });
        expect(res.status).toBe(409);
        expect(res.body.code).toBe('invalid_transition');
      }
    });

    it('processed → processed and back to new are refused', async () => {
      const leadId = await createLead(s.t, s.tenant.key, s.referrer.serviceUserId);
      expect((await s.setStatus(leadId, { status: 'processed' })).status).toBe(200);
      for (const status of ['processed', 'new']) {
        const res = await s.setStatus(leadId, { status });
        expect(res.status).toBe(409);
        expect(res.body.code).toBe('invalid_transition');
      }
    });

    it('requesting converted is 409 invalid_transition (only a conversion converts)', async () => {
      const leadId = await createLead(s.t, s.tenant.key, s.referrer.serviceUserId);
      const res = await s.setStatus(leadId, { status: 'converted' });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('invalid_transition');
      const [row] = await s.t.db.query(
        `SELECT status FROM leads WHERE tenant_id = $1 AND id = $2`,
        [s.tenant.orgId, leadId],
      );
      expect(row.status).toBe('new');
    });

    it('400 for an unknown status, a missing status or an unknown field', async () => {
      const leadId = await createLead(s.t, s.tenant.key, s.referrer.serviceUserId);
      for (const body of [
        { status: 'done' },
        {},
        { status: 'all' },
        { status: 'processed', x: 1 },
      ]) {
        const res = await s.setStatus(leadId, body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation_failed');
        expect(res.body.errors?.length).toBeGreaterThan(0);
      }
    });

    it('404 lead_not_found for an unknown lead', async () => {
      const res = await s.setStatus('lead_01ARZ3NDEKTSV4RRFFQ69G5FAV', { status: 'processed' });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('lead_not_found');
    });

    it('rejecting a lead rejects its pending lead bonus (lead_rejected) and emits bonus.rejected', async () => {
      const paying = await createTenant(s.t, { program: { lead_bonus_kopecks: 500 } });
      const partner = await upsertUser(s.t, paying.key);
      const leadId = await createLead(s.t, paying.key, partner.serviceUserId);
      const [bonus] = await s.bonusesOf(paying.orgId);

      const res = await s.setStatus(leadId, { status: 'rejected', reason: 'spam' }, paying.key);
      expect(res.status).toBe(200);
      const [after] = await s.bonusesOf(paying.orgId);
      expect(after).toMatchObject({ id: bonus.id, status: 'rejected', reason: 'lead_rejected' });

      const rejected = await eventsOf(s.t, paying.orgId, 'bonus.rejected');
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
      const paying = await createTenant(s.t, { program: { lead_bonus_kopecks: 500 } });
      const partner = await upsertUser(s.t, paying.key);
      const leadId = await createLead(s.t, paying.key, partner.serviceUserId);
      const [bonus] = await s.bonusesOf(paying.orgId);
      const approve = await adminApi(s.t, s.t.adminToken).raw(
        'post',
        `/admin/v1/tenants/${paying.slug}/bonuses/${bonus.id as string}/approve`,
      );
      expect(approve.status).toBe(200);

      expect((await s.setStatus(leadId, { status: 'rejected' }, paying.key)).status).toBe(200);
      const [after] = await s.bonusesOf(paying.orgId);
      expect(after.status).toBe('approved');
      expect(await eventsOf(s.t, paying.orgId, 'bonus.rejected')).toHaveLength(0);
    });

    it('processing a lead leaves its pending lead bonus pending', async () => {
      const paying = await createTenant(s.t, { program: { lead_bonus_kopecks: 500 } });
      const partner = await upsertUser(s.t, paying.key);
      const leadId = await createLead(s.t, paying.key, partner.serviceUserId);
      expect((await s.setStatus(leadId, { status: 'processed' }, paying.key)).status).toBe(200);
      const [after] = await s.bonusesOf(paying.orgId);
      expect(after.status).toBe('pending');
    });
  });

  describe('staff lead status: POST /admin/v1/tenants/:slug/leads/:id/status', () => {
    it('a manager may change it; the audit log records the action and the actor', async () => {
      const manager = await createStaffToken(s.t, s.tenant.slug, 'manager');
      const leadId = await createLead(s.t, s.tenant.key, s.referrer.serviceUserId);
      const res = await adminApi(s.t, manager).raw(
        'post',
        `/admin/v1/tenants/${s.tenant.slug}/leads/${leadId}/status`,
        { status: 'rejected', reason: 'duplicate' },
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ lead_id: leadId, status: 'rejected' });

      const audit = await adminApi(s.t, manager).auditLog(s.tenant.slug, {
        action: 'lead.status_changed',
      });
      expect(audit.status).toBe(200);
      expect(audit.body.items).toEqual([
        {
          id: expect.any(String),
          at: expect.stringMatching(ISO_MS_UTC),
          actor: { type: 'staff', name: `manager of ${s.tenant.slug}` },
          action: 'lead.status_changed',
          target_type: 'lead',
          target_id: leadId,
          details: expect.objectContaining({ status: 'rejected', reason: 'duplicate' }),
        },
      ]);
    });

    it('a viewer gets 403 forbidden and nothing changes', async () => {
      const viewer = await createStaffToken(s.t, s.tenant.slug, 'viewer');
      const leadId = await createLead(s.t, s.tenant.key, s.referrer.serviceUserId);
      const res = await adminApi(s.t, viewer).raw(
        'post',
        `/admin/v1/tenants/${s.tenant.slug}/leads/${leadId}/status`,
        { status: 'processed' },
      );
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('forbidden');
      const [row] = await s.t.db.query(
        `SELECT status FROM leads WHERE tenant_id = $1 AND id = $2`,
        [s.tenant.orgId, leadId],
      );
      expect(row.status).toBe('new');
    });

    it('refuses invalid transitions the same way (409) and unknown leads (404)', async () => {
      const manager = await createStaffToken(s.t, s.tenant.slug, 'manager');
      const leadId = await createLead(s.t, s.tenant.key, s.referrer.serviceUserId);
      const staff = (id: string, status: string) =>
        adminApi(s.t, manager).raw(
          'post',
          `/admin/v1/tenants/${s.tenant.slug}/leads/${id}/status`,
          { status },
        );
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
      const res = await s.postLead(s.validLead({ metadata }));
      expect(res.status).toBe(200);
      const [event] = await eventsOf(s.t, s.tenant.orgId, 'lead.created');
      expect(event.payload.metadata).toStrictEqual(metadata);
      const [row] = await s.t.db.query(
        `SELECT metadata FROM leads WHERE tenant_id = $1 AND id = $2`,
        [s.tenant.orgId, res.body.lead_id],
      );
      expect(row.metadata).toStrictEqual(metadata);
    });

    it.each(['constructor', 'prototype', '__proto__'])(
      'refuses the reserved key %s with a named 400 instead of dropping it',
      async (key) => {
        const metadata = JSON.parse(`{"ok":1,"nested":{"${key}":"x"}}`) as Record<string, unknown>;
        const res = await s.postLead(s.validLead({ metadata }));
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
        () => s.validLead({ contact: { name: 'a\u0000b', email: 'a@example.org' } }),
      ],
      [
        'a NUL character in a metadata value',
        () => s.validLead({ metadata: { note: 'x\u0000y' } }),
      ],
    ])('400 validation_failed for %s', async (_name, body) => {
      const res = await s.postLead(body());
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(await eventsOf(s.t, s.tenant.orgId)).toHaveLength(0);
    });

    it('a NUL character in a lead id is a 4xx, not a 5xx', async () => {
      const res = await s.setStatus('lead_%00', { status: 'processed' });
      expect([400, 404]).toContain(res.status);
      const staff = await adminApi(s.t, s.t.adminToken).raw(
        'post',
        `/admin/v1/tenants/${s.tenant.slug}/leads/lead_%00/status`,
        { status: 'processed' },
      );
      expect([400, 404]).toContain(staff.status);
    });
  });

  describe('tenant isolation', () => {
    it('tenant B cannot see or change tenant A’s lead: 404 lead_not_found, as if missing', async () => {
      const leadId = await createLead(s.t, s.tenant.key, s.referrer.serviceUserId);
      const other = await createTenant(s.t);

      const foreign = await s.setStatus(leadId, { status: 'rejected' }, other.key);
      const missing = await s.setStatus(
        'lead_01ARZ3NDEKTSV4RRFFQ69G5FAV',
        { status: 'rejected' },
        other.key,
      );
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('lead_not_found');
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe(foreign.body.code);

      const conv = await federationApi(s.t, other.key).raw(
        'post',
        '/federation/v1/conversions/register',
        { lead_id: leadId, amount_kopecks: 1000, currency: 'RUB', external_order_id: 'x' },
      );
      expect(conv.status).toBe(404);
      expect(conv.body.code).toBe('lead_not_found');

      const otherStaff = await createStaffToken(s.t, other.slug, 'owner');
      const viaOwnSlug = await adminApi(s.t, otherStaff).raw(
        'post',
        `/admin/v1/tenants/${other.slug}/leads/${leadId}/status`,
        { status: 'rejected' },
      );
      expect(viaOwnSlug.status).toBe(404);
      expect(viaOwnSlug.body.code).toBe('lead_not_found');
      const viaForeignSlug = await adminApi(s.t, otherStaff).raw(
        'post',
        `/admin/v1/tenants/${s.tenant.slug}/leads/${leadId}/status`,
        { status: 'rejected' },
      );
      expect(viaForeignSlug.status).toBe(403);

      const [row] = await s.t.db.query(
        `SELECT status FROM leads WHERE tenant_id = $1 AND id = $2`,
        [s.tenant.orgId, leadId],
      );
      expect(row.status).toBe('new');
      expect(await eventsOf(s.t, other.orgId)).toHaveLength(0);
    });
  });
});
