import type { Response } from 'supertest';
import { fingerprint } from '../../../src/idempotency/idempotency.interceptor';
import { idempotencyLockName } from '../../../src/idempotency/idempotency.repository';
import { createLead, eventsOf, registerConversion } from '../../factories/money.factory';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser, UpsertedMember } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { until } from '../../utils/until';

/** docs/money.md: the optional `Idempotency-Key` header on every federation POST. */
describe('Idempotency-Key on federation POSTs', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let referrer: UpsertedMember;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    tenant = await createTenant(t);
    referrer = await upsertUser(t, tenant.key);
  });

  const post = (
    path: string,
    body: Record<string, unknown>,
    key?: string,
    tenantKey = tenant.key,
  ) => {
    const req = t.http().post(path).set('X-Service-Tenant-Key', tenantKey);
    if (key !== undefined) req.set('Idempotency-Key', key);
    return req.send(body);
  };
  const leadBody = (name = 'Ivan') => ({
    referrer_user_id: referrer.serviceUserId,
    contact: { name, email: 'ivan@example.org' },
    metadata: { n: 1.5, nested: { list: [1, 'два', null] } },
  });
  const leadCount = async (orgId = tenant.orgId): Promise<number> => {
    const [{ count }] = await t.db.query(
      `SELECT count(*)::int AS count FROM leads WHERE tenant_id = $1`,
      [orgId],
    );
    return count;
  };
  const expectReplayOf = (replay: Response, first: Response) => {
    expect(replay.status).toBe(first.status);
    expect(replay.text).toBe(first.text);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['content-type']).toBe(first.headers['content-type']);
  };

  it('same key + same body: the first answer again, byte for byte, and nothing new written', async () => {
    const first = await post('/federation/v1/leads', leadBody(), 'key-1');
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const replay = await post('/federation/v1/leads', leadBody(), 'key-1');
    expectReplayOf(replay, first);
    expect(await leadCount()).toBe(1);
    expect(await eventsOf(t, tenant.orgId, 'lead.created')).toHaveLength(1);

    // Without the key the same body is a new lead, as it should be.
    const fresh = await post('/federation/v1/leads', leadBody());
    expect(fresh.status).toBe(200);
    expect(fresh.body.lead_id).not.toBe(first.body.lead_id);
    expect(await leadCount()).toBe(2);
  });

  it('same key + a different body: 422 idempotency_key_reused, nothing written', async () => {
    const first = await post('/federation/v1/leads', leadBody('Ivan'), 'key-2');
    expect(first.status).toBe(200);
    const other = await post('/federation/v1/leads', leadBody('Maria'), 'key-2');
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_reused');
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(await leadCount()).toBe(1);
    // The stored answer is untouched by the refused request.
    expectReplayOf(await post('/federation/v1/leads', leadBody('Ivan'), 'key-2'), first);
  });

  it('the same key under another tenant is unrelated and executes', async () => {
    const other = await createTenant(t);
    const otherReferrer = await upsertUser(t, other.key);
    const first = await post('/federation/v1/leads', leadBody(), 'shared-key');
    const body = { ...leadBody(), referrer_user_id: otherReferrer.serviceUserId };
    const theirs = await post('/federation/v1/leads', body, 'shared-key', other.key);
    expect(theirs.status).toBe(200);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.lead_id).not.toBe(first.body.lead_id);
    expect(await leadCount(other.orgId)).toBe(1);
    expect(await leadCount()).toBe(1);
  });

  it('the same key on another path is unrelated', async () => {
    const lead = await post('/federation/v1/leads', leadBody(), 'path-key');
    const user = await post('/federation/v1/users/upsert', { external_id: 'p-1' }, 'path-key');
    expect(lead.status).toBe(200);
    expect(user.status).toBe(200);
    expect(user.headers['idempotent-replayed']).toBeUndefined();
    expect(user.body.action).toBe('created');
  });

  it('a key of 1–255 characters is accepted; longer or empty is 400 and nothing is written', async () => {
    const tooLong = await post('/federation/v1/leads', leadBody(), 'k'.repeat(256));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.code).toBe('validation_failed');
    const empty = await post('/federation/v1/leads', leadBody(), '');
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe('validation_failed');
    expect(await leadCount()).toBe(0);

    const longest = await post('/federation/v1/leads', leadBody(), 'k'.repeat(255));
    expect(longest.status).toBe(200);
    const single = await post('/federation/v1/leads', leadBody(), 'k');
    expect(single.status).toBe(200);
    expect(await leadCount()).toBe(2);
  });

  it('10 concurrent requests with one new key: one lead; the rest replay or 409, never 5xx', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, () => post('/federation/v1/leads', leadBody(), 'burst-key')),
    );
    for (const res of results) {
      expect([200, 409]).toContain(res.status);
      if (res.status === 409) expect(res.body.code).toBe('idempotency_key_in_use');
    }
    const ok = results.filter((r) => r.status === 200);
    const original = ok.filter((r) => r.headers['idempotent-replayed'] === undefined);
    expect(original).toHaveLength(1);
    for (const r of ok) {
      if (r !== original[0]) expectReplayOf(r, original[0]);
    }
    expect(await leadCount()).toBe(1);
    expect(await eventsOf(t, tenant.orgId, 'lead.created')).toHaveLength(1);

    // Once the first has finished, every retry is a replay.
    expectReplayOf(await post('/federation/v1/leads', leadBody(), 'burst-key'), original[0]);
  });

  it('a request refused by validation stores nothing: the key then executes a valid body', async () => {
    const invalid = await post(
      '/federation/v1/leads',
      { referrer_user_id: referrer.serviceUserId, contact: { name: 'X' } },
      'retry-key',
    );
    expect(invalid.status).toBe(400);
    const valid = await post('/federation/v1/leads', leadBody(), 'retry-key');
    expect(valid.status).toBe(200);
    expect(valid.headers['idempotent-replayed']).toBeUndefined();
    expect(await leadCount()).toBe(1);
  });

  it('a request refused by authentication stores nothing', async () => {
    const refused = await post('/federation/v1/leads', leadBody('Other'), 'auth-key', 'tk_wrong');
    expect(refused.status).toBe(401);
    const valid = await post('/federation/v1/leads', leadBody(), 'auth-key');
    expect(valid.status).toBe(200);
    expect(valid.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a failed request (404) is not replayed: the key may be retried once the cause is fixed', async () => {
    const body = leadBody();
    const missing = await post(
      '/federation/v1/leads',
      { ...body, offer_id: 'ofr_01ARZ3NDEKTSV4RRFFQ69G5FAV' },
      'fail-key',
    );
    expect(missing.status).toBe(404);
    const fixed = await post('/federation/v1/leads', body, 'fail-key');
    expect(fixed.status).toBe(200);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
  });

  it('works on users/upsert: the replay says "created" again and changes nothing', async () => {
    const body = { external_id: 'idem-user', full_name: 'Ann', email: 'ann@example.org' };
    const first = await post('/federation/v1/users/upsert', body, 'user-key');
    expect(first.status).toBe(200);
    expect(first.body.action).toBe('created');
    const replay = await post('/federation/v1/users/upsert', body, 'user-key');
    expectReplayOf(replay, first);
    // Without the key, the same upsert is executed again and reports it changed nothing.
    const plain = await post('/federation/v1/users/upsert', body);
    expect(plain.body).toMatchObject({ action: 'unchanged' });
    const changed = await post(
      '/federation/v1/users/upsert',
      { ...body, full_name: 'Ann B' },
      'user-key',
    );
    expect(changed.status).toBe(422);
    expect(changed.body.code).toBe('idempotency_key_reused');
    const [row] = await t.db.query(
      `SELECT full_name FROM members WHERE tenant_id = $1 AND external_id = 'idem-user'`,
      [tenant.orgId],
    );
    expect(row.full_name).toBe('Ann');
  });

  it('works on conversions/register and on reverse', async () => {
    const leadId = await createLead(t, tenant.key, referrer.serviceUserId);
    const body = {
      lead_id: leadId,
      amount_kopecks: 10_000,
      currency: 'RUB',
      external_order_id: 'o',
    };
    const first = await post('/federation/v1/conversions/register', body, 'cnv-key');
    expect(first.status).toBe(200);
    expectReplayOf(await post('/federation/v1/conversions/register', body, 'cnv-key'), first);
    const other = await post(
      '/federation/v1/conversions/register',
      { ...body, external_order_id: 'o-2' },
      'cnv-key',
    );
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_reused');
    const [{ count }] = await t.db.query(
      `SELECT count(*)::int AS count FROM conversions WHERE tenant_id = $1`,
      [tenant.orgId],
    );
    expect(count).toBe(1);

    const path = `/federation/v1/conversions/${first.body.conversion_id}/reverse`;
    const reversed = await post(path, { reason: 'refund' }, 'rv-key');
    expect(reversed.status).toBe(200);
    // A retried reversal with its key gets the first answer, not 409 already_reversed.
    expectReplayOf(await post(path, { reason: 'refund' }, 'rv-key'), reversed);
    const unkeyed = await post(path, { reason: 'refund' });
    expect(unkeyed.status).toBe(409);
    expect(await eventsOf(t, tenant.orgId, 'conversion.reversed')).toHaveLength(1);
  });

  it('works on lead status: a retried transition replays instead of 409', async () => {
    const leadId = await createLead(t, tenant.key, referrer.serviceUserId);
    const path = `/federation/v1/leads/${leadId}/status`;
    const first = await post(path, { status: 'processed' }, 'st-key');
    expect(first.status).toBe(200);
    expectReplayOf(await post(path, { status: 'processed' }, 'st-key'), first);
  });

  it('while the first request with a key still runs: 409 idempotency_key_in_use', async () => {
    const body = leadBody();
    // A request still running holds the key's transaction lock; hold it from another connection.
    const holder = t.db.createQueryRunner();
    await holder.connect();
    try {
      await holder.startTransaction();
      await holder.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
        idempotencyLockName(tenant.orgId, '/federation/v1/leads', 'held-key'),
      ]);
      const res = await post('/federation/v1/leads', body, 'held-key');
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('idempotency_key_in_use');
      // Another spelling of the same route is the same scope (docs/security.md).
      const spelled = await post('/federation/v1/leads/', body, 'held-key');
      expect(spelled.status).toBe(409);
      expect(await leadCount()).toBe(0);
    } finally {
      await holder.rollbackTransaction();
      await holder.release();
    }
    // The holder ended without an answer (it failed, or its process died): the key is free.
    const after = await post('/federation/v1/leads', body, 'held-key');
    expect(after.status).toBe(200);
    expect(after.headers['idempotent-replayed']).toBeUndefined();
    expect(await leadCount()).toBe(1);
  });

  it('an answer stored under the key while the request runs is never overwritten: 409, rolled back', async () => {
    // Defence in depth (docs/security.md, issue #32): the key's lock should make this impossible,
    // so force it. Hold writes to `leads` until the request has looked the key up and is about to
    // write its lead, store a live answer under the key from another connection meanwhile, then
    // let the request go on: its answer must not replace the stored one, and its lead must not
    // be committed.
    const body = leadBody();
    const planted = JSON.stringify({ lead_id: 'lead_planted', status: 'new' });
    const blocker = t.db.createQueryRunner();
    await blocker.connect();
    let pending: Promise<Response> | undefined;
    try {
      await blocker.startTransaction();
      await blocker.query(`LOCK TABLE leads IN SHARE MODE`);
      pending = post('/federation/v1/leads', body, 'raced-key').then((res) => res);
      await until('the request waiting to write its lead', async () => {
        const [{ waiting }] = await t.db.query(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'
              AND query ILIKE '%INSERT INTO%leads%'`,
        );
        return waiting > 0;
      });
      await t.db.query(
        `INSERT INTO idempotency_keys
                (tenant_id, path, key, request_hash, response_status, response_body, expires_at)
         VALUES ($1, '/federation/v1/leads', 'raced-key', $2, 200, $3, now() + interval '1 day')`,
        [tenant.orgId, fingerprint(body), planted],
      );
    } finally {
      await blocker.commitTransaction();
      await blocker.release();
    }
    const res = await pending;
    expect(res.status).toBe(409);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('idempotency_key_conflict');
    // The second execution's effects were rolled back with its answer: no lead, no event.
    expect(await leadCount()).toBe(0);
    expect(await eventsOf(t, tenant.orgId, 'lead.created')).toHaveLength(0);
    const rows = await t.db.query(
      `SELECT response_body FROM idempotency_keys WHERE tenant_id = $1 AND key = 'raced-key'`,
      [tenant.orgId],
    );
    expect(rows).toEqual([{ response_body: planted }]);
    // A retry gets the stored answer, as with any completed key.
    const retry = await post('/federation/v1/leads', body, 'raced-key');
    expect(retry.status).toBe(200);
    expect(retry.text).toBe(planted);
    expect(retry.headers['idempotent-replayed']).toBe('true');
  });

  it('one key on every spelling of a route: one lead, the rest replay', async () => {
    const body = leadBody();
    const first = await post('/federation/v1/leads', body, 'spell-key');
    expect(first.status).toBe(200);
    expectReplayOf(await post('/federation/v1/leads/', body, 'spell-key'), first);
    for (const path of [
      '/federation/v1//leads',
      '/federation/v1/%6Ceads',
      '/FEDERATION/v1/leads',
    ]) {
      const again = await post(path, body, 'spell-key');
      if (again.status === 404) continue; // a spelling the router does not serve changes nothing
      expectReplayOf(again, first);
    }
    expect(await leadCount()).toBe(1);

    const leadId = first.body.lead_id as string;
    const status = await post(
      `/federation/v1/leads/${leadId}/status`,
      { status: 'processed' },
      's',
    );
    expect(status.status).toBe(200);
    const encoded = leadId.replace('_', '%5F');
    expectReplayOf(
      await post(`/federation/v1/leads/${encoded}/status/`, { status: 'processed' }, 's'),
      status,
    );
  });

  it('keeps a key for 24 hours; after that the key is free again', async () => {
    const first = await post('/federation/v1/leads', leadBody(), 'day-key');
    expect(first.status).toBe(200);
    const [row] = await t.db.query(
      `SELECT extract(epoch FROM expires_at - created_at)::int AS ttl, response_status
         FROM idempotency_keys WHERE tenant_id = $1 AND key = 'day-key'`,
      [tenant.orgId],
    );
    expect(row).toEqual({ ttl: 24 * 3600, response_status: 200 });
    await t.db.query(
      `UPDATE idempotency_keys SET created_at = created_at - interval '25 hours',
              expires_at = expires_at - interval '25 hours'
        WHERE tenant_id = $1 AND key = 'day-key'`,
      [tenant.orgId],
    );
    const later = await post('/federation/v1/leads', leadBody('Maria'), 'day-key');
    expect(later.status).toBe(200);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.body.lead_id).not.toBe(first.body.lead_id);
    expect(await leadCount()).toBe(2);
  });

  it('a replayed registration after a later change still answers the stored bytes', async () => {
    const leadId = await createLead(t, tenant.key, referrer.serviceUserId);
    const body = {
      lead_id: leadId,
      amount_kopecks: 5_000,
      currency: 'RUB',
      external_order_id: 'z',
    };
    const first = await post('/federation/v1/conversions/register', body, 'late-key');
    await registerConversion(t, tenant.key, { ...body, external_order_id: 'z-2' });
    expectReplayOf(await post('/federation/v1/conversions/register', body, 'late-key'), first);
  });
});
