import { EngineConnection } from '../../../src/webhooks/engine/engine-connection';
import { createLead } from '../../factories/money.factory';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { HttpsReceiver, startHttpsReceiver } from '../../utils/https-receiver';
import { newRunId } from '../../utils/test-env';

/**
 * docs/operations.md, DATABASE_SHARDED=true (a database sharded by tenant): the webhook engine's statement
 * (records, unclaims, leases and claims) touches one tenant at a time, so each runs on one shard,
 * and everything is still delivered. Every statement the engine sends is looked at on its way to
 * PostgreSQL (the real connection, wrapped, not replaced).
 */
describe('webhooks on a database sharded by tenant', () => {
  let t: TestApp;
  let receiver: HttpsReceiver;
  let tenants: TestTenant[];
  /** The tenants each engine statement named, one set per statement. */
  const statements: Set<string>[] = [];

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    t = await createTestApp({
      DATABASE_SHARDED: 'true',
      WEBHOOK_CA_FILE: receiver.caFile,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_DELAYS_MS: '200,200,200,200,200',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_SWEEP_MS: '1000',
      QUEUE_PREFIX: `shard_${newRunId()}`,
    });
    const connection = t.app.get(EngineConnection);
    const run = connection.run;
    (connection as { run: EngineConnection['run'] }).run = (text, values) => {
      // FLUSH's tenant arrays: records $1, lanes $16, claims $21, unclaims $25.
      if (values.length >= 27) {
        statements.push(new Set([0, 15, 20, 24].flatMap((i) => values[i] as string[])));
      }
      return run(text, values);
    };
    tenants = [await createTenant(t), await createTenant(t), await createTenant(t)];
    for (const tenant of tenants) {
      const put = await t
        .http()
        .put(`/admin/v1/tenants/${tenant.slug}/webhook`)
        .set('Authorization', `Bearer ${t.adminToken}`)
        .send({ url: `${receiver.url}?tenant=${tenant.orgId}`, events: ['lead.created'] });
      expect(put.status).toBe(200);
    }
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('writes one tenant per statement and delivers every tenant its events, retries included', async () => {
    // Every first attempt of an event fails, so records, retries and claims all go through.
    const seen = new Set<string>();
    receiver.script = (_n, request) => {
      const id = request.headers['x-service-event-id'] as string;
      const first = !seen.has(id);
      seen.add(id);
      return { status: first ? 500 : 200 };
    };
    const perTenant = 4;
    await Promise.all(
      tenants.map(async (tenant) => {
        const referrer = await upsertUser(t, tenant.key);
        for (let i = 0; i < perTenant; i++) {
          await createLead(t, tenant.key, referrer.serviceUserId);
        }
      }),
    );
    const expected = tenants.length * perTenant;
    for (let i = 0; i < 150 && deliveredCount() < expected; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(deliveredCount()).toBe(expected);
    const byTenant = new Map<string, number>();
    for (const request of receiver.requests) {
      const tenant = new URL(request.path, 'https://x').searchParams.get('tenant')!;
      byTenant.set(tenant, (byTenant.get(tenant) ?? 0) + 1);
    }
    // Each event twice (a 500, then a 200), for every tenant.
    expect(Object.fromEntries(byTenant)).toEqual(
      Object.fromEntries(tenants.map((tenant) => [tenant.orgId, perTenant * 2])),
    );
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.filter((named) => named.size > 1)).toEqual([]);
  });

  /** Events answered 200: those received a second time (each first attempt gets a 500). */
  function deliveredCount(): number {
    const times = new Map<string, number>();
    for (const request of receiver.requests) {
      const id = request.headers['x-service-event-id'] as string;
      times.set(id, (times.get(id) ?? 0) + 1);
    }
    return [...times.values()].filter((n) => n >= 2).length;
  }
});
