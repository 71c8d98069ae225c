/**
 * The webhook fault-injection spec's (test/e2e/webhooks/webhooks-faults.e2e-spec.ts) bookkeeping: what the
 * receiver answered when, the checks on it (overlaps, the cap, exactly once), the delivery counts
 * and queue state it waits on or reports, and the Federation and Admin calls it makes.
 */
import Redis from 'ioredis';
import { EVENT_TYPES, type EventType } from '../../src/outbox/event-types';
import { deliverJobId } from '../../src/webhooks/engine/job-ids';
import { WEBHOOKS_QUEUE } from '../../src/webhooks/webhook.queue';
import type { TestTenant } from '../factories/tenants.factory';
import { adminApi, federationApi } from './api-client';
import type { TestApp } from './create-test-app';
import type { HttpsReceiver, ReceivedRequest } from './https-receiver';
import type { PrivateRedis } from './processes';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One request as the receiver saw it: when it arrived and when its answer was written. */
export interface Sent {
  eventId: string;
  attempt: string;
  at: number;
  answeredAt: number;
  status: number;
}

/** Answers every request with `answer(req)` and keeps a log of what was answered when. */
export function recordAnswers(
  r: HttpsReceiver,
  answer: (req: ReceivedRequest) => { status: number; delayMs?: number },
  onRequest: (sent: Sent[]) => void = () => undefined,
): Sent[] {
  const sent: Sent[] = [];
  r.script = (_n, req) => {
    const a = answer(req);
    sent.push({
      eventId: String(req.headers['x-service-event-id']),
      attempt: String(req.headers['x-service-delivery-attempt']),
      at: req.at,
      answeredAt: req.at + (a.delayMs ?? 0),
      status: a.status,
    });
    onRequest(sent);
    return a;
  };
  return sent;
}

export function byEvent(sent: Sent[]): Map<string, Sent[]> {
  const map = new Map<string, Sent[]>();
  for (const s of [...sent].sort((a, b) => a.at - b.at)) {
    map.set(s.eventId, [...(map.get(s.eventId) ?? []), s]);
  }
  return map;
}

/** Events whose requests were in flight at the same time (one arrived before the other's answer). */
export function overlapping(sent: Sent[]): string[] {
  const found: string[] = [];
  for (const [eventId, list] of byEvent(sent)) {
    for (let i = 1; i < list.length; i++) {
      if (list[i].at < list[i - 1].answeredAt) {
        found.push(
          `${eventId}: attempt ${list[i].attempt} arrived at +${list[i].at - list[i - 1].at} ms, ` +
            `before attempt ${list[i - 1].attempt} was answered (+${list[i - 1].answeredAt - list[i - 1].at} ms)`,
        );
      }
    }
  }
  return found;
}

/** The most requests the receiver had in flight at once (answered at `answeredAt`). */
export function maxInFlight(sent: Sent[]): number {
  const edges = sent.flatMap((s) => [
    { t: s.at, d: 1 },
    { t: s.answeredAt, d: -1 },
  ]);
  // An answer and a request at the same instant: the answer first (the slot was free again).
  edges.sort((a, b) => a.t - b.t || a.d - b.d);
  let now = 0;
  let most = 0;
  for (const e of edges) most = Math.max(most, (now += e.d));
  return most;
}

/**
 * Events that did not get exactly one 2xx answer, or got a request after it: a duplicate is only
 * acceptable when every earlier request of that event was answered with a failure.
 */
export function notExactlyOnce(sent: Sent[]): string[] {
  const found: string[] = [];
  for (const [eventId, list] of byEvent(sent)) {
    const ok = list.filter((s) => s.status >= 200 && s.status < 300);
    if (ok.length !== 1 || list[list.length - 1] !== ok[0]) {
      found.push(`${eventId}: ${list.map((s) => `#${s.attempt}→${s.status}`).join(', ')}`);
    }
  }
  return found;
}

export async function deliveryCounts(
  t: TestApp,
  tenantId: string,
): Promise<Record<string, number>> {
  const rows: { status: string; n: number }[] = await t.db.query(
    `SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE tenant_id = $1 GROUP BY status`,
    [tenantId],
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/** Polls until the tenant has `expected` deliveries, all `delivered`; a clear error otherwise. */
export async function waitAllDelivered(
  t: TestApp,
  tenantId: string,
  expected: number,
  timeoutMs: number,
  context: () => string | Promise<string> = () => '',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let counts: Record<string, number> = {};
  while (Date.now() < deadline) {
    counts = await deliveryCounts(t, tenantId);
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    if (total >= expected && counts.delivered === total) return;
    await sleep(200);
  }
  throw new Error(
    `not all ${expected} deliveries delivered within ${timeoutMs} ms: ${JSON.stringify(counts)}\n${await context()}`,
  );
}

/** For a failure message: where each pending delivery's next job is in Bull, if anywhere. */
export async function queueState(
  t: TestApp,
  tenantId: string,
  redis: PrivateRedis,
  prefix: string,
): Promise<string> {
  const pending: { event_id: string; attempts: number; locked_until: Date | null }[] =
    await t.db.query(
      `SELECT event_id, attempts, locked_until FROM webhook_deliveries
        WHERE tenant_id = $1 AND status <> 'delivered'`,
      [tenantId],
    );
  const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  try {
    const base = `${prefix}:${WEBHOOKS_QUEUE}`;
    const [active, wait, stalled] = await Promise.all([
      client.lrange(`${base}:active`, 0, -1),
      client.lrange(`${base}:wait`, 0, -1),
      client.smembers(`${base}:stalled`),
    ]);
    const lines = await Promise.all(
      pending.map(async (d) => {
        const id = deliverJobId(d.event_id, d.attempts + 1);
        const where = active.includes(id)
          ? `active (lock ttl ${await client.pttl(`${base}:${id}:lock`)} ms)`
          : wait.includes(id)
            ? 'waiting'
            : (await client.exists(`${base}:${id}`))
              ? 'stored elsewhere'
              : 'absent';
        return `${id} attempts=${d.attempts} locked_until=${d.locked_until?.toISOString()} job ${where}`;
      }),
    );
    return `pending deliveries and their jobs:\n${lines.join('\n')}\nactive=${active.length} wait=${wait.length} stalled=${stalled.length}`;
  } finally {
    client.disconnect();
  }
}

export async function putWebhook(t: TestApp, tenant: TestTenant, url: string, events: string[]) {
  const res = await adminApi(t, t.adminToken).putWebhook(tenant.slug, {
    url,
    events: events as EventType[],
  });
  if (res.status !== 200) throw new Error(`PUT webhook: ${res.status} ${JSON.stringify(res.body)}`);
}

/** A Federation API POST that must answer 200 within 8 s (it must never wait for Redis). */
export async function federation(t: TestApp, key: string, path: string, body: object) {
  const started = Date.now();
  const res = await federationApi(t, key)
    .raw('post', path, body)
    .timeout({ response: 8000, deadline: 10_000 });
  if (res.status !== 200) {
    throw new Error(`POST ${path}: ${res.status} after ${Date.now() - started} ms ${res.text}`);
  }
  return res.body as Record<string, unknown>;
}

export function lead(t: TestApp, key: string, referrerUserId: string, i: number): Promise<string> {
  return federation(t, key, '/federation/v1/leads', {
    referrer_user_id: referrerUserId,
    contact: { name: `Lead ${i}`, email: `lead${i}@example.org` },
  }).then((b) => b.lead_id as string);
}

export async function subscribedEventIds(t: TestApp, tenantId: string): Promise<string[]> {
  const rows: { id: string }[] = await t.db.query(
    `SELECT id FROM events WHERE tenant_id = $1 AND event_type = ANY($2) ORDER BY id`,
    [tenantId, [...EVENT_TYPES]],
  );
  return rows.map((r) => r.id);
}
