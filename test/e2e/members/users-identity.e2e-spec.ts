import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { decodeTime } from 'ulid';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { createChain, upsertUser } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

const unique = (prefix: string) => `${prefix}-${randomBytes(6).toString('hex')}`;
const uniqueEmail = () => `${unique('person')}@mail.example`;

function expectProblem(res: Response, status: number, code: string) {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
}

describe('Federation upsert: service users across tenants, concurrency, the referral tree', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const upsert = (key: string, body: Record<string, unknown>) =>
    t.http().post('/federation/v1/users/upsert').set('X-Service-Tenant-Key', key).send(body);

  describe('who is the same person', () => {
    let a: TestTenant;
    let b: TestTenant;

    beforeEach(async () => {
      [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
    });

    it('links the same vk_id in two tenants to one service user, with a member in each', async () => {
      const vk = unique('vk');
      const inA = await upsertUser(t, a.key, { vk_id: vk });
      const inB = await upsertUser(t, b.key, { vk_id: vk });
      expect(inB.body.action).toBe('created');
      expect(inB.serviceUserId).toBe(inA.serviceUserId);
      expect(inB.memberId).not.toBe(inA.memberId);

      const c = await createTenant(t);
      const inC = await upsertUser(t, c.key, { vk_id: vk, email: uniqueEmail() });
      expect(inC.serviceUserId).toBe(inA.serviceUserId);
    });

    it('links the same verified email in two tenants to one service user', async () => {
      const email = uniqueEmail();
      const inA = await upsertUser(t, a.key, { email, email_verified: true });
      const inB = await upsertUser(t, b.key, { email, email_verified: true });
      expect(inB.serviceUserId).toBe(inA.serviceUserId);
      expect(inB.memberId).not.toBe(inA.memberId);
    });

    it.each([
      ['unverified in A, verified in B', false, true],
      ['verified in A, unverified in B', true, false],
      ['unverified in both', false, false],
      ['verified in A, email_verified omitted in B', true, undefined],
    ])('keeps the same email apart when it is %s', async (_label, verifiedA, verifiedB) => {
      const email = uniqueEmail();
      const inA = await upsertUser(t, a.key, { email, email_verified: verifiedA });
      const inB = await upsertUser(t, b.key, {
        email,
        ...(verifiedB === undefined ? {} : { email_verified: verifiedB }),
      });
      expect(inB.serviceUserId).not.toBe(inA.serviceUserId);
    });

    it('keeps people with the same full name or external_id apart', async () => {
      const inA = await upsertUser(t, a.key, { external_id: 'u-1', full_name: 'Ivan Petrov' });
      const inB = await upsertUser(t, b.key, { external_id: 'u-1', full_name: 'Ivan Petrov' });
      expect(inB.serviceUserId).not.toBe(inA.serviceUserId);
      expect(inB.memberId).not.toBe(inA.memberId);
    });

    it('gives two external_ids with the same vk_id in ONE tenant different service users', async () => {
      const vk = unique('vk');
      const first = await upsertUser(t, a.key, { vk_id: vk });
      const second = await upsertUser(t, a.key, { vk_id: vk });
      expect(second.body.action).toBe('created');
      expect(second.memberId).not.toBe(first.memberId);
      expect(second.serviceUserId).not.toBe(first.serviceUserId);

      // Another tenant still finds the person who first claimed the vk_id.
      const inB = await upsertUser(t, b.key, { vk_id: vk });
      expect(inB.serviceUserId).toBe(first.serviceUserId);
    });

    it('gives two external_ids with the same verified email in ONE tenant different service users', async () => {
      const email = uniqueEmail();
      const first = await upsertUser(t, a.key, { email, email_verified: true });
      const second = await upsertUser(t, a.key, { email, email_verified: true });
      expect(second.serviceUserId).not.toBe(first.serviceUserId);
    });

    it('a service user id names at most one member per tenant, so it works as a referrer id', async () => {
      const vk = unique('vk');
      const first = await upsertUser(t, a.key, { vk_id: vk });
      const second = await upsertUser(t, a.key, { vk_id: vk });
      const referred = await upsertUser(t, a.key, { referrer_user_id: second.serviceUserId });
      expect(referred.body.referrer_user_id).toBe(second.serviceUserId);
      expect(referred.body.referrer_user_id).not.toBe(first.serviceUserId);
    });

    it('answers tenant A the same shape whether or not the person is already known at tenant B (docs/security.md)', async () => {
      const known = uniqueEmail();
      const atB = await upsertUser(t, b.key, { email: known, email_verified: true });
      const [{ created_at: knownSince }]: { created_at: Date }[] = await t.db.query(
        'SELECT created_at FROM service_users WHERE id = $1',
        [atB.serviceUserId],
      );
      // Time passes between B's upsert and A's, as it would.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const sharedAtA = await upsertUser(t, a.key, { email: known, email_verified: true });
      const freshAtA = await upsertUser(t, a.key, { email: uniqueEmail(), email_verified: true });
      // The person is shared (docs/money.md), but A cannot tell which answer is the shared one:
      expect(sharedAtA.serviceUserId).toBe(atB.serviceUserId);
      for (const answer of [sharedAtA, freshAtA]) {
        expect(Object.keys(answer.body).sort()).toEqual(
          ['action', 'referrer_user_id', 'service_user_id', 'tenant_service_id'].sort(),
        );
        expect(answer.body).toMatchObject({ action: 'created', referrer_user_id: null });
        expect(answer.serviceUserId).toMatch(/^usr_[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
      }
      // A ULID would carry its creation time, B's upsert, earlier than A's call; this id does not.
      const hour = 3600 * 1000;
      expect(
        Math.abs(decodeTime(sharedAtA.serviceUserId.slice(4)) - knownSince.getTime()),
      ).toBeGreaterThan(hour);
      expect(Math.abs(decodeTime(freshAtA.serviceUserId.slice(4)) - Date.now())).toBeGreaterThan(
        hour,
      );
    });

    it('keeps the service user when the same member is upserted again', async () => {
      const vk = unique('vk');
      const first = await upsertUser(t, a.key, { external_id: 'me', vk_id: vk });
      const again = await upsertUser(t, a.key, { external_id: 'me', vk_id: vk, full_name: 'Me' });
      expect(again.body).toMatchObject({
        action: 'updated',
        tenant_service_id: first.memberId,
        service_user_id: first.serviceUserId,
      });
    });
  });

  describe('concurrency', () => {
    it('20 parallel upserts of the same new external_id: all 200, one created, one member', async () => {
      const tenant = await createTenant(t);
      const body = { external_id: unique('ext'), full_name: 'Racer' };
      const results = await Promise.all(Array.from({ length: 20 }, () => upsert(tenant.key, body)));
      expect(results.map((r) => r.status)).toEqual(Array<number>(20).fill(200));
      expect(results.filter((r) => r.body.action === 'created')).toHaveLength(1);
      expect(results.filter((r) => r.body.action === 'unchanged')).toHaveLength(19);
      expect(new Set(results.map((r) => r.body.tenant_service_id)).size).toBe(1);
      expect(new Set(results.map((r) => r.body.service_user_id)).size).toBe(1);
    });

    it('20 parallel upserts of the same new external_id with a vk_id and a verified email agree', async () => {
      const tenant = await createTenant(t);
      const body = {
        external_id: unique('ext'),
        vk_id: unique('vk'),
        email: uniqueEmail(),
        email_verified: true,
      };
      const results = await Promise.all(Array.from({ length: 20 }, () => upsert(tenant.key, body)));
      expect(results.map((r) => r.status)).toEqual(Array<number>(20).fill(200));
      expect(results.filter((r) => r.body.action === 'created')).toHaveLength(1);
      expect(new Set(results.map((r) => r.body.tenant_service_id)).size).toBe(1);
      expect(new Set(results.map((r) => r.body.service_user_id)).size).toBe(1);

      // The person is the one another tenant finds by the same vk_id.
      const other = await createTenant(t);
      const inOther = await upsertUser(t, other.key, { vk_id: body.vk_id });
      expect(inOther.serviceUserId).toBe(results[0].body.service_user_id);
    });

    it.each([
      ['vk_id', () => ({ vk_id: unique('vk') })],
      ['verified email', () => ({ email: uniqueEmail(), email_verified: true })],
    ])(
      '20 parallel upserts with the same new %s in 20 tenants share one service user',
      async (_label, identity) => {
        const tenants = await Promise.all(Array.from({ length: 20 }, () => createTenant(t)));
        const same = identity();
        const results = await Promise.all(
          tenants.map((tenant, i) => upsert(tenant.key, { external_id: `ext-${i}`, ...same })),
        );
        expect(results.map((r) => r.status)).toEqual(Array<number>(20).fill(200));
        expect(results.every((r) => r.body.action === 'created')).toBe(true);
        expect(new Set(results.map((r) => r.body.service_user_id)).size).toBe(1);
        expect(new Set(results.map((r) => r.body.tenant_service_id)).size).toBe(20);
      },
    );

    it('two roots referring each other at once: exactly one succeeds, the other is 422 referral_cycle', async () => {
      const tenant = await createTenant(t);
      for (let round = 0; round < 5; round++) {
        const a = await upsertUser(t, tenant.key);
        const b = await upsertUser(t, tenant.key);
        const results = await Promise.all([
          upsert(tenant.key, { external_id: a.externalId, referrer_user_id: b.serviceUserId }),
          upsert(tenant.key, { external_id: b.externalId, referrer_user_id: a.serviceUserId }),
        ]);
        const statuses = results.map((r) => r.status).sort();
        expect(statuses).toEqual([200, 422]);
        const refused = results.find((r) => r.status === 422)!;
        expectProblem(refused, 422, 'referral_cycle');
        const accepted = results.find((r) => r.status === 200)!;
        expect(accepted.body.action).toBe('updated');
      }
    });

    it('two subtrees hooked under each other at once: exactly one succeeds', async () => {
      const tenant = await createTenant(t);
      for (let round = 0; round < 3; round++) {
        const [a, a1] = await createChain(t, tenant.key, 2);
        const [b, b1] = await createChain(t, tenant.key, 2);
        const results = await Promise.all([
          upsert(tenant.key, { external_id: a.externalId, referrer_user_id: b1.serviceUserId }),
          upsert(tenant.key, { external_id: b.externalId, referrer_user_id: a1.serviceUserId }),
        ]);
        expect(results.map((r) => r.status).sort()).toEqual([200, 422]);
        expectProblem(
          results.find((r) => r.status === 422)!,
          422,
          'referral_cycle',
        );
      }
    });

    it('a three-way cycle attempted at once: two succeed, the one that closes the cycle is 422', async () => {
      const tenant = await createTenant(t);
      const [a, b, c] = await Promise.all([
        upsertUser(t, tenant.key),
        upsertUser(t, tenant.key),
        upsertUser(t, tenant.key),
      ]);
      const results = await Promise.all([
        upsert(tenant.key, { external_id: a.externalId, referrer_user_id: b.serviceUserId }),
        upsert(tenant.key, { external_id: b.externalId, referrer_user_id: c.serviceUserId }),
        upsert(tenant.key, { external_id: c.externalId, referrer_user_id: a.serviceUserId }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 200, 422]);
      expectProblem(
        results.find((r) => r.status === 422)!,
        422,
        'referral_cycle',
      );
    });
  });

  describe('validation', () => {
    let tenant: TestTenant;

    beforeAll(async () => {
      tenant = await createTenant(t);
    });

    it.each([
      ['external_id missing', { external_id: undefined, full_name: 'X' }, 'external_id'],
      ['external_id empty', { external_id: '' }, 'external_id'],
      ['external_id over 128 characters', { external_id: 'x'.repeat(129) }, 'external_id'],
      ['external_id a number', { external_id: 42 }, 'external_id'],
      ['external_id null', { external_id: null }, 'external_id'],
      ['a bad email', { email: 'not-an-email' }, 'email'],
      ['an email over 254 characters', { email: `${'a'.repeat(250)}@x.example` }, 'email'],
      ['email_verified "yes"', { email_verified: 'yes' }, 'email_verified'],
      ['email_verified "true"', { email_verified: 'true' }, 'email_verified'],
      ['email_verified 1', { email_verified: 1 }, 'email_verified'],
      ['vk_id a number', { vk_id: 12345 }, 'vk_id'],
      ['full_name over 200 characters', { full_name: 'x'.repeat(201) }, 'full_name'],
      ['referrer_user_id not usr_…', { referrer_user_id: 'abc' }, 'referrer_user_id'],
      [
        'referrer_user_id of another id kind (lead_)',
        { referrer_user_id: 'lead_01JD0Z6V2Y8K3M4N5P6Q7R8S9T' },
        'referrer_user_id',
      ],
      ['referrer_user_id a short usr_', { referrer_user_id: 'usr_123' }, 'referrer_user_id'],
      ['a role that is not partner, ambassador or leader', { role: 'admin' }, 'role'],
      ['an unknown field', { tier: 'gold' }, 'tier'],
    ])('refuses %s with 400 validation_failed and stores nothing', async (_label, over, field) => {
      const externalId = unique('val');
      const body: Record<string, unknown> = { external_id: externalId, ...over };
      for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
      const res = await upsert(tenant.key, body);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual(
        expect.arrayContaining([{ field, message: expect.any(String) }]),
      );
      const after = await upsert(tenant.key, { external_id: externalId });
      expect(after.body.action).toBe('created');
    });

    it('accepts an external_id of exactly 128 characters', async () => {
      const res = await upsert(tenant.key, { external_id: 'y'.repeat(128) });
      expect(res.status).toBe(200);
    });

    it('refuses a missing, unknown or malformed tenant key with 401 invalid_tenant_key', async () => {
      const noKey = await t.http().post('/federation/v1/users/upsert').send({ external_id: 'a' });
      expectProblem(noKey, 401, 'invalid_tenant_key');
      for (const key of [`tk_${randomBytes(32).toString('base64url')}`, tenant.key.slice(0, -1)]) {
        expectProblem(await upsert(key, { external_id: 'a' }), 401, 'invalid_tenant_key');
      }
    });
  });

  describe('moving a subtree', () => {
    it('hangs a whole chain under a new referrer; the tree stays acyclic afterwards', async () => {
      const tenant = await createTenant(t);
      const [w, x] = await createChain(t, tenant.key, 2); // W → X
      const chain = await createChain(t, tenant.key, 4); // R → c1 → c2 → c3
      const [r, c1, c2, c3] = chain;

      const moved = await upsert(tenant.key, {
        external_id: r.externalId,
        referrer_user_id: x.serviceUserId,
      });
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({
        action: 'updated',
        tenant_service_id: r.memberId,
        referrer_user_id: x.serviceUserId,
      });

      // A new member under R's deepest descendant.
      const n = await upsert(tenant.key, {
        external_id: unique('n'),
        referrer_user_id: c3.serviceUserId,
      });
      expect(n.status).toBe(200);
      expect(n.body).toMatchObject({ action: 'created', referrer_user_id: c3.serviceUserId });

      // W is now the root above R's old chain: hanging W under any of it is a cycle.
      for (const below of [x, r, c1, c2, c3]) {
        const cycle = await upsert(tenant.key, {
          external_id: w.externalId,
          referrer_user_id: below.serviceUserId,
        });
        expectProblem(cycle, 422, 'referral_cycle');
      }
      const underNew = await upsert(tenant.key, {
        external_id: w.externalId,
        referrer_user_id: n.body.service_user_id,
      });
      expectProblem(underNew, 422, 'referral_cycle');

      // X already has a referrer (W); it never changes, whatever is asked.
      const xAgain = await upsert(tenant.key, {
        external_id: x.externalId,
        referrer_user_id: c2.serviceUserId,
      });
      expect(xAgain.status).toBe(200);
      expect(xAgain.body).toMatchObject({ action: 'unchanged', referrer_user_id: w.serviceUserId });

      // W can still be hung under someone outside its tree.
      const outsider = await upsertUser(t, tenant.key);
      const wMoved = await upsert(tenant.key, {
        external_id: w.externalId,
        referrer_user_id: outsider.serviceUserId,
      });
      expect(wMoved.status).toBe(200);
      // …and then the outsider, now the root, cannot go under the deepest member.
      const deep = await upsert(tenant.key, {
        external_id: outsider.externalId,
        referrer_user_id: n.body.service_user_id,
      });
      expectProblem(deep, 422, 'referral_cycle');
    });

    it('refuses to hang a root referrer X under a descendant of the subtree it just took in', async () => {
      const tenant = await createTenant(t);
      const x = await upsertUser(t, tenant.key);
      const [r, c1, c2] = await createChain(t, tenant.key, 3);
      const moved = await upsert(tenant.key, {
        external_id: r.externalId,
        referrer_user_id: x.serviceUserId,
      });
      expect(moved.status).toBe(200);
      for (const below of [r, c1, c2]) {
        const cycle = await upsert(tenant.key, {
          external_id: x.externalId,
          referrer_user_id: below.serviceUserId,
        });
        expectProblem(cycle, 422, 'referral_cycle');
      }
      // A member under c2 joins fine, with c2 as its referrer.
      const leaf = await upsert(tenant.key, {
        external_id: unique('leaf'),
        referrer_user_id: c2.serviceUserId,
      });
      expect(leaf.status).toBe(200);
      expect(leaf.body.referrer_user_id).toBe(c2.serviceUserId);
    });

    it('lets two unrelated trees in one tenant be joined, and keeps other tenants out of it', async () => {
      const tenant = await createTenant(t);
      const elsewhere = await createTenant(t);
      const [r, c1] = await createChain(t, tenant.key, 2);
      const foreignRoot = await upsertUser(t, elsewhere.key);
      // A member of another tenant is no referrer here…
      const foreign = await upsert(tenant.key, {
        external_id: r.externalId,
        referrer_user_id: foreignRoot.serviceUserId,
      });
      expectProblem(foreign, 404, 'referrer_not_found');
      // …and the refused attempt left R free to take a referrer of its own tenant.
      const q = await upsertUser(t, tenant.key);
      const joined = await upsert(tenant.key, {
        external_id: r.externalId,
        referrer_user_id: q.serviceUserId,
      });
      expect(joined.body).toMatchObject({ action: 'updated', referrer_user_id: q.serviceUserId });
      expectProblem(
        await upsert(tenant.key, { external_id: q.externalId, referrer_user_id: c1.serviceUserId }),
        422,
        'referral_cycle',
      );
    });
  });
});
