import { HousekeepingService } from '../../../src/housekeeping/housekeeping.service';
import { federation } from '../../factories/fraud.factory';
import { eventsOf } from '../../factories/money.factory';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { upsertUser, type UpsertedMember } from '../../factories/users.factory';
import { createTestApp, type TestApp } from '../../utils/create-test-app';

/**
 * docs/privacy.md: a referred customer erased by email, phone or external id, in one tenant only
 * (stored events included); client data cleared after the tenant's retention; the service-wide
 * person behind members of two tenants keeps their email until both are erased.
 */
jest.setTimeout(60_000);

let t: TestApp;
let tenant: TestTenant;
let other: TestTenant;
let owner: string;
let partner: UpsertedMember;
let stranger: UpsertedMember;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t);
  other = await createTenant(t);
  owner = await createStaffToken(t, tenant.slug, 'owner');
  partner = await upsertUser(t, tenant.key);
  stranger = await upsertUser(t, other.key);
});
afterAll(() => t.close());

const eraseCustomer = (body: unknown, token = owner, slug = tenant.slug) =>
  t
    .http()
    .post(`/admin/v1/tenants/${slug}/customers/erase`)
    .set('Authorization', `Bearer ${token}`)
    .send(body as object);

const lead = (on: TestTenant, referrer: UpsertedMember, contact: object, client?: object) =>
  federation(t, on, '/federation/v1/leads', {
    referrer_user_id: referrer.serviceUserId,
    contact,
    ...(client ? { client } : {}),
  });

it('erases the matching leads and conversions of this tenant, stored events included', async () => {
  const contact = { name: 'Olga Smirnova', email: 'Olga.S@Example.com', phone: '+7 999 123-45-67' };
  const a = await lead(tenant, partner, contact, { ip: '198.51.100.23', user_agent: 'OlgaUA/1' });
  const b = await lead(tenant, partner, { name: 'Olga S.', phone: '+79991234567' });
  const keep = await lead(tenant, partner, { name: 'Someone Else', email: 'else@example.com' });
  const elsewhere = await lead(other, stranger, contact);
  for (const r of [a, b, keep, elsewhere]) expect(r.status).toBe(200);
  const conversion = await federation(t, tenant, '/federation/v1/conversions/register', {
    lead_id: a.body.lead_id,
    amount_kopecks: 100_000,
    currency: 'RUB',
    external_order_id: 'olga-1',
    client: { ip: '198.51.100.23', user_agent: 'OlgaUA/1' },
  });
  expect(conversion.status).toBe(200);

  const res = await eraseCustomer({ email: 'olga.s@example.com', phone: '+7 (999) 123 45 67' });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ leads: 2, conversions: 1 });

  const leads = await t.db.query(
    `SELECT id, contact_name, contact_email, contact_phone, client_ip, client_user_agent
       FROM leads WHERE tenant_id = $1 ORDER BY id`,
    [tenant.orgId],
  );
  const erased = leads.filter((l: { id: string }) =>
    [a.body.lead_id, b.body.lead_id].includes(l.id),
  );
  expect(erased.map((l: Record<string, unknown>) => ({ ...l, id: undefined }))).toEqual([
    {
      id: undefined,
      contact_name: '[erased]',
      contact_email: null,
      contact_phone: null,
      client_ip: null,
      client_user_agent: null,
    },
    {
      id: undefined,
      contact_name: '[erased]',
      contact_email: null,
      contact_phone: null,
      client_ip: null,
      client_user_agent: null,
    },
  ]);
  expect(leads.find((l: { id: string }) => l.id === keep.body.lead_id).contact_email).toBe(
    'else@example.com',
  );
  const [conv] = await t.db.query(
    `SELECT client_ip, client_user_agent FROM conversions WHERE tenant_id = $1`,
    [tenant.orgId],
  );
  expect(conv).toEqual({ client_ip: null, client_user_agent: null });

  const bodies = JSON.stringify(await eventsOf(t, tenant.orgId, 'lead.created'));
  expect(bodies).not.toMatch(/olga/i);
  expect(bodies).toContain('else@example.com');
  // Another tenant's customer of the same email is theirs to erase.
  const [theirs] = await t.db.query(`SELECT contact_email FROM leads WHERE tenant_id = $1`, [
    other.orgId,
  ]);
  expect(theirs.contact_email).toBe('Olga.S@Example.com');
  expect(JSON.stringify(await eventsOf(t, other.orgId, 'lead.created'))).toContain('Olga');

  const [audit] = await t.db.query(
    `SELECT details FROM audit_log WHERE tenant_id = $1 AND action = 'customers.erased'`,
    [tenant.orgId],
  );
  expect(audit.details).toEqual({ leads: 2, conversions: 1 });
});

it('needs at least one field, a valid email, and the owner', async () => {
  for (const body of [{}, { email: 'not-an-email' }, { phone: null }]) {
    const res = await eraseCustomer(body);
    expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
    expect(res.body.code).toBe('validation_failed');
  }
  const manager = await createStaffToken(t, tenant.slug, 'manager');
  expect((await eraseCustomer({ email: 'x@example.com' }, manager)).status).toBe(403);
  const foreign = await createStaffToken(t, other.slug, 'owner');
  expect((await eraseCustomer({ email: 'x@example.com' }, foreign)).status).toBe(403);
  const member = await t
    .http()
    .post(`/admin/v1/tenants/${tenant.slug}/users/${stranger.memberId}/erase`)
    .set('Authorization', `Bearer ${owner}`);
  expect(member.status).toBe(404);
  expect(member.body.code).toBe('user_not_found');
});

it("clears client IPs and user agents older than the tenant's retention", async () => {
  const update = await t
    .http()
    .patch(`/admin/v1/tenants/${tenant.slug}`)
    .set('Authorization', `Bearer ${t.adminToken}`)
    .send({ retention: { client_data_days: 30 } });
  expect(update.status).toBe(200);
  expect(update.body.retention).toEqual({ client_data_days: 30, events_days: 30 });
  const bad = await t
    .http()
    .patch(`/admin/v1/tenants/${tenant.slug}`)
    .set('Authorization', `Bearer ${t.adminToken}`)
    .send({ retention: { client_data_days: 0 } });
  expect(bad.status).toBe(400);

  const old = await lead(
    tenant,
    partner,
    { name: 'Old', email: 'old@example.com' },
    { ip: '192.0.2.1', user_agent: 'OldUA' },
  );
  const recent = await lead(
    tenant,
    partner,
    { name: 'New', email: 'new@example.com' },
    { ip: '192.0.2.2', user_agent: 'NewUA' },
  );
  await t.db.query(
    `UPDATE leads SET created_at = now() - interval '31 days' WHERE tenant_id = $1 AND id = $2`,
    [tenant.orgId, old.body.lead_id],
  );
  const report = await t.app.get(HousekeepingService).run();
  expect(report.leadClientData).toBeGreaterThanOrEqual(1);
  const rows = await t.db.query(
    `SELECT id, host(client_ip) AS ip, client_user_agent AS ua FROM leads WHERE tenant_id = $1 AND id = ANY($2)`,
    [tenant.orgId, [old.body.lead_id, recent.body.lead_id]],
  );
  const byId = Object.fromEntries(rows.map((r: { id: string }) => [r.id, r]));
  expect(byId[old.body.lead_id]).toMatchObject({ ip: null, ua: null });
  expect(byId[recent.body.lead_id]).toMatchObject({ ip: '192.0.2.2', ua: 'NewUA' });
});

it("keeps the service-wide person's email while a member of another tenant still uses it", async () => {
  const email = 'shared.person@example.org';
  const here = await upsertUser(t, tenant.key, { email, email_verified: true });
  const there = await upsertUser(t, other.key, { email, email_verified: true });
  expect(there.serviceUserId).toBe(here.serviceUserId);
  const verifiedEmail = async () =>
    (
      await t.db.query(`SELECT verified_email FROM service_users WHERE id = $1`, [
        here.serviceUserId,
      ])
    )[0].verified_email as string | null;
  const eraseIn = async (slug: string, token: string) =>
    t
      .http()
      .post(`/admin/v1/tenants/${slug}/users/${here.serviceUserId}/erase`)
      .set('Authorization', `Bearer ${token}`);

  expect((await eraseIn(tenant.slug, owner)).status).toBe(200);
  expect(await verifiedEmail()).toBe(email);
  const [theirs] = await t.db.query(`SELECT email FROM members WHERE tenant_id = $1 AND id = $2`, [
    other.orgId,
    there.memberId,
  ]);
  expect(theirs.email).toBe(email);
  expect((await eraseIn(other.slug, t.adminToken)).status).toBe(200);
  expect(await verifiedEmail()).toBeNull();
});
