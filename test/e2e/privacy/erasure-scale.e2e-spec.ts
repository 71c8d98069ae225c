import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { createTestApp, type TestApp } from '../../utils/create-test-app';

/**
 * docs/privacy.md: erasure never walks the downline. A member with 100,000 members below is
 * erased in under a second, and the counters above and below are what they were.
 */
jest.setTimeout(180_000);

const DESCENDANTS = 100_000;

let t: TestApp;
let tenant: TestTenant;
let owner: string;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t);
  owner = await createStaffToken(t, tenant.slug, 'owner');
});
afterAll(() => t.close());

it('erases a member with 100,000 descendants in under a second', async () => {
  const root = await upsertUser(t, tenant.key, {
    full_name: 'Root Person',
    email: 'root@example.org',
  });
  const hub = await upsertUser(t, tenant.key, {
    full_name: 'Hub Person',
    email: 'hub@example.org',
    referrer_user_id: root.serviceUserId,
  });
  // One level of 100,000 direct referrals below the hub, in one statement each, as bench/seed
  // does; the kept counters of the hub and the root are set to match.
  const tagged = tenant.orgId.slice(-8);
  await t.db.query(
    `INSERT INTO service_users (id) SELECT 'usr_sc' || $2 || n FROM generate_series(1, $1::int) n`,
    [DESCENDANTS, tagged],
  );
  await t.db.query(
    `INSERT INTO members (tenant_id, id, service_user_id, external_id, email, full_name,
                          referrer_member_id, depth, root_member_id, deepest_depth)
     SELECT $1, 'mbr_sc' || $3 || n, 'usr_sc' || $3 || n, 'crm-sc-' || n,
            'd' || n || '@example.org', 'Descendant ' || n, $4, 2, $5, 2
       FROM generate_series(1, $2::int) n`,
    [tenant.orgId, DESCENDANTS, tagged, hub.memberId, root.memberId],
  );
  await t.db.query(
    `UPDATE members SET downline_count = downline_count + $3, deepest_depth = 2
      WHERE tenant_id = $1 AND id = ANY($2)`,
    [tenant.orgId, [root.memberId, hub.memberId], DESCENDANTS],
  );
  await t.db.query('ANALYZE members');
  const counters = () =>
    t.db.query(
      `SELECT id, downline_count, deepest_depth, depth FROM members
        WHERE tenant_id = $1 AND id = ANY($2) ORDER BY id`,
      [tenant.orgId, [root.memberId, hub.memberId, `mbr_sc${tagged}1`]],
    );
  const before = await counters();

  const started = performance.now();
  const res = await t
    .http()
    .post(`/admin/v1/tenants/${tenant.slug}/users/${hub.memberId}/erase`)
    .set('Authorization', `Bearer ${owner}`);
  const ms = performance.now() - started;
  expect(res.status).toBe(200);
  expect(ms).toBeLessThan(1000); // 84 ms on the reference machine

  expect(await counters()).toEqual(before);
  const [child] = await t.db.query(
    `SELECT email, referrer_member_id FROM members WHERE tenant_id = $1 AND id = $2`,
    [tenant.orgId, `mbr_sc${tagged}1`],
  );
  expect(child).toEqual({ email: 'd1@example.org', referrer_member_id: hub.memberId });
});
