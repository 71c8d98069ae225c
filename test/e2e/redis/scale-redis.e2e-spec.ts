import { createLead } from '../../factories/money.factory';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { RateLimiter } from '../../../src/common/http/rate-limiter';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { HttpsReceiver, startHttpsReceiver } from '../../utils/https-receiver';
import { stopAllChildren } from '../../utils/processes';
import { PrivateCluster, PrivateSentinel } from '../../utils/private-redis-topologies';
import { until } from '../../utils/until';
import { newRunId } from '../../utils/test-env';

/**
 * docs/operations.md, Redis past one server: the service through a real Sentinel (a primary, a replica and a
 * Sentinel that fails over when the primary is SIGKILLed) and on a real three-node Redis Cluster,
 * with Bull's keys hash-tagged into one slot, running webhook deliveries end to end.
 */
jest.setTimeout(180_000);

const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RETRY_DELAYS_MS: '200,200,200,200,200',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_SWEEP_MS: '1000',
};

async function webhookTo(t: TestApp, tenant: TestTenant, url: string): Promise<void> {
  const put = await t
    .http()
    .put(`/admin/v1/tenants/${tenant.slug}/webhook`)
    .set('Authorization', `Bearer ${t.adminToken}`)
    .send({ url, events: ['lead.created'] });
  expect(put.status).toBe(200);
}

/** Lead ids the receiver has been sent lead.created for. */
function deliveredLeads(receiver: HttpsReceiver): Set<string> {
  return new Set(
    receiver.requests.map((r) => JSON.parse(r.body.toString('utf8')).payload?.lead_id as string),
  );
}

describe('Redis Sentinel', () => {
  let sentinel: PrivateSentinel;
  let receiver: HttpsReceiver;
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    sentinel = await PrivateSentinel.start();
    receiver = await startHttpsReceiver();
    t = await createTestApp({
      ...WEBHOOK_ENV,
      WEBHOOK_CA_FILE: receiver.caFile,
      REDIS_SENTINELS: sentinel.sentinels,
      REDIS_SENTINEL_NAME: sentinel.name,
      QUEUE_PREFIX: `sent_${newRunId()}`,
    });
    tenant = await createTenant(t);
    await webhookTo(t, tenant, receiver.url);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await sentinel?.stop();
    await stopAllChildren();
  });

  it('delivers webhooks through the primary Sentinel names, before and after a failover', async () => {
    const referrer = await upsertUser(t, tenant.key);
    const before = await createLead(t, tenant.key, referrer.serviceUserId);
    await until('the first delivery', async () => deliveredLeads(receiver).has(before));
    const primary = await sentinel.primaryPort();
    expect(primary).toBe(sentinel.dataPorts[0]);

    const failover = await sentinel.killPrimaryAndFailOver();
    expect(failover.to).toBe(sentinel.dataPorts[1]);

    // Writes are acknowledged throughout (the outbox is in PostgreSQL), and every event is
    // delivered once the service follows Sentinel to the promoted replica.
    const after: string[] = [];
    for (let i = 0; i < 5; i++) after.push(await createLead(t, tenant.key, referrer.serviceUserId));
    await until(
      'the deliveries after the failover',
      async () => after.every((id) => deliveredLeads(receiver).has(id)),
      60_000,
    );
    // The service's own client (readiness, rate limits) reconnects within its back-off too.
    await until('readiness after the failover', async () => {
      return (await t.http().get('/health/ready')).status === 200;
    });
    // Each lead's event was sent exactly once.
    const perLead = receiver.requests.map(
      (r) => JSON.parse(r.body.toString('utf8')).payload.lead_id,
    );
    expect(perLead.length).toBe(new Set(perLead).size);
  });
});

describe('Redis Cluster', () => {
  let cluster: PrivateCluster;
  let receiver: HttpsReceiver;
  let t: TestApp;
  let tenant: TestTenant;
  const prefix = `clus_${newRunId()}`;

  beforeAll(async () => {
    cluster = await PrivateCluster.start();
    receiver = await startHttpsReceiver();
    t = await createTestApp({
      ...WEBHOOK_ENV,
      WEBHOOK_CA_FILE: receiver.caFile,
      REDIS_CLUSTER_NODES: cluster.nodes,
      QUEUE_PREFIX: prefix,
      RATE_LIMITS: 'on',
    });
    tenant = await createTenant(t);
    await webhookTo(t, tenant, receiver.url);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await cluster?.stop();
    await stopAllChildren();
  });

  it('tags an untagged QUEUE_PREFIX, and keeps the rate-limit prefix untagged', () => {
    // The run's own prefix goes before the file's (create-test-app.ts): it ends with ours.
    expect(t.config.queuePrefix).toMatch(new RegExp(`^\\{[\\w:-]*${prefix}\\}$`));
    expect(t.config.rateLimitPrefix).toBe(t.config.queuePrefix.slice(1, -1));
  });

  it('runs Bull jobs on the cluster: webhooks delivered end to end, keys in one slot', async () => {
    const referrer = await upsertUser(t, tenant.key);
    const leads: string[] = [];
    for (let i = 0; i < 10; i++)
      leads.push(await createLead(t, tenant.key, referrer.serviceUserId));
    await until(
      'every delivery',
      async () => leads.every((id) => deliveredLeads(receiver).has(id)),
      60_000,
    );
    const perLead = receiver.requests.map(
      (r) => JSON.parse(r.body.toString('utf8')).payload.lead_id,
    );
    expect(perLead.length).toBe(new Set(perLead).size);

    const bullKeys = await cluster.keys(`${t.config.queuePrefix}:*`);
    expect(bullKeys.length).toBeGreaterThan(0);
    const slots = new Set(await Promise.all(bullKeys.map((k) => cluster.keySlot(k.key))));
    expect(slots.size).toBe(1);
    expect(new Set(bullKeys.map((k) => k.port)).size).toBe(1);
  });

  it('counts rate limits in keys of their own prefix, spread over the cluster', async () => {
    const limiter = t.app.get(RateLimiter);
    // The limiter fails open while its cluster client cannot answer (a CI run saw all 30 calls
    // allowed uncounted, in 6 ms): count only once a probe is seen in the cluster.
    await until('the limiter counting on the cluster', async () => {
      await limiter.consume('probe', 'ready', 1_000_000, 60);
      return (await cluster.keys(`${t.config.rateLimitPrefix}:rl:probe:*`)).length > 0;
    });
    for (let i = 0; i < 30; i++) await limiter.consume('scale', `client${i}`, 100, 60);
    const counters = await cluster.keys(`${t.config.rateLimitPrefix}:rl:scale:*`);
    expect(counters.length).toBe(30);
    expect(new Set(counters.map((k) => k.port)).size).toBeGreaterThan(1);
  });
});
