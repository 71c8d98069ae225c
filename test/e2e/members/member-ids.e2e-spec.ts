import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser, UpsertedMember } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

/**
 * README "Ids": wherever the Federation or Admin API takes a member, its `usr_…`
 * and its `mbr_…` id are both accepted and name the same member; another tenant's is not found.
 */
describe('a member may be named by usr_ or mbr_', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  let maria: UpsertedMember;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    tenant = await createTenant(t);
    other = await createTenant(t);
    maria = await upsertUser(t, tenant.key, { full_name: 'Maria' });
  });

  const fed = (path: string, key = tenant.key) =>
    t.http().post(path).set('X-Service-Tenant-Key', key);
  const admin = (method: 'get' | 'post', path: string) =>
    t
      .http()
      [method](`/admin/v1/tenants/${tenant.slug}${path}`)
      .set('Authorization', `Bearer ${t.adminToken}`);

  it('referrer_user_id in an upsert and a lead takes mbr_; answers name the usr_', async () => {
    const ivan = await fed('/federation/v1/users/upsert').send({
      external_id: 'ivan',
      referrer_user_id: maria.memberId,
    });
    expect(ivan.status).toBe(200);
    expect(ivan.body.referrer_user_id).toBe(maria.serviceUserId);

    const lead = await fed('/federation/v1/leads').send({
      referrer_user_id: maria.memberId,
      contact: { name: 'Olga', email: 'olga@example.org' },
    });
    expect(lead.status).toBe(200);
    const [row] = await t.db.query(`SELECT referrer_user_id FROM leads WHERE id = $1`, [
      lead.body.lead_id,
    ]);
    expect(row.referrer_user_id).toBe(maria.serviceUserId);
  });

  it('deactivate by usr_ and activate by mbr_; both answers carry both ids', async () => {
    const off = await admin('post', `/users/${maria.serviceUserId}/deactivate`);
    expect(off.status).toBe(200);
    expect(off.body).toEqual({
      user_id: maria.memberId,
      service_user_id: maria.serviceUserId,
      is_active: false,
      erased: false,
    });
    const on = await admin('post', `/users/${maria.memberId}/activate`);
    expect(on.status).toBe(200);
    expect(on.body).toEqual({
      user_id: maria.memberId,
      service_user_id: maria.serviceUserId,
      is_active: true,
      erased: false,
    });
  });

  it('manual bonuses and the bonus list filter take either id', async () => {
    const body = { amount_kopecks: 5000, currency: 'RUB', reason: 'Spring campaign' };
    const byMember = await admin('post', '/bonuses').send({ ...body, user_id: maria.memberId });
    expect(byMember.status).toBe(201);
    expect(byMember.body.user_id).toBe(maria.serviceUserId);
    await admin('post', '/bonuses')
      .send({ ...body, user_id: maria.serviceUserId })
      .expect(201);
    const someoneElse = await upsertUser(t, tenant.key);
    await admin('post', '/bonuses')
      .send({ ...body, user_id: someoneElse.memberId })
      .expect(201);

    const byUsr = await admin('get', `/bonuses?user_id=${maria.serviceUserId}`);
    const byMbr = await admin('get', `/bonuses?user_id=${maria.memberId}`);
    expect(byUsr.body.pagination.total).toBe(2);
    expect(byMbr.body).toEqual(byUsr.body);
  });

  it("another tenant's ids, of either kind, are not found; other prefixes are 400", async () => {
    const stranger = await upsertUser(t, other.key);
    for (const id of [stranger.memberId, stranger.serviceUserId]) {
      const res = await admin('post', `/users/${id}/deactivate`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('user_not_found');
      const lead = await fed('/federation/v1/leads').send({
        referrer_user_id: id,
        contact: { name: 'X', email: 'x@example.org' },
      });
      expect(lead.status).toBe(404);
      expect(lead.body.code).toBe('referrer_not_found');
    }
    const empty = await admin('get', `/bonuses?user_id=${stranger.memberId}`);
    expect(empty.body.pagination.total).toBe(0);
    const wrong = await fed('/federation/v1/leads').send({
      referrer_user_id: maria.memberId.replace('mbr_', 'lead_'),
      contact: { name: 'X', email: 'x@example.org' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0]).toEqual({
      field: 'referrer_user_id',
      message: 'must be a member id (usr_… or mbr_…)',
    });
  });
});
