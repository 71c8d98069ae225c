import { createLead, registerConversion } from '../../factories/money.factory';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser, UpsertedMember } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

/**
 * docs/embedding.md: unknown body fields are refused (400), never silently dropped, also on the
 * admin POSTs that take no body at all (approve, activate, webhook test, secret rotation, replay)
 * and on DELETEs. An empty object, or no body, is still accepted.
 */
describe('routes without a body refuse body fields', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let member: UpsertedMember;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    tenant = await createTenant(t);
    member = await upsertUser(t, tenant.key);
  });

  const admin = (method: 'post' | 'delete', path: string) =>
    t.http()[method](path).set('Authorization', `Bearer ${t.adminToken}`);

  const expectRefused = (res: { status: number; body: Record<string, unknown> }, field: string) => {
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'validation_failed',
      errors: [{ field, message: expect.any(String) }],
    });
  };

  it('bonus approve: a field is 400 and the bonus stays pending; {} and no body approve', async () => {
    const leadId = await createLead(t, tenant.key, member.serviceUserId);
    const [a, b] = await Promise.all([
      registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 10_000,
        external_order_id: 'o-1',
      }),
      registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 10_000,
        external_order_id: 'o-2',
      }),
    ]);
    const bonus = a.cascaded_bonuses[0].bonus_id;
    const path = `/admin/v1/tenants/${tenant.slug}/bonuses/${bonus}/approve`;
    expectRefused(await admin('post', path).send({ reason: 'looks fine' }), 'reason');
    const [row] = await t.db.query(`SELECT status FROM bonuses WHERE id = $1`, [bonus]);
    expect(row.status).toBe('pending');

    expect((await admin('post', path).send({})).status).toBe(200);
    const other = b.cascaded_bonuses[0].bonus_id;
    expect(
      (await admin('post', `/admin/v1/tenants/${tenant.slug}/bonuses/${other}/approve`)).status,
    ).toBe(200);
  });

  it('member activate and deactivate refuse fields and change nothing', async () => {
    const path = `/admin/v1/tenants/${tenant.slug}/users/${member.memberId}/deactivate`;
    expectRefused(await admin('post', path).send({ is_active: false }), 'is_active');
    const [row] = await t.db.query(`SELECT is_active FROM members WHERE id = $1`, [
      member.memberId,
    ]);
    expect(row.is_active).toBe(true);
    expect((await admin('post', path)).status).toBe(200);
  });

  it('webhook test and secret rotation refuse fields', async () => {
    const base = `/admin/v1/tenants/${tenant.slug}/webhook`;
    expectRefused(await admin('post', `${base}/test`).send({ url: 'https://x.example' }), 'url');
    expectRefused(await admin('post', `${base}/secret`).send({ secret: 'mine' }), 'secret');
  });

  it('DELETE of a tenant key refuses fields and keeps the key', async () => {
    const created = await admin('post', `/admin/v1/tenants/${tenant.slug}/keys`).send({});
    expect(created.status).toBeLessThan(300);
    const keyId = created.body.key_id ?? created.body.id;
    const path = `/admin/v1/tenants/${tenant.slug}/keys/${keyId}`;
    expectRefused(await admin('delete', path).send({ force: true }), 'force');
    const [row] = await t.db.query(`SELECT revoked_at FROM tenant_keys WHERE id = $1`, [keyId]);
    expect(row.revoked_at).toBeNull();
  });
});
