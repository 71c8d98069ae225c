import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { PayoutDetailsService } from '../../../src/payouts/payout-details/payout-details.service';
import { SignInService } from '../../../src/sign-in-popup/sign-in.service';
import { TenantEntity } from '../../../src/tenants/tenant.entity';
import { eventsOf } from '../../factories/money.factory';
import { createLink, federation } from '../../factories/fraud.factory';
import { approveBonus, invariantViolations, runPayouts } from '../../factories/payouts.factory';
import { createStaffToken, type TestTenant } from '../../factories/tenants.factory';
import { upsertUser, type UpsertedMember } from '../../factories/users.factory';
import { example, sleep, webhooksSuite } from '../../utils/webhooks-suite';

/**
 * docs/privacy.md (SPEC 17): a member with history in every table is erased; afterwards a dump of
 * the whole database holds none of their values, while balances, the tree's counters and the
 * ledger are what they were, the uplines still earn from the erased member's downline, and later
 * deliveries send the redacted events, signed afresh.
 */
jest.setTimeout(120_000);

const s = webhooksSuite();
const tag = randomBytes(4).toString('hex');
/** The partner to erase: every value of theirs that the dump must not hold. */
const P = {
  email: `perdita.${tag}@example.org`,
  name: `Perdita Quillfeather ${tag}`,
  phone: `+7999${parseInt(tag, 16).toString().padStart(10, '0').slice(-7)}`,
  ip: '203.0.113.177',
  ua: `PerditaBrowser/${tag}`,
  iban: 'DE89370400440532013000',
  externalId: `crm-perdita-${tag}`,
};

let tenant: TestTenant;
let owner: string;
let secret: string;
let U: UpsertedMember;
let partner: UpsertedMember;
let D: UpsertedMember;

const t = () => s.t;
const erase = (who: string, token = owner) =>
  t()
    .http()
    .post(`/admin/v1/tenants/${tenant.slug}/users/${who}/erase`)
    .set('Authorization', `Bearer ${token}`);
const exportOf = (who: string) =>
  t()
    .http()
    .get(`/admin/v1/tenants/${tenant.slug}/users/${who}/personal-data`)
    .set('Authorization', `Bearer ${owner}`);

/** Members' tree fields and counters, balances: what erasure must leave as they were. */
const moneyAndTree = async () => ({
  members: await t().db.query(
    `SELECT id, service_user_id, referrer_member_id, depth, root_member_id, group_id,
            downline_count, deepest_depth, leads_count, clicks_count
       FROM members WHERE tenant_id = $1 ORDER BY id`,
    [tenant.orgId],
  ),
  balances: await t().db.query(
    `SELECT member_id, currency, available_kopecks, in_payout_kopecks, paid_kopecks
       FROM ledger_balances WHERE tenant_id = $1 ORDER BY member_id`,
    [tenant.orgId],
  ),
  bonuses: await t().db.query(
    `SELECT id, member_id, amount_kopecks, status FROM bonuses WHERE tenant_id = $1 ORDER BY id`,
    [tenant.orgId],
  ),
  payouts: await t().db.query(
    `SELECT id, member_id, amount_kopecks, status FROM payouts WHERE tenant_id = $1 ORDER BY id`,
    [tenant.orgId],
  ),
});

/** Waits until no delivery of the tenant is pending. */
async function deliveriesSettled() {
  for (let i = 0; i < 200; i++) {
    const [{ n }] = await t().db.query(
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE tenant_id = $1 AND status = 'pending'`,
      [tenant.orgId],
    );
    if (n === 0) return;
    await sleep(50);
  }
  throw new Error('deliveries never settled');
}

beforeAll(async () => {
  // The receiver echoes every body back (so attempts store the payload) and fails bonus.flagged
  // for good (dead deliveries).
  const made = await s.tenantWithPath(
    (_k, req) => ({
      status: req.body.toString().includes('"bonus.flagged"') ? 500 : 200,
      body: req.body.toString(),
    }),
    {
      program: {
        lead_bonus_kopecks: 50_000,
        tiers: [
          { tier: 'referrer', percent_bp: 1000 },
          { tier: 'upline_1', percent_bp: 500 },
          { tier: 'upline_2', percent_bp: 200 },
        ],
      },
      payouts: { minimum_kopecks: 1 },
      fraud: { self_referral: { enabled: true } },
    },
  );
  tenant = made.tenant;
  owner = await createStaffToken(t(), tenant.slug, 'owner');
  secret = await s.configure(tenant.slug, made.url, [
    'lead.created',
    'bonus.pending',
    'bonus.flagged',
    'conversion.cascaded',
    'member.erased',
  ]);

  U = await upsertUser(t(), tenant.key, {
    full_name: 'Ulrich Upline',
    email: `u.${tag}@example.org`,
  });
  // An idempotent answer of the partner's upsert, and their last seen IP.
  const upsert = await t()
    .http()
    .post('/federation/v1/users/upsert')
    .set('X-Service-Tenant-Key', tenant.key)
    .set('Idempotency-Key', `erase-${tag}`)
    .send({
      external_id: P.externalId,
      email: P.email,
      email_verified: true,
      full_name: P.name,
      referrer_user_id: U.serviceUserId,
      client: { ip: P.ip, user_agent: P.ua },
    });
  expect(upsert.status).toBe(200);
  partner = {
    memberId: upsert.body.tenant_service_id,
    serviceUserId: upsert.body.service_user_id,
    externalId: P.externalId,
    body: upsert.body,
  };
  D = await upsertUser(t(), tenant.key, {
    full_name: 'Dora Downline',
    referrer_user_id: partner.serviceUserId,
  });

  // An audit entry naming them (a ban, lifted), a link whose text names them.
  const admin = { Authorization: `Bearer ${owner}` };
  const ban = `/admin/v1/tenants/${tenant.slug}/users/${partner.memberId}`;
  expect(
    (
      await t()
        .http()
        .post(`${ban}/ban`)
        .set(admin)
        .send({ reason: `ring with ${P.email}` })
    ).status,
  ).toBe(200);
  expect((await t().http().post(`${ban}/unban`).set(admin)).status).toBe(200);
  await createLink(t(), tenant, partner, { recommendation_text: `Recommended by ${P.name}` });

  // The partner as a customer of their downline (self_referral flags, with sentences naming
  // their IP), and a lead of their own, whose bonus is paid out to their payout details.
  const own = await federation(t(), tenant, '/federation/v1/leads', {
    referrer_user_id: D.serviceUserId,
    contact: { name: P.name, email: P.email, phone: P.phone },
    client: { ip: P.ip, user_agent: P.ua },
  });
  expect(own.status).toBe(200);
  const conversion = await federation(t(), tenant, '/federation/v1/conversions/register', {
    lead_id: own.body.lead_id,
    amount_kopecks: 1_000_000,
    currency: 'RUB',
    external_order_id: `order-${tag}`,
    client: { ip: P.ip, user_agent: P.ua },
  });
  expect(conversion.status).toBe(200);
  const customer = await federation(t(), tenant, '/federation/v1/leads', {
    referrer_user_id: partner.serviceUserId,
    contact: { name: 'Carl Customer', email: `carl.${tag}@example.net` },
  });
  expect(customer.status).toBe(200);
  const [leadBonus] = await t().db.query(
    `SELECT id FROM bonuses WHERE tenant_id = $1 AND member_id = $2 AND source_type = 'lead'`,
    [tenant.orgId, partner.memberId],
  );
  await approveBonus(t(), tenant.slug, leadBonus.id);
  await t().app.get(PayoutDetailsService).save(tenant.orgId, partner.memberId, {
    method: 'bank_account',
    holder: P.name,
    iban: P.iban,
  });
  expect((await runPayouts(t(), tenant.slug)).payouts_count).toBe(1);

  // Sign-in codes and a session, an application.
  const tenantRow = await t().db.getRepository(TenantEntity).findOneByOrFail({ id: tenant.orgId });
  await t().app.get(SignInService).requestCode(tenantRow, P.email);
  await t().app.get(SignInService).createSession(tenant.orgId, partner.memberId);
  await t().db.query(
    `INSERT INTO applications (tenant_id, id, group_id, email, full_name, answers, status, member_id)
     SELECT $1, 'apl_' || $2, group_id, $3, $4, $5, 'approved', id FROM members
      WHERE tenant_id = $1 AND id = $6`,
    [
      tenant.orgId,
      tag.toUpperCase(),
      P.email,
      P.name,
      JSON.stringify({ phone: P.phone }),
      partner.memberId,
    ],
  );
  await deliveriesSettled();
});

it('erases every value of the member from the whole database, and nothing anyone is owed', async () => {
  const statuses: { status: string }[] = await t().db.query(
    `SELECT DISTINCT status FROM webhook_deliveries WHERE tenant_id = $1 ORDER BY status`,
    [tenant.orgId],
  );
  expect(statuses.map((r) => r.status)).toEqual(['dead', 'delivered']);
  // The history is there: a fraud flag with its sentences, a stored answer, a payout carrying
  // the details, a sign-in code and session, an audit entry naming them.
  const [history] = await t().db.query(
    `SELECT (SELECT count(*)::int FROM bonuses WHERE tenant_id = $1 AND review IS NOT NULL) AS flagged,
            (SELECT count(*)::int FROM idempotency_keys WHERE tenant_id = $1) AS answers,
            (SELECT count(*)::int FROM payouts WHERE tenant_id = $1 AND member_id = $2
                AND details_sealed IS NOT NULL) AS payouts,
            (SELECT count(*)::int FROM sign_in_codes WHERE tenant_id = $1 AND member_id = $2) AS codes,
            (SELECT count(*)::int FROM sessions WHERE tenant_id = $1 AND member_id = $2) AS sessions,
            (SELECT count(*)::int FROM portal_activity_daily WHERE tenant_id = $1 AND member_id = $2) AS activity,
            (SELECT count(*)::int FROM audit_log WHERE tenant_id = $1 AND details::text LIKE $3) AS audit`,
    [tenant.orgId, partner.memberId, `%${P.email}%`],
  );
  expect(history).toEqual({
    flagged: expect.any(Number),
    answers: 1,
    payouts: 1,
    codes: 1,
    sessions: 1,
    audit: 1,
    activity: 1,
  });
  expect(history.flagged).toBeGreaterThan(0);
  const before = await moneyAndTree();
  expect(await invariantViolations(t(), tenant.orgId)).toEqual([]);

  // The subject-access export holds them all first.
  const exported = await exportOf(partner.serviceUserId);
  expect(exported.status).toBe(200);
  expect(exported.body.profile).toMatchObject({
    email: P.email,
    full_name: P.name,
    last_seen_ip: P.ip,
  });
  expect(exported.body.payout_details).toMatchObject({ iban: P.iban, holder: P.name });
  expect(exported.body.applications).toHaveLength(1);
  expect(exported.body.sign_in_codes).toHaveLength(1);
  expect(exported.body.sessions).toHaveLength(1);
  expect(exported.body.links[0].recommendation_text).toContain(P.name);

  // Every value is in the dump before (but the IBAN: payout details are stored sealed).
  const dumpBefore = dump();
  const { iban: _sealed, ...plain } = P;
  for (const value of Object.values(plain))
    expect([value, dumpBefore.includes(value.toLowerCase())]).toEqual([value, true]);

  const res = await erase(partner.memberId);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    user_id: partner.memberId,
    service_user_id: partner.serviceUserId,
    erased_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
  });
  // Repeat-safe: the same answer, by either id.
  expect((await erase(partner.serviceUserId)).body).toEqual(res.body);

  const after = dump();
  for (const value of Object.values(P))
    expect([value, after.includes(value.toLowerCase())]).toEqual([value, false]);
  // Others' values stay.
  expect(after).toContain(`u.${tag}@example.org`);
  expect(after).toContain('carl customer');

  expect(await moneyAndTree()).toEqual(before);
  expect(await invariantViolations(t(), tenant.orgId)).toEqual([]);

  const [left] = await t().db.query(
    `SELECT (SELECT count(*)::int FROM portal_activity_daily WHERE tenant_id = $1 AND member_id = $2) AS activity,
            (SELECT count(*)::int FROM sessions WHERE tenant_id = $1 AND member_id = $2) AS sessions,
            (SELECT count(*)::int FROM payout_details WHERE tenant_id = $1 AND member_id = $2) AS details`,
    [tenant.orgId, partner.memberId],
  );
  expect(left).toEqual({ activity: 0, sessions: 0, details: 0 });

  // The member and user answers say so.
  const user = await t()
    .http()
    .get(`/admin/v1/tenants/${tenant.slug}/users/${partner.memberId}`)
    .set('Authorization', `Bearer ${owner}`);
  expect(user.body.user).toMatchObject({
    erased: true,
    is_active: false,
    email: null,
    full_name: null,
  });

  const events = await eventsOf(t(), tenant.orgId, 'member.erased');
  expect(events.map((e) => e.payload)).toEqual([{ user_id: partner.serviceUserId }]);
  const [audit] = await t().db.query(
    `SELECT target_id, details FROM audit_log WHERE tenant_id = $1 AND action = 'user.erased'`,
    [tenant.orgId],
  );
  expect(audit).toEqual({ target_id: partner.memberId, details: {} });
});

it('leaves a deactivated tombstone: erased in answers, links 410, activate 409', async () => {
  const exported = await exportOf(partner.memberId);
  expect(exported.body.profile).toMatchObject({ email: null, full_name: null, is_active: false });
  expect(exported.body.payout_details).toBeNull();
  const link = (await exportOf(partner.memberId)).body.links[0];
  const click = await t().http().get(`/s/${link.code}`);
  expect(click.status).toBe(410);
  expect(click.text).toContain('link_disabled');
  const activate = await t()
    .http()
    .post(`/admin/v1/tenants/${tenant.slug}/users/${partner.memberId}/activate`)
    .set('Authorization', `Bearer ${owner}`);
  expect(activate.status).toBe(409);
  expect(activate.body.code).toBe('user_erased');
  const deactivate = await t()
    .http()
    .post(`/admin/v1/tenants/${tenant.slug}/users/${partner.memberId}/deactivate`)
    .set('Authorization', `Bearer ${owner}`);
  expect(deactivate.body).toMatchObject({ is_active: false, erased: true });
});

it("pays the uplines from the erased member's downline; the erased member gets nothing", async () => {
  const lead = await federation(t(), tenant, '/federation/v1/leads', {
    referrer_user_id: D.serviceUserId,
    contact: { name: 'Later Customer', email: `later.${tag}@example.net` },
  });
  const conversion = await federation(t(), tenant, '/federation/v1/conversions/register', {
    lead_id: lead.body.lead_id,
    amount_kopecks: 200_000,
    currency: 'RUB',
    external_order_id: `later-${tag}`,
  });
  expect(conversion.status).toBe(200);
  const paid = conversion.body.cascaded_bonuses.map((b: { user_id: string }) => b.user_id);
  expect(paid).toContain(D.serviceUserId);
  expect(paid).toContain(U.serviceUserId);
  expect(paid).not.toContain(partner.serviceUserId);
});

it('sends the redacted event on a replay, signed afresh', async () => {
  const [created] = (await eventsOf(t(), tenant.orgId, 'lead.created')).filter(
    (e) => (e.payload as { referrer_user_id: string }).referrer_user_id === D.serviceUserId,
  );
  const seen = s.receiver.requests.length;
  const replay = await t()
    .http()
    .post(`/admin/v1/tenants/${tenant.slug}/webhook/events/${created.event_id}/replay`)
    .set('Authorization', `Bearer ${t().adminToken}`);
  expect(replay.status).toBeLessThan(300);
  const request = await waitForNew(seen, created.event_id);
  const body = request.body.toString();
  expect(body).toContain('[erased]');
  expect(body).not.toContain(P.email);
  expect(example.verifyStandard(request.body, request.headers, [secret], Date.now())).toBe(true);
  expect(example.verifyBody(request.body, request.headers, [secret])).toBe(true);
});

/** The first request after the `seen` first ones that carries this event. */
async function waitForNew(seen: number, eventId: string) {
  for (let i = 0; i < 400; i++) {
    const found = s.receiver.requests.slice(seen).find((r) => r.body.toString().includes(eventId));
    if (found) return found;
    await sleep(25);
  }
  throw new Error(`no request carried ${eventId}`);
}

/** The whole test database, data only, in lower case. */
function dump(): string {
  const url = new URL(t().config.databaseUrl);
  return execFileSync('pg_dump', ['--data-only', '--no-owner', '--dbname', url.toString()], {
    maxBuffer: 512 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'], // its warning about the members' self-reference
  })
    .toString('utf8')
    .toLowerCase();
}
