import { createHmac } from 'node:crypto';
import { createServer } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { createLead, eventsOf, registerConversion } from '../factories/money.factory';
import { createTenant, TestTenant } from '../factories/tenants.factory';
import { createChain, upsertUser } from '../factories/users.factory';
import { TransactionHost } from '../../src/database/transaction-host';
import { EventsService } from '../../src/outbox/events.service';
import { createTestApp, TestApp } from '../utils/create-test-app';
import {
  HttpsReceiver,
  ReceivedRequest,
  Script,
  startHttpsReceiver,
} from '../utils/https-receiver';
import { newRunId } from '../utils/test-env';

/**
 * The delivery engine end to end: real Postgres, Redis, Bull workers and a real HTTPS receiver on
 * loopback. Retry delays are compressed (RETRY_MS each) and the timeout is short (TIMEOUT_MS).
 */
const RETRY_MS = 100;
const TIMEOUT_MS = 800;

type Answer = ReturnType<Script>;
type Envelope = {
  event_type: string;
  event_id: string;
  occurred_at: string;
  payload: Record<string, unknown>;
};
interface Attempt {
  attempt: number;
  at: string;
  state: 'completed' | 'in_flight' | 'interrupted';
  status_code: number | null;
  duration_ms: number | null;
  error: string | null;
  response_body: string | null;
  replay: boolean;
}
interface Detail {
  event: Envelope;
  status: string;
  attempts: Attempt[];
}

/** The example receiver's two checks (examples/webhook-receiver/server.js, plain JavaScript). */
type Headers = Record<string, string | string[] | undefined>;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const example = require('../../examples/webhook-receiver/server.js') as {
  verifyBody: (raw: Buffer, headers: Headers, secrets: string[]) => boolean;
  verifyStandard: (raw: Buffer, headers: Headers, secrets: string[], nowMs: number) => boolean;
};

const EVENT_ID = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hmac = (secret: string, data: string | Buffer) =>
  createHmac('sha256', Buffer.from(secret, 'utf8')).update(data).digest('hex');
const sorted = (o: object) => Object.keys(o).sort();

describe('webhooks: delivery engine', () => {
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

  const admin = (token = t.adminToken) => ({ Authorization: `Bearer ${token}` });

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
    events: string[],
    enabled = true,
  ): Promise<string> {
    const res = await t
      .http()
      .put(`/admin/v1/tenants/${slug}/webhook`)
      .set(admin())
      .send({ url, events, enabled });
    expect(res.status).toBe(200);
    return res.body.secret as string;
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
    const res = await app
      .http()
      .get(`/admin/v1/tenants/${slug}/webhook/events/${eventId}`)
      .set(admin());
    expect(res.status).toBe(200);
    return res.body as Detail;
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

  describe('envelope, headers and payloads', () => {
    it('delivers each of the six events, signed, with the stored bytes and the exact payload keys', async () => {
      const { tenant, path, url } = await tenantWithPath(undefined, {
        program: {
          lead_bonus_kopecks: 5000,
          tiers: [
            { tier: 'referrer', percent_bp: 1000 },
            { tier: 'upline_1', percent_bp: 300 },
          ],
          grace_period_hours: 336,
        },
      });
      const secret = await configure(tenant.slug, url, [
        'lead.created',
        'bonus.pending',
        'bonus.approved',
        'bonus.rejected',
        'conversion.cascaded',
        'conversion.reversed',
      ]);
      const [root, referrer] = await createChain(t, tenant.key, 2);

      // lead.created + bonus.pending (the lead bonus)
      const leadId = await createLead(t, tenant.key, referrer.serviceUserId, {
        contact: { name: 'Мария', email: 'maria@example.org', phone: '+79990000000' },
        metadata: { campaign: 'spring', nested: { a: 1 } },
      });
      const leadBonus = (await eventsOf(t, tenant.orgId, 'bonus.pending'))[0].payload;
      // bonus.approved
      const approved = await t
        .http()
        .post(`/admin/v1/tenants/${tenant.slug}/bonuses/${leadBonus.bonus_id as string}/approve`)
        .set(admin());
      expect(approved.status).toBe(200);
      // bonus.pending ×2 + conversion.cascaded
      const conversion = await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 100000,
        external_order_id: `order-${tenant.slug}`,
      });
      const upline = conversion.cascaded_bonuses.find((b) => b.tier === 'upline_1')!;
      const direct = conversion.cascaded_bonuses.find((b) => b.tier === 'referrer')!;
      // bonus.rejected
      const rejected = await t
        .http()
        .post(`/admin/v1/tenants/${tenant.slug}/bonuses/${upline.bonus_id}/reject`)
        .set(admin())
        .send({ reason: 'fraud check' });
      expect(rejected.status).toBe(200);
      // conversion.reversed
      const reversed = await t
        .http()
        .post(`/federation/v1/conversions/${conversion.conversion_id}/reverse`)
        .set('X-Service-Tenant-Key', tenant.key)
        .send({ reason: 'refund' });
      expect(reversed.status).toBe(200);

      const stored: { id: string; event_type: string; body: string }[] = await t.db.query(
        `SELECT id, event_type, body FROM events WHERE tenant_id = $1`,
        [tenant.orgId],
      );
      expect(stored).toHaveLength(8);
      await waitForRequests(path, 8);
      await sleep(300);
      const received = requestsTo(path);
      expect(received).toHaveLength(8);

      const byType = new Map<string, Envelope[]>();
      const nowS = Math.floor(Date.now() / 1000);
      for (const req of received) {
        const raw = req.body.toString('utf8');
        const envelope = JSON.parse(raw) as Envelope;
        expect(sorted(envelope)).toEqual(['event_id', 'event_type', 'occurred_at', 'payload']);
        expect(envelope.event_id).toMatch(EVENT_ID);
        expect(envelope.occurred_at).toMatch(ISO_MS);
        // The bytes are the ones stored in the outbox.
        const row = stored.find((s) => s.id === envelope.event_id)!;
        expect(row).toBeDefined();
        expect(row.event_type).toBe(envelope.event_type);
        expect(req.body.equals(Buffer.from(row.body, 'utf8'))).toBe(true);

        const h = req.headers;
        expect(h['content-type']).toMatch(/^application\/json\b/);
        expect(h['x-service-signature']).toBe(hmac(secret, req.body));
        expect(h['x-service-event-id']).toBe(envelope.event_id);
        expect(h['x-service-event-type']).toBe(envelope.event_type);
        expect(h['x-service-delivery-attempt']).toBe('1');
        const ts = h['x-service-timestamp'] as string;
        expect(ts).toMatch(/^\d{10}$/);
        expect(Math.abs(Number(ts) - nowS)).toBeLessThan(60);
        expect(h['x-service-signature-timestamped']).toBe(hmac(secret, `${ts}.${raw}`));
        expect(h['x-service-signature-previous']).toBeUndefined();
        byType.set(envelope.event_type, [...(byType.get(envelope.event_type) ?? []), envelope]);
      }
      expect([...byType.keys()].sort()).toEqual([
        'bonus.approved',
        'bonus.pending',
        'bonus.rejected',
        'conversion.cascaded',
        'conversion.reversed',
        'lead.created',
      ]);
      expect(byType.get('bonus.pending')).toHaveLength(3);

      const [lead] = byType.get('lead.created')!;
      expect(sorted(lead.payload)).toEqual([
        'contact',
        'lead_id',
        'metadata',
        'offer_id',
        'referrer_user_id',
        'source',
      ]);
      expect(lead.payload).toEqual({
        lead_id: leadId,
        referrer_user_id: referrer.serviceUserId,
        contact: { name: 'Мария', email: 'maria@example.org' },
        offer_id: null,
        metadata: { campaign: 'spring', nested: { a: 1 } },
        source: 'federation',
      });

      for (const pending of byType.get('bonus.pending')!) {
        expect(sorted(pending.payload)).toEqual([
          'amount_kopecks',
          'bonus_id',
          'currency',
          'source_id',
          'source_type',
          'user_id',
        ]);
      }
      expect(byType.get('bonus.pending')!.map((e) => e.payload)).toEqual(
        expect.arrayContaining([
          {
            bonus_id: leadBonus.bonus_id,
            user_id: referrer.serviceUserId,
            amount_kopecks: 5000,
            currency: 'RUB',
            source_type: 'lead',
            source_id: leadId,
          },
          {
            bonus_id: direct.bonus_id,
            user_id: referrer.serviceUserId,
            amount_kopecks: 10000,
            currency: 'RUB',
            source_type: 'conversion',
            source_id: conversion.conversion_id,
          },
          {
            bonus_id: upline.bonus_id,
            user_id: root.serviceUserId,
            amount_kopecks: 3000,
            currency: 'RUB',
            source_type: 'conversion',
            source_id: conversion.conversion_id,
          },
        ]),
      );

      const [approvedEvent] = byType.get('bonus.approved')!;
      expect(sorted(approvedEvent.payload)).toEqual([
        'amount_kopecks',
        'approved_at',
        'bonus_id',
        'user_id',
      ]);
      expect(approvedEvent.payload).toMatchObject({
        bonus_id: leadBonus.bonus_id,
        user_id: referrer.serviceUserId,
        amount_kopecks: 5000,
      });
      expect(approvedEvent.payload.approved_at).toMatch(ISO_MS);

      const [rejectedEvent] = byType.get('bonus.rejected')!;
      expect(sorted(rejectedEvent.payload)).toEqual([
        'amount_kopecks',
        'bonus_id',
        'reason',
        'rejected_at',
        'user_id',
      ]);
      expect(rejectedEvent.payload).toMatchObject({
        bonus_id: upline.bonus_id,
        user_id: root.serviceUserId,
        amount_kopecks: 3000,
        reason: 'fraud check',
      });
      expect(rejectedEvent.payload.rejected_at).toMatch(ISO_MS);

      const [cascaded] = byType.get('conversion.cascaded')!;
      expect(sorted(cascaded.payload)).toEqual([
        'amount_kopecks',
        'cascaded_bonuses',
        'conversion_id',
        'lead_id',
      ]);
      expect(cascaded.payload).toEqual({
        conversion_id: conversion.conversion_id,
        lead_id: leadId,
        amount_kopecks: 100000,
        cascaded_bonuses: [
          { user_id: referrer.serviceUserId, amount_kopecks: 10000, tier: 'referrer' },
          { user_id: root.serviceUserId, amount_kopecks: 3000, tier: 'upline_1' },
        ],
      });

      const [reversal] = byType.get('conversion.reversed')!;
      expect(sorted(reversal.payload)).toEqual([
        'conversion_id',
        'reason',
        'reversed_at',
        'written_off',
      ]);
      // Only the still-pending referrer bonus is written off; the rejected one is not.
      expect(reversal.payload).toMatchObject({
        conversion_id: conversion.conversion_id,
        reason: 'refund',
        written_off: [
          { bonus_id: direct.bonus_id, user_id: referrer.serviceUserId, amount_kopecks: 10000 },
        ],
      });
      expect(reversal.payload.reversed_at).toMatch(ISO_MS);

      // The operator's view shows the envelope exactly as delivered.
      const detail = await waitForDetail(tenant.slug, reversal.event_id, status('delivered'));
      expect(detail.event).toEqual(reversal);
    });

    it('delivers only the subscribed event types', async () => {
      const { tenant, path, url } = await tenantWithPath(undefined, {
        program: { lead_bonus_kopecks: 1000 },
      });
      await configure(tenant.slug, url, ['conversion.cascaded']);
      const referrer = await upsertUser(t, tenant.key);
      // lead.created, bonus.pending ×2 and conversion.cascaded are all written to the outbox …
      const leadId = await createLead(t, tenant.key, referrer.serviceUserId);
      const conversion = await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 50000,
        external_order_id: `order-${tenant.slug}`,
      });
      expect(await eventsOf(t, tenant.orgId)).toHaveLength(4);

      // … but only conversion.cascaded becomes a delivery and reaches the receiver.
      const list = await t
        .http()
        .get(`/admin/v1/tenants/${tenant.slug}/webhook/events`)
        .set(admin());
      expect(list.status).toBe(200);
      expect(list.body.items.map((i: { event_type: string }) => i.event_type)).toEqual([
        'conversion.cascaded',
      ]);
      await waitForRequests(path, 1);
      await sleep(700);
      const received = requestsTo(path);
      expect(received.map((r) => r.headers['x-service-event-type'])).toEqual([
        'conversion.cascaded',
      ]);
      expect(JSON.parse(received[0].body.toString('utf8')).payload.conversion_id).toBe(
        conversion.conversion_id,
      );
    });

    it('sends nothing to a disabled endpoint', async () => {
      const { tenant, path, url } = await tenantWithPath();
      await configure(
        tenant.slug,
        url,
        ['lead.created', 'bonus.pending', 'conversion.cascaded'],
        false,
      );
      const referrer = await upsertUser(t, tenant.key);
      const leadId = await createLead(t, tenant.key, referrer.serviceUserId);
      await registerConversion(t, tenant.key, {
        lead_id: leadId,
        amount_kopecks: 50000,
        external_order_id: `order-${tenant.slug}`,
      });
      expect((await eventsOf(t, tenant.orgId)).length).toBeGreaterThanOrEqual(3);
      await sleep(700);
      expect(requestsTo(path)).toHaveLength(0);
      const list = await t
        .http()
        .get(`/admin/v1/tenants/${tenant.slug}/webhook/events`)
        .set(admin());
      expect(list.body.pagination.total).toBe(0);
    });
  });

  describe('retries, dead letters and replays', () => {
    it('retries 500, 500 and delivers on attempt 3 with the same event id and bytes', async () => {
      const { tenant, path, url } = await tenantWithPath((k) => ({ status: k < 2 ? 500 : 200 }));
      const secret = await configure(tenant.slug, url, ['lead.created']);
      const eventId = await leadEvent(tenant);

      const received = await waitForRequests(path, 3);
      expect(received.map((r) => r.headers['x-service-delivery-attempt'])).toEqual(['1', '2', '3']);
      expect(received.map((r) => r.headers['x-service-event-id'])).toEqual([
        eventId,
        eventId,
        eventId,
      ]);
      for (const r of received) {
        expect(r.body.equals(received[0].body)).toBe(true);
        expect(r.headers['x-service-signature']).toBe(hmac(secret, r.body));
      }
      // The retry waits for the configured delay.
      expect(received[1].at - received[0].at).toBeGreaterThanOrEqual(RETRY_MS - 10);
      expect(received[2].at - received[1].at).toBeGreaterThanOrEqual(RETRY_MS - 10);

      const detail = await waitForDetail(tenant.slug, eventId, status('delivered'));
      expect(detail.attempts.map((a) => [a.attempt, a.status_code, a.error])).toEqual([
        [1, 500, 'http_status'],
        [2, 500, 'http_status'],
        [3, 200, null],
      ]);
      for (const a of detail.attempts) {
        expect(a.at).toMatch(ISO_MS);
        expect(a.duration_ms).toBeGreaterThanOrEqual(0);
      }
      await sleep(RETRY_MS * 2);
      expect(requestsTo(path)).toHaveLength(3);

      const list = await t
        .http()
        .get(`/admin/v1/tenants/${tenant.slug}/webhook/events?status=delivered`)
        .set(admin());
      expect(list.body.items).toEqual([
        {
          event_id: eventId,
          event_type: 'lead.created',
          status: 'delivered',
          attempts: 3,
          next_attempt_at: null,
          last_status_code: 200,
        },
      ]);
    });

    it('gives up after 1 + 5 attempts, dead-letters with an audit entry, and a replay delivers it', async () => {
      let answer = 500;
      const { tenant, path, url } = await tenantWithPath(() => ({ status: answer }));
      const secret = await configure(tenant.slug, url, ['lead.created']);
      const eventId = await leadEvent(tenant);

      // Still being retried: a replay is refused.
      await waitForRequests(path, 1);
      const early = await t
        .http()
        .post(`/admin/v1/tenants/${tenant.slug}/webhook/events/${eventId}/replay`)
        .set(admin());
      expect(early.status).toBe(409);
      expect(early.body.code).toBe('conflict');

      const dead = await waitForDetail(tenant.slug, eventId, status('dead'));
      await sleep(RETRY_MS * 3);
      expect(requestsTo(path)).toHaveLength(6);
      expect(requestsTo(path).map((r) => r.headers['x-service-delivery-attempt'])).toEqual([
        '1',
        '2',
        '3',
        '4',
        '5',
        '6',
      ]);
      expect(dead.attempts.map((a) => a.status_code)).toEqual([500, 500, 500, 500, 500, 500]);
      expect((await detailOf(tenant.slug, eventId)).attempts).toHaveLength(6);

      const deadList = await t
        .http()
        .get(`/admin/v1/tenants/${tenant.slug}/webhook/events?status=dead`)
        .set(admin());
      expect(deadList.status).toBe(200);
      expect(deadList.body.items).toEqual([
        expect.objectContaining({
          event_id: eventId,
          status: 'dead',
          attempts: 6,
          last_status_code: 500,
        }),
      ]);
      const pendingList = await t
        .http()
        .get(`/admin/v1/tenants/${tenant.slug}/webhook/events?status=pending`)
        .set(admin());
      expect(pendingList.body.items).toEqual([]);

      const audit = await t
        .http()
        .get(`/admin/v1/tenants/${tenant.slug}/audit-log?page_size=100`)
        .set(admin());
      expect(audit.status).toBe(200);
      const entries = (audit.body.items as { action: string; target_id: string }[]).filter(
        (e) => e.action === 'webhook.dead_lettered',
      );
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ action: 'webhook.dead_lettered', target_id: eventId });

      // The receiver is fixed; the replay is one fresh attempt with the same id and body.
      answer = 200;
      const replay = await t
        .http()
        .post(`/admin/v1/tenants/${tenant.slug}/webhook/events/${eventId}/replay`)
        .set(admin());
      expect(replay.status).toBe(202);
      const all = await waitForRequests(path, 7);
      const last = all[6];
      expect(last.headers['x-service-delivery-attempt']).toBe('7');
      expect(last.headers['x-service-event-id']).toBe(eventId);
      expect(last.body.equals(all[0].body)).toBe(true);
      expect(last.headers['x-service-signature']).toBe(hmac(secret, last.body));

      const delivered = await waitForDetail(tenant.slug, eventId, status('delivered'));
      expect(delivered.attempts).toHaveLength(7);
      expect(delivered.attempts[6]).toMatchObject({
        attempt: 7,
        status_code: 200,
        error: null,
        replay: true,
      });
      await sleep(RETRY_MS * 2);
      expect(requestsTo(path)).toHaveLength(7);
    });

    it('leaves a delivery dead when its replay fails', async () => {
      const { tenant, path, url } = await tenantWithPath(() => ({ status: 503 }));
      await configure(tenant.slug, url, ['lead.created']);
      const eventId = await leadEvent(tenant);
      await waitForDetail(tenant.slug, eventId, status('dead'));

      const replay = await t
        .http()
        .post(`/admin/v1/tenants/${tenant.slug}/webhook/events/${eventId}/replay`)
        .set(admin());
      expect(replay.status).toBe(202);
      const detail = await waitForDetail(tenant.slug, eventId, attempts(7));
      expect(detail.status).toBe('dead');
      expect(detail.attempts[6]).toMatchObject({
        attempt: 7,
        status_code: 503,
        error: 'http_status',
        replay: true,
      });
      await sleep(RETRY_MS * 3);
      expect(requestsTo(path)).toHaveLength(7);
      expect((await detailOf(tenant.slug, eventId)).status).toBe('dead');
    });

    it('keeps a replay while another worker holds every slot of the endpoint, and sends it once one is free', async () => {
      const { tenant, path, url } = await tenantWithPath();
      await configure(tenant.slug, url, ['lead.created']);
      const eventId = await leadEvent(tenant);
      await waitForDetail(tenant.slug, eventId, status('delivered'));

      // Another worker's lanes lease all the endpoint's slots for a while.
      await t.db.query(
        `UPDATE webhook_endpoint_slots
            SET holder = 'another-worker', locked_until = now() + interval '3 seconds'
          WHERE tenant_id = $1`,
        [tenant.orgId],
      );
      const replay = await t
        .http()
        .post(`/admin/v1/tenants/${tenant.slug}/webhook/events/${eventId}/replay`)
        .set(admin());
      expect(replay.status).toBe(202);
      await sleep(1000);
      expect(requestsTo(path)).toHaveLength(1);

      // The replay was put off, not dropped: it goes out once the leases lapse.
      const detail = await waitForDetail(tenant.slug, eventId, attempts(2), 15000);
      expect(detail.status).toBe('delivered');
      expect(detail.attempts[1]).toMatchObject({ attempt: 2, status_code: 200, replay: true });
      expect(requestsTo(path)).toHaveLength(2);
      expect(requestsTo(path)[1].headers['x-service-event-id']).toBe(eventId);
    });
  });

  describe('failure classes in the attempt log', () => {
    it('counts a redirect as a failure and never follows it', async () => {
      const { tenant, path, url } = await tenantWithPath();
      const elsewhere = `${path}-elsewhere`;
      routes.set(path, () => ({
        status: 302,
        headers: { Location: `https://localhost:${receiver.port}${elsewhere}` },
        body: '',
      }));
      await configure(tenant.slug, url, ['lead.created']);
      const eventId = await leadEvent(tenant);
      const detail = await waitForDetail(tenant.slug, eventId, attempts(2));
      expect(detail.status).not.toBe('delivered');
      expect(detail.attempts[0]).toMatchObject({ attempt: 1, status_code: 302, error: 'redirect' });
      await disable(tenant.slug, url);
      await sleep(300);
      expect(requestsTo(elsewhere)).toHaveLength(0);
    });

    it('shows an attempt in the log as in flight from before its request until its outcome', async () => {
      const { tenant, path, url } = await tenantWithPath(() => 'hang');
      await configure(tenant.slug, url, ['lead.created']);
      const eventId = await leadEvent(tenant);
      // The receiver holds the request open (until the service's timeout, TIMEOUT_MS): the
      // attempt was written to the log before the request was sent.
      await waitForRequests(path, 1);
      const during = await detailOf(tenant.slug, eventId);
      expect(during.status).toBe('pending');
      expect(during.attempts).toEqual([
        {
          attempt: 1,
          at: expect.stringMatching(ISO_MS),
          state: 'in_flight',
          status_code: null,
          duration_ms: null,
          error: null,
          response_body: null,
          replay: false,
        },
      ]);
      // Then completed in place with its outcome.
      const after = await waitForDetail(tenant.slug, eventId, attempts(1));
      expect(after.attempts[0]).toMatchObject({
        attempt: 1,
        state: 'completed',
        status_code: null,
        error: 'timeout',
      });
      expect(after.attempts[0].duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      await disable(tenant.slug, url);
    });

    it('counts a receiver that does not answer within WEBHOOK_TIMEOUT_MS as a timeout', async () => {
      const { tenant, url } = await tenantWithPath(() => 'hang');
      await configure(tenant.slug, url, ['lead.created']);
      const eventId = await leadEvent(tenant);
      const detail = await waitForDetail(tenant.slug, eventId, attempts(1));
      expect(detail.status).toBe('pending');
      expect(detail.attempts[0]).toMatchObject({ attempt: 1, status_code: null, error: 'timeout' });
      expect(detail.attempts[0].duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(detail.attempts[0].duration_ms).toBeLessThan(TIMEOUT_MS + 2000);
      await disable(tenant.slug, url);
    });

    it('counts a refused connection', async () => {
      const port = await new Promise<number>((resolve) => {
        const server = createServer();
        server.listen(0, '127.0.0.1', () => {
          const { port: free } = server.address() as { port: number };
          server.close(() => resolve(free));
        });
      });
      const { tenant } = await tenantWithPath();
      const url = `https://127.0.0.1:${port}/closed`;
      await configure(tenant.slug, url, ['lead.created']);
      const eventId = await leadEvent(tenant);
      const detail = await waitForDetail(tenant.slug, eventId, attempts(1));
      expect(detail.attempts[0]).toMatchObject({
        attempt: 1,
        status_code: null,
        error: 'connection_refused',
      });
      await disable(tenant.slug, url);
    });

    it('counts an untrusted certificate as a TLS failure (an app without WEBHOOK_CA_FILE)', async () => {
      // Only for this test: its sweeper shares the database, so it would pick up (and fail) the
      // other tests' due deliveries and replays.
      const untrusting = await createTestApp({
        ...common,
        QUEUE_PREFIX: `whe2e_notls_${newRunId()}`,
      });
      try {
        const { tenant, path, url } = await tenantWithPath();
        await configure(tenant.slug, url, ['lead.created']);
        // The lead is registered through the untrusting app, so its worker makes the attempts.
        const eventId = await leadEvent(tenant, untrusting);
        const detail = await waitForDetail(tenant.slug, eventId, attempts(1));
        expect(detail.attempts[0]).toMatchObject({ attempt: 1, status_code: null, error: 'tls' });
        await disable(tenant.slug, url);
        await sleep(200);
        expect(requestsTo(path)).toHaveLength(0);
      } finally {
        await untrusting.close();
      }
    });

    it('counts a 4xx as an http_status failure and keeps the answer', async () => {
      const { tenant, url } = await tenantWithPath(() => ({
        status: 404,
        body: '{"error":"no such hook"}',
      }));
      await configure(tenant.slug, url, ['lead.created']);
      const eventId = await leadEvent(tenant);
      const detail = await waitForDetail(tenant.slug, eventId, attempts(1));
      expect(detail.attempts[0]).toMatchObject({
        attempt: 1,
        status_code: 404,
        error: 'http_status',
        response_body: '{"error":"no such hook"}',
      });
      await disable(tenant.slug, url);
    });

    it('keeps only the first 4096 bytes of a long answer', async () => {
      const long = 'x'.repeat(10000);
      const { tenant, url } = await tenantWithPath(() => ({ status: 500, body: long }));
      await configure(tenant.slug, url, ['lead.created']);
      const eventId = await leadEvent(tenant);
      const detail = await waitForDetail(tenant.slug, eventId, attempts(1));
      expect(detail.attempts[0].status_code).toBe(500);
      expect(detail.attempts[0].response_body).toBe(long.slice(0, 4096));
      await disable(tenant.slug, url);
    });

    it('keeps a multi-byte answer within 4096 bytes, as the start of what was sent', async () => {
      const long = '€'.repeat(3000); // 3 bytes each: 4096 falls inside a character
      const { tenant, url } = await tenantWithPath(() => ({ status: 500, body: long }));
      await configure(tenant.slug, url, ['lead.created']);
      const eventId = await leadEvent(tenant);
      const detail = await waitForDetail(tenant.slug, eventId, attempts(1));
      await disable(tenant.slug, url);
      const excerpt = detail.attempts[0].response_body!;
      expect(Buffer.byteLength(excerpt, 'utf8')).toBeLessThanOrEqual(4096);
      expect(long.startsWith(excerpt)).toBe(true);
      expect(excerpt.length).toBeGreaterThanOrEqual(1365);
    });
  });

  describe('per-endpoint cap and fairness (WEBHOOK_ENDPOINT_CONCURRENCY = 4)', () => {
    /** Tracks requests in flight on one path (the receiver answers after `delayMs`). */
    function slowPath(delayMs: number) {
      const state = { inFlight: 0, max: 0 };
      const script = () => {
        state.inFlight++;
        state.max = Math.max(state.max, state.inFlight);
        setTimeout(() => state.inFlight--, delayMs);
        return { status: 200, delayMs };
      };
      return { state, script };
    }

    /** `n` lead.created events committed in one transaction (one group job for the lot). */
    async function emitLeads(tenant: TestTenant, n: number): Promise<string[]> {
      const envelopes = await t.app.get(TransactionHost).transaction(() =>
        t.app.get(EventsService).emitMany(
          tenant.orgId,
          Array.from({ length: n }, (_, i) => ({
            type: 'lead.created' as const,
            payload: {
              lead_id: `lead_cap_${i}`,
              referrer_user_id: 'usr_cap',
              contact: { name: `Lead ${i}`, email: `cap${i}@example.org` },
              offer_id: null,
              metadata: {},
              source: 'api',
            },
          })),
        ),
      );
      return envelopes.map((e) => e.event_id);
    }

    const leased = async (tenantId: string) => {
      const [{ n }] = await t.db.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM webhook_endpoint_slots
          WHERE tenant_id = $1 AND locked_until > now()`,
        [tenantId],
      );
      return n;
    };

    it('never has more than 4 attempts in flight to one endpoint, however they were queued', async () => {
      const slow = slowPath(250);
      const { tenant, path, url } = await tenantWithPath(slow.script);
      await configure(tenant.slug, url, ['lead.created']);
      // 24 events in one transaction (a group job) and 6 more one by one (single jobs) at once.
      const grouped = await emitLeads(tenant, 24);
      const single = await Promise.all(Array.from({ length: 6 }, () => emitLeads(tenant, 1)));
      const all = [...grouped, ...single.flat()];
      await waitForRequests(path, all.length, 20_000);
      for (const id of all) await waitForDetail(tenant.slug, id, status('delivered'), 10_000);
      expect(slow.state.max).toBeGreaterThanOrEqual(2);
      expect(slow.state.max).toBeLessThanOrEqual(4);
      // Every delivery was sent once, and every slot lease was given back.
      const perEvent = new Map<string, number>();
      for (const r of requestsTo(path)) {
        const id = r.headers['x-service-event-id'] as string;
        perEvent.set(id, (perEvent.get(id) ?? 0) + 1);
      }
      expect(all.filter((id) => perEvent.get(id) !== 1)).toEqual([]);
      expect(await leased(tenant.orgId)).toBe(0);
    });

    it("does not let one tenant's slow receiver delay another tenant's deliveries", async () => {
      const slow = slowPath(TIMEOUT_MS - 200);
      const a = await tenantWithPath(slow.script);
      await configure(a.tenant.slug, a.url, ['lead.created']);
      const b = await tenantWithPath();
      await configure(b.tenant.slug, b.url, ['lead.created']);
      const backlog = await emitLeads(a.tenant, 40);
      await waitForRequests(a.path, 4);
      const started = Date.now();
      const [fast] = await emitLeads(b.tenant, 1);
      await waitForDetail(b.tenant.slug, fast, status('delivered'), 5_000);
      // Tenant A still has most of its backlog ahead (4 at a time, 600 ms each).
      expect(Date.now() - started).toBeLessThan(1_500);
      expect(slow.state.max).toBeLessThanOrEqual(4);
      await waitForRequests(a.path, backlog.length, 30_000);
      expect(slow.state.max).toBeLessThanOrEqual(4);
    }, 40_000);
    it('reports the queue depth, the outcomes and the attempt latency on /metrics', async () => {
      /** The value of one series (undefined when it is absent: every assertion then fails). */
      const metric = async (series: string) => {
        const text = (await t.http().get('/metrics')).text;
        const line = text.split('\n').find((l) => l.startsWith(`${series} `));
        return line === undefined ? undefined : Number(line.slice(series.length + 1));
      };
      const delivered = 'webhook_deliveries_total{outcome="delivered"}';
      const latencies = 'webhook_attempt_duration_seconds_count{error="none"}';
      // Absent until the first delivery of the process (another test may have made it).
      const deliveredBefore = (await metric(delivered)) ?? 0;
      const latenciesBefore = (await metric(latencies)) ?? 0;
      const slow = slowPath(400);
      const { tenant, path, url } = await tenantWithPath(slow.script);
      await configure(tenant.slug, url, ['lead.created']);
      const ids = await emitLeads(tenant, 12);
      await waitForRequests(path, 4);
      // 4 at a time, 400 ms each: most of the 12 are still waiting in Postgres and in the lane.
      expect(await metric('webhook_queue_depth{state="due"}')).toBeGreaterThanOrEqual(8);
      expect(await metric('webhook_lane_deliveries')).toBeGreaterThanOrEqual(8);
      // The Bull queue is read too (the series exists; the group job itself is taken already).
      expect(await metric('webhook_queue_jobs{state="waiting"}')).toBeGreaterThanOrEqual(0);
      for (const id of ids) await waitForDetail(tenant.slug, id, status('delivered'), 10_000);
      expect(await metric(delivered)).toBeGreaterThanOrEqual(deliveredBefore + 12);
      expect(await metric(latencies)).toBeGreaterThanOrEqual(latenciesBefore + 12);
    });
  });

  describe('endpoint changes take effect at once', () => {
    it('sends to a new URL and signs with a newly rotated secret on the very next attempt', async () => {
      const { tenant, path, url } = await tenantWithPath();
      const first = await configure(tenant.slug, url, ['lead.created']);
      await leadEvent(tenant);
      await waitForRequests(path, 1);

      // A PUT with another URL: the next delivery goes there, not to the old one.
      const movedPath = `${path}/moved`;
      await configure(tenant.slug, `${url}/moved`, ['lead.created']);
      await leadEvent(tenant);
      const [moved] = await waitForRequests(movedPath, 1);
      expect(requestsTo(path)).toHaveLength(1);
      expect(moved.headers['x-service-signature']).toBe(hmac(first, moved.body));

      // Two rotations in a row: the newest secret signs, the one before it is the previous.
      const rotate = async () =>
        (await t.http().post(`/admin/v1/tenants/${tenant.slug}/webhook/secret`).set(admin())).body
          .secret as string;
      const second = await rotate();
      const third = await rotate();
      await leadEvent(tenant);
      const [, next] = await waitForRequests(movedPath, 2);
      expect(next.headers['x-service-signature']).toBe(hmac(third, next.body));
      expect(next.headers['x-service-signature-previous']).toBe(hmac(second, next.body));
    });
  });

  describe('secret rotation', () => {
    it('signs with the new secret and, for receivers still switching, with the previous one', async () => {
      const { tenant, path, url } = await tenantWithPath();
      const first = await configure(tenant.slug, url, ['lead.created']);
      expect(first).toMatch(/^whsec_/);
      await leadEvent(tenant);
      const [before] = await waitForRequests(path, 1);
      expect(before.headers['x-service-signature']).toBe(hmac(first, before.body));
      expect(before.headers['x-service-signature-previous']).toBeUndefined();

      const rotated = await t
        .http()
        .post(`/admin/v1/tenants/${tenant.slug}/webhook/secret`)
        .set(admin());
      expect(rotated.status).toBe(200);
      expect(sorted(rotated.body)).toEqual(['secret']);
      const second = rotated.body.secret as string;
      expect(second).toMatch(/^whsec_[A-Za-z0-9_-]{32,}$/);
      expect(second).not.toBe(first);

      await leadEvent(tenant);
      const after = (await waitForRequests(path, 2))[1];
      const raw = after.body.toString('utf8');
      const ts = after.headers['x-service-timestamp'] as string;
      expect(after.headers['x-service-signature']).toBe(hmac(second, after.body));
      expect(after.headers['x-service-signature-previous']).toBe(hmac(first, after.body));
      expect(after.headers['x-service-signature-timestamped']).toBe(hmac(second, `${ts}.${raw}`));

      // Updating the endpoint neither shows nor changes the secret.
      const update = await t
        .http()
        .put(`/admin/v1/tenants/${tenant.slug}/webhook`)
        .set(admin())
        .send({ url, events: ['lead.created', 'bonus.approved'] });
      expect(update.status).toBe(200);
      expect(update.body.secret).toBeUndefined();
      expect(JSON.stringify(update.body)).not.toContain(second);
      expect(update.body).toMatchObject({
        url,
        events: ['lead.created', 'bonus.approved'],
        enabled: true,
      });

      await leadEvent(tenant);
      const third = (await waitForRequests(path, 3))[2];
      expect(third.headers['x-service-signature']).toBe(hmac(second, third.body));
      expect(third.headers['x-service-signature-previous']).toBe(hmac(first, third.body));
    });
  });

  describe('Standard Webhooks headers', () => {
    it('a real delivery verifies with the standardwebhooks package, before and during a rotation', async () => {
      const { tenant, path, url } = await tenantWithPath();
      const first = await configure(tenant.slug, url, ['lead.created']);
      const eventId = await leadEvent(tenant);
      const [req] = await waitForRequests(path, 1);
      const h = req.headers as Record<string, string>;
      // Beside the X-Service-* headers, which are unchanged.
      expect(h['x-service-signature']).toBe(hmac(first, req.body));
      expect(h['webhook-id']).toBe(eventId);
      expect(h['webhook-id']).toBe(h['x-service-event-id']);
      expect(h['webhook-timestamp']).toBe(h['x-service-timestamp']);
      expect(h['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      // The official library, given the endpoint's secret as raw bytes, accepts the request as sent
      // and parses the body; another secret or one changed byte is refused.
      const verified = new Webhook(first, { format: 'raw' }).verify(req.body.toString('utf8'), h);
      expect(verified).toEqual(JSON.parse(req.body.toString('utf8')));
      expect(() =>
        new Webhook(`${first}x`, { format: 'raw' }).verify(req.body.toString(), h),
      ).toThrow('No matching signature found');
      const tampered = req.body.toString('utf8').replace('lead.created', 'lead.Created');
      expect(() => new Webhook(first, { format: 'raw' }).verify(tampered, h)).toThrow();
      // The example receiver accepts it both ways (SIGNATURE_SCHEME=standard and the default).
      expect(example.verifyStandard(req.body, req.headers, [first], Date.now())).toBe(true);
      expect(example.verifyBody(req.body, req.headers, [first])).toBe(true);
      expect(example.verifyStandard(req.body, req.headers, ['whsec_x'], Date.now())).toBe(false);

      // During the 24 h after a rotation a second v1 signature, with the previous secret, follows.
      const rotated = await t
        .http()
        .post(`/admin/v1/tenants/${tenant.slug}/webhook/secret`)
        .set(admin());
      expect(rotated.status).toBe(200);
      const second = rotated.body.secret as string;
      await leadEvent(tenant);
      const after = (await waitForRequests(path, 2))[1];
      const ah = after.headers as Record<string, string>;
      const body = after.body.toString('utf8');
      expect(ah['webhook-signature'].split(' ')).toHaveLength(2);
      expect(ah['webhook-signature']).toMatch(/^v1,\S{44} v1,\S{44}$/);
      expect(new Webhook(second, { format: 'raw' }).verify(body, ah)).toEqual(JSON.parse(body));
      expect(new Webhook(first, { format: 'raw' }).verify(body, ah)).toEqual(JSON.parse(body));
      expect(example.verifyStandard(after.body, after.headers, [first], Date.now())).toBe(true);
      expect(example.verifyStandard(after.body, after.headers, [second], Date.now())).toBe(true);
      expect(ah['x-service-signature']).toBe(hmac(second, after.body));
      expect(ah['x-service-signature-previous']).toBe(hmac(first, after.body));
    });
  });

  describe('POST …/webhook/test', () => {
    it('sends one webhook.test event at once, whatever the selection', async () => {
      const { tenant, path, url } = await tenantWithPath();
      const secret = await configure(tenant.slug, url, ['bonus.approved']);
      const res = await t.http().post(`/admin/v1/tenants/${tenant.slug}/webhook/test`).set(admin());
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        event_id: expect.stringMatching(EVENT_ID),
        delivered: true,
        status_code: 200,
      });
      // Sent before the answer, not by a worker later.
      const received = requestsTo(path);
      expect(received).toHaveLength(1);
      const [req] = received;
      const envelope = JSON.parse(req.body.toString('utf8')) as Envelope;
      expect(sorted(envelope)).toEqual(['event_id', 'event_type', 'occurred_at', 'payload']);
      expect(envelope).toMatchObject({ event_type: 'webhook.test', event_id: res.body.event_id });
      expect(sorted(envelope.payload)).toEqual(['message']);
      expect(typeof envelope.payload.message).toBe('string');
      expect(req.headers['x-service-event-type']).toBe('webhook.test');
      expect(req.headers['x-service-event-id']).toBe(res.body.event_id);
      expect(req.headers['x-service-signature']).toBe(hmac(secret, req.body));
    });

    it('reports a failing receiver and does not retry the test event', async () => {
      const { tenant, path, url } = await tenantWithPath(() => ({ status: 500 }));
      await configure(tenant.slug, url, ['lead.created']);
      const res = await t.http().post(`/admin/v1/tenants/${tenant.slug}/webhook/test`).set(admin());
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        event_id: expect.stringMatching(EVENT_ID),
        delivered: false,
        status_code: 500,
      });
      await sleep(RETRY_MS * 6);
      expect(requestsTo(path)).toHaveLength(1);
      const detail = await detailOf(tenant.slug, res.body.event_id as string);
      expect(detail.attempts).toHaveLength(1);
      expect(detail.status).not.toBe('pending');
    });
  });
});
