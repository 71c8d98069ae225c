import { eventsOf } from '../../factories/money.factory';
import { clickRef, createLink, federation } from '../../factories/fraud.factory';
import { createStaffToken, createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser, UpsertedMember } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { orgCsrf, orgSignIn } from '../../utils/pages-http';

/**
 * docs/fraud.md, "Banning a partner": one action deactivates, rejects every pending bonus
 * (`partner_banned`, each with bonus.rejected), disables the partner's links (410
 * `link_disabled`, also for a link already answered from memory) and stops future bonuses.
 */
jest.setTimeout(60_000);

describe('fraud: banning a partner', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let manager: string;
  let upline: UpsertedMember;
  let partner: UpsertedMember;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    tenant = await createTenant(t, { program: { lead_bonus_kopecks: 700 } });
    manager = await createStaffToken(t, tenant.slug, 'manager');
    upline = await upsertUser(t, tenant.key);
    partner = await upsertUser(t, tenant.key, { referrer_user_id: upline.serviceUserId });
  });

  const ban = (who: string, token = manager, body: Record<string, unknown> = { reason: 'ring' }) =>
    t
      .http()
      .post(`/admin/v1/tenants/${tenant.slug}/users/${who}/ban`)
      .set('Authorization', `Bearer ${token}`)
      .send(body);
  const lead = (email: string) =>
    federation(t, tenant, '/federation/v1/leads', {
      referrer_user_id: partner.serviceUserId,
      contact: { name: 'C', email },
    });
  const bonusesOf = async (member: UpsertedMember) =>
    t.db.query<{ id: string; status: string; reason: string | null }[]>(
      `SELECT id, status, reason FROM bonuses WHERE tenant_id = $1 AND member_id = $2 ORDER BY id`,
      [tenant.orgId, member.memberId],
    );

  it('rejects every pending bonus, disables the links (410) and pays nothing for new leads', async () => {
    const link = await createLink(t, tenant, partner);
    await clickRef(t, link); // now answered from memory
    await lead('one@customer.example');
    await lead('two@customer.example');
    expect((await bonusesOf(partner)).map((b) => b.status)).toEqual(['pending', 'pending']);

    const res = await ban(partner.memberId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      user_id: partner.memberId,
      service_user_id: partner.serviceUserId,
      is_active: false,
      banned: true,
      ban_reason: 'ring',
    });
    expect(res.body.rejected_bonus_ids).toHaveLength(2);
    const rejected = await bonusesOf(partner);
    expect(rejected.map((b) => [b.status, b.reason])).toEqual([
      ['rejected', 'partner_banned'],
      ['rejected', 'partner_banned'],
    ]);
    const events = await eventsOf(t, tenant.orgId, 'bonus.rejected');
    expect(events.map((e) => e.payload.bonus_id).sort()).toEqual(rejected.map((b) => b.id).sort());
    expect(events.every((e) => e.payload.reason === 'partner_banned')).toBe(true);

    const click = await t.http().get(`/s/${link.code}`);
    expect(click.status).toBe(410);
    expect(click.text).toContain('link_disabled');

    // New leads and conversions pay the banned partner nothing; the upline still earns.
    const later = await lead('three@customer.example');
    expect(later.status).toBe(200);
    const conversion = await federation(t, tenant, '/federation/v1/conversions/register', {
      lead_id: later.body.lead_id,
      amount_kopecks: 100_000,
      currency: 'RUB',
      external_order_id: 'after-ban',
    });
    expect(conversion.status).toBe(200);
    expect(conversion.body.cascaded_bonuses.map((b: { user_id: string }) => b.user_id)).toEqual([
      upline.serviceUserId,
    ]);
    expect((await bonusesOf(partner)).filter((b) => b.status === 'pending')).toEqual([]);

    const [audit] = await t.db.query(
      `SELECT action, target_id, details FROM audit_log WHERE tenant_id = $1 AND action = 'user.banned'`,
      [tenant.orgId],
    );
    expect(audit).toMatchObject({ target_id: partner.memberId, details: { reason: 'ring' } });
  });

  it('unban lifts the ban (links work again) but restores no bonus', async () => {
    const link = await createLink(t, tenant, partner);
    await lead('u@customer.example');
    await ban(partner.serviceUserId);
    expect((await t.http().get(`/s/${link.code}`)).status).toBe(410);
    const res = await t
      .http()
      .post(`/admin/v1/tenants/${tenant.slug}/users/${partner.memberId}/unban`)
      .set('Authorization', `Bearer ${manager}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ banned: false, is_active: true });
    expect((await t.http().get(`/s/${link.code}`)).status).toBe(302);
    expect((await bonusesOf(partner)).map((b) => b.status)).toEqual(['rejected']);
  });

  it('activate does not undo a ban: 409 user_banned on the Admin API and the console', async () => {
    // Issue #32: activate on a banned member made them earn again while the console still
    // showed the ban and their links still answered 410. Only unban lifts a ban.
    const link = await createLink(t, tenant, partner);
    await ban(partner.memberId);
    const state = async () =>
      (
        await t.db.query(
          'SELECT is_active, banned_at IS NOT NULL AS banned FROM members WHERE tenant_id = $1 AND id = $2',
          [tenant.orgId, partner.memberId],
        )
      )[0];
    for (const who of [partner.memberId, partner.serviceUserId]) {
      const res = await t
        .http()
        .post(`/admin/v1/tenants/${tenant.slug}/users/${who}/activate`)
        .set('Authorization', `Bearer ${manager}`);
      expect(res.status).toBe(409);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.code).toBe('user_banned');
      expect(res.body.detail).toContain('lift the ban first');
    }
    // The console's form post is refused the same way, back to the partner's page with the reason.
    const cookie = await orgSignIn(t.http, manager);
    const csrf = await orgCsrf(t.http, cookie, tenant.slug);
    const page = await t
      .http()
      .post(`/org/${tenant.slug}/partners/${partner.memberId}/activate`)
      .set('Cookie', cookie)
      .set('Origin', 'http://localhost:3000')
      .type('form')
      .send({ _csrf: csrf });
    expect(page.status).toBe(303);
    expect(new URL(page.headers.location, 'http://x').searchParams.get('error')).toContain(
      'lift the ban first',
    );
    // One state: still banned, inactive, paid nothing, links still 410.
    expect(await state()).toEqual({ is_active: false, banned: true });
    expect((await t.http().get(`/s/${link.code}`)).status).toBe(410);
    await lead('after-activate@customer.example');
    expect(await bonusesOf(partner)).toEqual([]);
    const audit = await t.db.query(
      `SELECT 1 FROM audit_log WHERE tenant_id = $1 AND action = 'user.activated'`,
      [tenant.orgId],
    );
    expect(audit).toEqual([]);
    // Unban is the way back.
    const unban = await t
      .http()
      .post(`/admin/v1/tenants/${tenant.slug}/users/${partner.memberId}/unban`)
      .set('Authorization', `Bearer ${manager}`);
    expect(unban.status).toBe(200);
    expect(await state()).toEqual({ is_active: true, banned: false });
  });

  it('viewers may not ban; an unknown member is 404; a reason is required', async () => {
    const viewer = await createStaffToken(t, tenant.slug, 'viewer');
    expect((await ban(partner.memberId, viewer)).status).toBe(403);
    const unknown = await ban('mbr_01ARZ3NDEKTSV4RRFFQ69G5FAV');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('user_not_found');
    expect((await ban(partner.memberId, manager, {})).status).toBe(400);
    const other = await createTenant(t);
    const stranger = await upsertUser(t, other.key);
    expect((await ban(stranger.memberId)).status).toBe(404);
  });
});
