import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { createChain, upsertUser } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

describe('POST /federation/v1/users/upsert', () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    tenant = await createTenant(t);
  });

  const upsert = (body: Record<string, unknown>, key = tenant.key) =>
    t.http().post('/federation/v1/users/upsert').set('X-Service-Tenant-Key', key).send(body);

  it('creates, then reports unchanged, then updated', async () => {
    const first = await upsert({ external_id: 'u1', full_name: 'Ann', email: 'ann@example.com' });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      tenant_service_id: expect.stringMatching(/^mbr_[0-9A-Z]{26}$/),
      service_user_id: expect.stringMatching(/^usr_[0-9A-Z]{26}$/),
      action: 'created',
      referrer_user_id: null,
    });
    const again = await upsert({ external_id: 'u1', full_name: 'Ann', email: 'ann@example.com' });
    expect(again.body).toEqual({ ...first.body, action: 'unchanged' });
    const changed = await upsert({ external_id: 'u1', full_name: 'Ann Smith' });
    expect(changed.body).toEqual({ ...first.body, action: 'updated' });
  });

  it('sets the referrer once and never changes it', async () => {
    const a = await upsertUser(t, tenant.key);
    const b = await upsertUser(t, tenant.key);
    const c = await upsert({ external_id: 'c', referrer_user_id: a.serviceUserId });
    expect(c.body).toMatchObject({ action: 'created', referrer_user_id: a.serviceUserId });
    const moved = await upsert({ external_id: 'c', referrer_user_id: b.serviceUserId });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ action: 'unchanged', referrer_user_id: a.serviceUserId });
  });

  it('sets a referrer on an existing member that had none', async () => {
    const a = await upsertUser(t, tenant.key);
    const b = await upsertUser(t, tenant.key);
    const res = await upsert({ external_id: b.externalId, referrer_user_id: a.serviceUserId });
    expect(res.body).toMatchObject({ action: 'updated', referrer_user_id: a.serviceUserId });
  });

  it('refuses a referral cycle: self and downline', async () => {
    const [root, , leaf] = await createChain(t, tenant.key, 3);
    const self = await upsert({
      external_id: root.externalId,
      referrer_user_id: root.serviceUserId,
    });
    expect(self.status).toBe(422);
    expect(self.body.code).toBe('referral_cycle');
    const downline = await upsert({
      external_id: root.externalId,
      referrer_user_id: leaf.serviceUserId,
    });
    expect(downline.status).toBe(422);
    expect(downline.body.code).toBe('referral_cycle');
  });

  it('answers 404 referrer_not_found for an unknown referrer', async () => {
    const res = await upsert({
      external_id: 'x',
      referrer_user_id: 'usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T',
    });
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 404, code: 'referrer_not_found' });
  });
});
