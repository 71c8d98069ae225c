import { createLink, federation, requestLink } from '../../factories/fraud.factory';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser, UpsertedMember } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

/**
 * docs/fraud.md, "Promo codes": a promo code names one link per tenant whatever its case (the
 * database decides between concurrent creations), and a conversion can name its partner by the
 * code or by a ref, the lead created with it in one transaction.
 */
jest.setTimeout(60_000);

describe('fraud: promo codes', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let owner: UpsertedMember;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    tenant = await createTenant(t);
    owner = await upsertUser(t, tenant.key, { email: 'owner@partner.example' });
  });

  const register = (body: Record<string, unknown>) =>
    federation(t, tenant, '/federation/v1/conversions/register', { currency: 'RUB', ...body });

  it('20 partners asking for one code at once in different cases: one link, 19× 409 promo_code_taken', async () => {
    const members = await Promise.all(
      Array.from({ length: 20 }, (_, i) => upsertUser(t, tenant.key, { full_name: `P${i}` })),
    );
    const cases = ['SPRING', 'spring', 'Spring', 'sPrInG'];
    const answers = await Promise.all(
      members.map((m, i) =>
        requestLink(t, tenant, m, {
          target_type: 'website',
          target_id: `${tenant.body.allowed_origins[0]}/p${i}`,
          promo_code: cases[i % cases.length],
        }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    for (const r of answers.filter((a) => a.status === 409)) {
      expect(r.body.code).toBe('promo_code_taken');
      expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    const [{ count }] = await t.db.query(
      `SELECT count(*)::int AS count FROM deeplinks WHERE tenant_id = $1 AND lower(promo_code) = 'spring'`,
      [tenant.orgId],
    );
    expect(count).toBe(1);

    // The winner's own call again: the same link, reused.
    const winner = answers.findIndex((a) => a.status === 200);
    const again = await requestLink(t, tenant, members[winner], {
      target_type: 'website',
      target_id: `${tenant.body.allowed_origins[0]}/p${winner}`,
      promo_code: cases[winner % cases.length],
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      deeplink_id: answers[winner].body.deeplink_id,
      reused: true,
    });
  });

  it('20 identical calls at once: one link, the others reused; the code is free in another tenant', async () => {
    const body = { target_type: 'offer', target_id: 'o-1', promo_code: 'SAME-20' };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => requestLink(t, tenant, owner, body)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((a) => a.body.deeplink_id)).size).toBe(1);
    expect(answers.filter((a) => a.body.reused === false)).toHaveLength(1);

    const other = await createTenant(t);
    const stranger = await upsertUser(t, other.key);
    expect((await requestLink(t, other, stranger, body)).status).toBe(200);
  });

  it('registers an order by promo code (any case): the lead and the conversion in one go', async () => {
    await createLink(t, tenant, owner, { promo_code: 'Autumn-5' });
    const res = await register({
      promo_code: 'AUTUMN-5',
      customer: { external_id: 'c-1', email: 'buyer@shop.example', name: 'Buyer' },
      amount_kopecks: 100_000,
      external_order_id: 'ord-1',
    });
    expect(res.status).toBe(200);
    expect(res.body.lead_id).toMatch(/^lead_/);
    expect(res.body.cascaded_bonuses).toEqual([
      expect.objectContaining({
        user_id: owner.serviceUserId,
        tier: 'referrer',
        amount_kopecks: 10_000,
      }),
    ]);
    const [lead] = await t.db.query(
      `SELECT source, status, contact_email, referrer_member_id, metadata FROM leads WHERE tenant_id = $1 AND id = $2`,
      [tenant.orgId, res.body.lead_id],
    );
    expect(lead).toMatchObject({
      source: 'promo_code',
      status: 'converted',
      contact_email: 'buyer@shop.example',
      referrer_member_id: owner.memberId,
      metadata: { customer_external_id: 'c-1' },
    });
  });

  it('the same order twice (also at once) gives one conversion and one lead', async () => {
    await createLink(t, tenant, owner, { promo_code: 'TWICE' });
    const body = {
      promo_code: 'twice',
      customer: { email: 'twice@shop.example' },
      amount_kopecks: 50_000,
      external_order_id: 'ord-twice',
    };
    const answers = await Promise.all(Array.from({ length: 8 }, () => register(body)));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(new Set(answers.map((a) => a.body.conversion_id)).size).toBe(1);
    expect(new Set(answers.map((a) => a.body.lead_id)).size).toBe(1);
    const later = await register(body);
    expect(later.body).toEqual(answers[0].body);
    const [{ leads }] = await t.db.query(
      `SELECT count(*)::int AS leads FROM leads WHERE tenant_id = $1 AND source = 'promo_code'`,
      [tenant.orgId],
    );
    expect(leads).toBe(1);
    // The same order with another amount is a conflict, as with lead_id.
    const changed = await register({ ...body, amount_kopecks: 50_001 });
    expect(changed.status).toBe(409);
    expect(changed.body.code).toBe('external_order_id_conflict');
  });

  it('an unknown code is 404 promo_code_not_found and writes nothing', async () => {
    const res = await register({
      promo_code: 'NOPE',
      customer: { name: 'Someone' },
      amount_kopecks: 1000,
      external_order_id: 'ord-nope',
    });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('promo_code_not_found');
    const [{ count }] = await t.db.query(
      `SELECT count(*)::int AS count FROM leads WHERE tenant_id = $1`,
      [tenant.orgId],
    );
    expect(count).toBe(0);
  });

  it('registers an order by signed_ref: the lead has source referral_link', async () => {
    const link = await createLink(t, tenant, owner);
    const res = await register({
      signed_ref: link.signed_ref,
      customer: { name: 'Ref Buyer', email: 'ref@shop.example' },
      amount_kopecks: 20_000,
      external_order_id: 'ord-ref',
    });
    expect(res.status).toBe(200);
    const [lead] = await t.db.query(`SELECT source FROM leads WHERE tenant_id = $1 AND id = $2`, [
      tenant.orgId,
      res.body.lead_id,
    ]);
    expect(lead.source).toBe('referral_link');
  });

  it('refuses two ways of naming the partner, or a code without a customer (400)', async () => {
    await createLink(t, tenant, owner, { promo_code: 'BOTH' });
    const both = await register({
      lead_id: 'lead_01ARZ3NDEKTSV4RRFFQ69G5FAV',
      promo_code: 'BOTH',
      customer: { name: 'X' },
      amount_kopecks: 1000,
      external_order_id: 'ord-both',
    });
    expect(both.status).toBe(400);
    expect(both.body.code).toBe('validation_failed');
    const noCustomer = await register({
      promo_code: 'BOTH',
      amount_kopecks: 1000,
      external_order_id: 'ord-nocust',
    });
    expect(noCustomer.status).toBe(400);
    const emptyCustomer = await register({
      promo_code: 'BOTH',
      customer: {},
      amount_kopecks: 1000,
      external_order_id: 'ord-empty',
    });
    expect(emptyCustomer.status).toBe(400);
    const nothing = await register({ amount_kopecks: 1000, external_order_id: 'ord-none' });
    expect(nothing.status).toBe(400);
  });
});
