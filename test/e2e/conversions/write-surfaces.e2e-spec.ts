/**
 * The writes the Federation API and the Admin API both offer (docs/architecture.md, "One write,
 * two surfaces"): a lead's status, a conversion's register, preview and reversal take the same
 * bodies and give the same answers on both; staff need their role, and only staff's writes are
 * in the audit log.
 */
import { moneySuite } from '../../utils/money-suite';
import { createStaffToken } from '../../factories/tenants.factory';

describe('writes on both surfaces: the federation and staff', () => {
  const s = moneySuite();

  it('staff preview, register and reverse as the back end does; only staff are audited', async () => {
    const { leadId, referrer } = await s.chainWithLead(1);
    const viewer = await createStaffToken(s.t, s.tenant.slug, 'viewer');
    const order = { lead_id: leadId, amount_kopecks: 10_000, currency: 'RUB' };

    const preview = { lead_id: leadId, amount_kopecks: 10_000, currency: 'RUB' };
    const fedPreview = await s.fed().previewConversion(preview);
    const staffPreview = await s.admin(viewer).previewConversion(s.tenant.slug, preview);
    expect(fedPreview.status).toBe(200);
    expect(staffPreview.status).toBe(200);
    expect(staffPreview.body).toEqual(fedPreview.body);

    const refused = await s
      .admin(viewer)
      .registerConversion(s.tenant.slug, { ...order, external_order_id: 'by-viewer' });
    expect(refused.status).toBe(403);
    const byStaff = await s
      .admin()
      .registerConversion(s.tenant.slug, { ...order, external_order_id: 'by-staff' });
    const byBackEnd = await s.register({ ...order, external_order_id: 'by-back-end' });
    for (const res of [byStaff, byBackEnd]) {
      expect(res.status).toBe(200);
      expect(res.body.cascaded_bonuses).toEqual([s.share(referrer, 1000, 'referrer')]);
    }
    expect((await s.counts()).conversions).toBe(2);

    expect((await s.reverse(byBackEnd.body.conversion_id)).status).toBe(200);
    const staffReversal = await s
      .admin()
      .reverseConversion(s.tenant.slug, byStaff.body.conversion_id, { reason: 'refund' });
    expect(staffReversal.status).toBe(200);

    for (const action of ['conversion.registered', 'conversion.reversed']) {
      const entries = await s.auditOf(action);
      expect(entries.map((e) => [e.actor.type, e.target_id])).toEqual([
        ['staff', byStaff.body.conversion_id],
      ]);
    }
  });

  it('staff name the partner by promo code or signed ref, refused as the back end is', async () => {
    const body = {
      customer: { name: 'Someone' },
      amount_kopecks: 1000,
      currency: 'RUB',
      external_order_id: 'ord-unknown',
    };
    for (const [attribution, status, code] of [
      [{ promo_code: 'NOPE' }, 404, 'promo_code_not_found'],
      [{ signed_ref: 'not.a-ref' }, 422, 'invalid_ref'],
    ] as const) {
      const fed = await s.register({ ...body, ...attribution });
      const staff = await s.admin().registerConversion(s.tenant.slug, { ...body, ...attribution });
      for (const res of [fed, staff]) {
        expect(res.status).toBe(status);
        expect(res.body.code).toBe(code);
      }
    }
    expect(await s.counts()).toMatchObject({ conversions: 0, bonuses: 0 });
  });

  it("staff move a lead's status as the back end does; only staff are audited", async () => {
    const { leadId } = await s.chainWithLead(1);
    const other = await s.chainWithLead(1);
    const viewer = await createStaffToken(s.t, s.tenant.slug, 'viewer');
    const processed = { status: 'processed' } as const;

    expect((await s.admin(viewer).setLeadStatus(s.tenant.slug, leadId, processed)).status).toBe(
      403,
    );
    const byStaff = await s.admin().setLeadStatus(s.tenant.slug, leadId, processed);
    const byBackEnd = await s.fed().setLeadStatus(other.leadId, processed);
    for (const res of [byStaff, byBackEnd]) {
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('processed');
    }
    const entries = await s.auditOf('lead.status_changed');
    expect(entries.map((e) => [e.actor.type, e.target_id])).toEqual([['staff', leadId]]);
  });
});
