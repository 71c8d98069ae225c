/**
 * The webhook delivery specs' shared setup
 * (test/e2e/webhooks/webhooks-{delivery,retries,endpoint}.e2e-spec.ts): one app per file with a
 * real HTTPS receiver on loopback, each tenant on its own receiver path and script, and the
 * helpers the specs poll with. The app and receiver are set by the hooks: read them inside a test.
 */
import { createHmac } from 'node:crypto';
import type { EventType } from '../../src/outbox/event-types';
import { createLead, eventsOf } from '../factories/money.factory';
import { createTenant, type TestTenant } from '../factories/tenants.factory';
import { upsertUser } from '../factories/users.factory';
import { adminApi } from './api-client';
import { createTestApp, type TestApp } from './create-test-app';
import {
  type HttpsReceiver,
  type ReceivedRequest,
  type Script,
  startHttpsReceiver,
} from './https-receiver';
import { newRunId } from './test-env';

/**
 * The delivery engine end to end: real Postgres, Redis, Bull workers and a real HTTPS receiver on
 * loopback. Retry delays are compressed (RETRY_MS each) and the timeout is short (TIMEOUT_MS).
 */
export const RETRY_MS = 100;
export const TIMEOUT_MS = 800;

export type Answer = ReturnType<Script>;
export type Envelope = {
  event_type: string;
  event_id: string;
  occurred_at: string;
  payload: Record<string, unknown>;
};
export interface Attempt {
  attempt: number;
  at: string;
  state: 'completed' | 'in_flight' | 'interrupted';
  status_code: number | null;
  duration_ms: number | null;
  error: string | null;
  response_body: string | null;
  replay: boolean;
}
export interface Detail {
  event: Envelope;
  status: string;
  attempts: Attempt[];
}

/** The example receiver's two checks (examples/webhook-receiver/server.js, plain JavaScript). */
export type Headers = Record<string, string | string[] | undefined>;
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const example = require('../../examples/webhook-receiver/server.js') as {
  verifyBody: (raw: Buffer, headers: Headers, secrets: string[]) => boolean;
  verifyStandard: (raw: Buffer, headers: Headers, secrets: string[], nowMs: number) => boolean;
};

export const EVENT_ID = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const hmac = (secret: string, data: string | Buffer) =>
  createHmac('sha256', Buffer.from(secret, 'utf8')).update(data).digest('hex');
export const sorted = (o: object) => Object.keys(o).sort();

export function webhooksSuite() {
  let t: TestApp;
  /** The same database, but without WEBHOOK_CA_FILE: the self-signed receiver is not trusted. */
  let common: NodeJS.ProcessEnv;
  let receiver: HttpsReceiver;
  const routes = new Map<string, (k: number, req: ReceivedRequest) => Answer>();
  const tenants: TestTenant[] = [];

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    // Each tenant gets its own path and script; k counts that path's earlier requests.
    receiver.script = (_n, req) => {
      const script = routes.get(req.path);
      const k = receiver.requests.filter((r) => r.path === req.path).length - 1;
      return script ? script(k, req) : { status: 200 };
    };
    common = {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_DELAYS_MS: Array(5).fill(RETRY_MS).join(','),
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      WEBHOOK_SWEEP_MS: '1000',
    };
    t = await createTestApp({
      ...common,
      WEBHOOK_CA_FILE: receiver.caFile,
      QUEUE_PREFIX: `whe2e_${newRunId()}`,
    });
  });

  afterAll(async () => {
    // Let every delivery of this file settle, so that no other app's sweeper picks one up later.
    const ids = tenants.map((x) => x.orgId);
    for (let i = 0; i < 80 && ids.length; i++) {
      const [{ count }]: { count: number }[] = await t.db.query(
        `SELECT count(*)::int AS count FROM webhook_deliveries
          WHERE tenant_id = ANY($1) AND status = 'pending'`,
        [ids],
      );
      if (!count) break;
      await sleep(100);
    }
    await t?.close();
    await receiver?.close();
  });

  /** The Admin API with the platform admin token (or another app's). */
  const admin = (app = t) => adminApi(app, app.adminToken);

  /** A fresh tenant with its own receiver path and script (default: 200). */
  async function tenantWithPath(
    script?: (k: number, req: ReceivedRequest) => Answer,
    overrides: Record<string, unknown> = {},
  ) {
    const tenant = await createTenant(t, overrides);
    tenants.push(tenant);
    const path = `/hook/${tenant.slug}`;
    if (script) routes.set(path, script);
    return { tenant, path, url: `https://localhost:${receiver.port}${path}` };
  }

  async function configure(
    slug: string,
    url: string,
    events: EventType[],
    enabled = true,
  ): Promise<string> {
    const res = await admin().putWebhook(slug, { url, events, enabled });
    expect(res.status).toBe(200);
    return res.body.secret!;
  }

  const requestsTo = (path: string) => receiver.requests.filter((r) => r.path === path);

  async function waitForRequests(path: string, count: number, timeoutMs = 10000) {
    const until = Date.now() + timeoutMs;
    while (requestsTo(path).length < count) {
      if (Date.now() > until)
        throw new Error(`waited for ${count} requests to ${path}, got ${requestsTo(path).length}`);
      await sleep(25);
    }
    return requestsTo(path);
  }

  async function detailOf(slug: string, eventId: string, app = t): Promise<Detail> {
    const res = await admin(app).webhookEvent(slug, eventId);
    expect(res.status).toBe(200);
    return res.body as unknown as Detail;
  }

  /** Polls the event detail until `done` holds (bounded). */
  async function waitForDetail(
    slug: string,
    eventId: string,
    done: (d: Detail) => boolean,
    timeoutMs = 10000,
  ): Promise<Detail> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const detail = await detailOf(slug, eventId);
      if (done(detail)) return detail;
      if (Date.now() > until)
        throw new Error(`event ${eventId} never got there: ${JSON.stringify(detail)}`);
      await sleep(50);
    }
  }
  const status = (s: string) => (d: Detail) => d.status === s;
  /** At least n attempts completed (an attempt is in the log, in flight, from before its request). */
  const attempts = (n: number) => (d: Detail) =>
    d.attempts.filter((a) => a.state === 'completed').length >= n;

  /** Registers a lead and returns its lead.created event id from the outbox. */
  async function leadEvent(tenant: TestTenant, app = t): Promise<string> {
    const referrer = await upsertUser(app, tenant.key);
    const leadId = await createLead(app, tenant.key, referrer.serviceUserId);
    const created = (await eventsOf(app, tenant.orgId, 'lead.created')).find(
      (e) => e.payload.lead_id === leadId,
    );
    return created!.event_id;
  }

  /** Stops a failing endpoint from being hit again (the rest of its attempts fail at once). */
  async function disable(slug: string, url: string) {
    await configure(slug, url, ['lead.created'], false);
  }

  return {
    get t() {
      return t;
    },
    get common() {
      return common;
    },
    get receiver() {
      return receiver;
    },
    routes,
    admin,
    tenantWithPath,
    configure,
    requestsTo,
    waitForRequests,
    detailOf,
    waitForDetail,
    status,
    attempts,
    leadEvent,
    disable,
  };
}
