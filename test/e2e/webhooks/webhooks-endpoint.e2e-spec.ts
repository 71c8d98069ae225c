/**
 * A webhook endpoint's delivery limits and settings: the per-endpoint cap and fairness, changes
 * and secret rotations taking effect at once, Standard Webhooks headers and the test event.
 * Setup: webhooks-suite.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { seal } from '../../../src/common/crypto/secret-box';
import { AppConfig } from '../../../src/config/app-config';
import { TransactionHost } from '../../../src/database/transaction-host';
import { EventsService } from '../../../src/outbox/events.service';
import { type TestTenant } from '../../factories/tenants.factory';
import {
  webhooksSuite,
  RETRY_MS,
  TIMEOUT_MS,
  type Envelope,
  example,
  EVENT_ID,
  sleep,
  hmac,
  sorted,
} from '../../utils/webhooks-suite';

describe('webhooks: endpoint cap, settings and secrets', () => {
  const w = webhooksSuite();

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
      const envelopes = await w.t.app.get(TransactionHost).transaction(() =>
        w.t.app.get(EventsService).emitMany(
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
      const [{ n }] = await w.t.db.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM webhook_endpoint_slots
          WHERE tenant_id = $1 AND locked_until > now()`,
        [tenantId],
      );
      return n;
    };

    it('never has more than 4 attempts in flight to one endpoint, however they were queued', async () => {
      const slow = slowPath(250);
      const { tenant, path, url } = await w.tenantWithPath(slow.script);
      await w.configure(tenant.slug, url, ['lead.created']);
      // 24 events in one transaction (a group job) and 6 more one by one (single jobs) at once.
      const grouped = await emitLeads(tenant, 24);
      const single = await Promise.all(Array.from({ length: 6 }, () => emitLeads(tenant, 1)));
      const all = [...grouped, ...single.flat()];
      await w.waitForRequests(path, all.length, 20_000);
      for (const id of all) await w.waitForDetail(tenant.slug, id, w.status('delivered'), 10_000);
      expect(slow.state.max).toBeGreaterThanOrEqual(2);
      expect(slow.state.max).toBeLessThanOrEqual(4);
      // Every delivery was sent once, and every slot lease was given back.
      const perEvent = new Map<string, number>();
      for (const r of w.requestsTo(path)) {
        const id = r.headers['x-service-event-id'] as string;
        perEvent.set(id, (perEvent.get(id) ?? 0) + 1);
      }
      expect(all.filter((id) => perEvent.get(id) !== 1)).toEqual([]);
      expect(await leased(tenant.orgId)).toBe(0);
    });

    it("does not let one tenant's slow receiver delay another tenant's deliveries", async () => {
      const slow = slowPath(TIMEOUT_MS - 200);
      const a = await w.tenantWithPath(slow.script);
      await w.configure(a.tenant.slug, a.url, ['lead.created']);
      const b = await w.tenantWithPath();
      await w.configure(b.tenant.slug, b.url, ['lead.created']);
      const backlog = await emitLeads(a.tenant, 40);
      await w.waitForRequests(a.path, 4);
      const started = Date.now();
      const [fast] = await emitLeads(b.tenant, 1);
      await w.waitForDetail(b.tenant.slug, fast, w.status('delivered'), 5_000);
      // Tenant A still has most of its backlog ahead (4 at a time, 600 ms each).
      expect(Date.now() - started).toBeLessThan(1_500);
      expect(slow.state.max).toBeLessThanOrEqual(4);
      await w.waitForRequests(a.path, backlog.length, 30_000);
      expect(slow.state.max).toBeLessThanOrEqual(4);
    }, 40_000);
    it('reports the queue depth, the outcomes and the attempt latency on /metrics', async () => {
      /** The value of one series (undefined when it is absent: every assertion then fails). */
      const metric = async (series: string) => {
        const text = (await w.t.http().get('/metrics')).text;
        const line = text.split('\n').find((l) => l.startsWith(`${series} `));
        return line === undefined ? undefined : Number(line.slice(series.length + 1));
      };
      const delivered = 'webhook_deliveries_total{outcome="delivered"}';
      const latencies = 'webhook_attempt_duration_seconds_count{error="none"}';
      // Absent until the first delivery of the process (another test may have made it).
      const deliveredBefore = (await metric(delivered)) ?? 0;
      const latenciesBefore = (await metric(latencies)) ?? 0;
      const slow = slowPath(400);
      const { tenant, path, url } = await w.tenantWithPath(slow.script);
      await w.configure(tenant.slug, url, ['lead.created']);
      const ids = await emitLeads(tenant, 12);
      await w.waitForRequests(path, 4);
      // 4 at a time, 400 ms each: most of the 12 are still waiting in Postgres and in the lane.
      expect(await metric('webhook_queue_depth{state="due"}')).toBeGreaterThanOrEqual(8);
      expect(await metric('webhook_lane_deliveries')).toBeGreaterThanOrEqual(8);
      // The Bull queue is read too (the series exists; the group job itself is taken already).
      expect(await metric('webhook_queue_jobs{state="waiting"}')).toBeGreaterThanOrEqual(0);
      for (const id of ids) await w.waitForDetail(tenant.slug, id, w.status('delivered'), 10_000);
      expect(await metric(delivered)).toBeGreaterThanOrEqual(deliveredBefore + 12);
      expect(await metric(latencies)).toBeGreaterThanOrEqual(latenciesBefore + 12);
    });
  });

  describe('endpoint changes take effect at once', () => {
    it('sends to a new URL and signs with a newly rotated secret on the very next attempt', async () => {
      const { tenant, path, url } = await w.tenantWithPath();
      const first = await w.configure(tenant.slug, url, ['lead.created']);
      await w.leadEvent(tenant);
      await w.waitForRequests(path, 1);

      // A PUT with another URL: the next delivery goes there, not to the old one.
      const movedPath = `${path}/moved`;
      await w.configure(tenant.slug, `${url}/moved`, ['lead.created']);
      await w.leadEvent(tenant);
      const [moved] = await w.waitForRequests(movedPath, 1);
      expect(w.requestsTo(path)).toHaveLength(1);
      expect(moved.headers['x-service-signature']).toBe(hmac(first, moved.body));

      // Two rotations in a row: the newest secret signs, the one before it is the previous.
      const rotate = async () => (await w.admin().rotateWebhookSecret(tenant.slug)).body.secret;
      const second = await rotate();
      const third = await rotate();
      await w.leadEvent(tenant);
      const [, next] = await w.waitForRequests(movedPath, 2);
      expect(next.headers['x-service-signature']).toBe(hmac(third, next.body));
      expect(next.headers['x-service-signature-previous']).toBe(hmac(second, next.body));
    });
  });

  describe('secret rotation', () => {
    it('signs with the new secret and, for receivers still switching, with the previous one', async () => {
      const { tenant, path, url } = await w.tenantWithPath();
      const first = await w.configure(tenant.slug, url, ['lead.created']);
      expect(first).toMatch(/^whsec_/);
      await w.leadEvent(tenant);
      const [before] = await w.waitForRequests(path, 1);
      expect(before.headers['x-service-signature']).toBe(hmac(first, before.body));
      expect(before.headers['x-service-signature-previous']).toBeUndefined();

      const rotated = await w.admin().rotateWebhookSecret(tenant.slug);
      expect(rotated.status).toBe(200);
      expect(sorted(rotated.body)).toEqual(['secret']);
      const second = rotated.body.secret;
      expect(second).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(second).not.toBe(first);

      await w.leadEvent(tenant);
      const after = (await w.waitForRequests(path, 2))[1];
      const raw = after.body.toString('utf8');
      const ts = after.headers['x-service-timestamp'] as string;
      expect(after.headers['x-service-signature']).toBe(hmac(second, after.body));
      expect(after.headers['x-service-signature-previous']).toBe(hmac(first, after.body));
      expect(after.headers['x-service-signature-timestamped']).toBe(hmac(second, `${ts}.${raw}`));

      // Updating the endpoint neither shows nor changes the secret.
      const update = await w
        .admin()
        .putWebhook(tenant.slug, { url, events: ['lead.created', 'bonus.approved'] });
      expect(update.status).toBe(200);
      expect(update.body.secret).toBeUndefined();
      expect(JSON.stringify(update.body)).not.toContain(second);
      expect(update.body).toMatchObject({
        url,
        events: ['lead.created', 'bonus.approved'],
        enabled: true,
      });

      await w.leadEvent(tenant);
      const third = (await w.waitForRequests(path, 3))[2];
      expect(third.headers['x-service-signature']).toBe(hmac(second, third.body));
      expect(third.headers['x-service-signature-previous']).toBe(hmac(first, third.body));
    });
  });

  describe('Standard Webhooks headers', () => {
    /** The form a Standard Webhooks library takes by default: whsec_ + base64 of the key bytes. */
    const STANDARD_SECRET =
      /^whsec_(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

    it('a real delivery verifies with new Webhook(secret), no options, and X-Service-Signature per the spec', async () => {
      const { tenant, path, url } = await w.tenantWithPath();
      const first = await w.configure(tenant.slug, url, ['lead.created']);
      expect(first).toMatch(STANDARD_SECRET);
      expect(Buffer.from(first.slice('whsec_'.length), 'base64')).toHaveLength(32);
      const eventId = await w.leadEvent(tenant);
      const [req] = await w.waitForRequests(path, 1);
      const h = req.headers as Record<string, string>;
      // The seed's header: lowercase hex HMAC-SHA256 of the raw body, keyed with the secret
      // (the whole whsec_… string, as issued, UTF-8).
      expect(h['x-service-signature']).toBe(hmac(first, req.body));
      expect(h['webhook-id']).toBe(eventId);
      expect(h['webhook-id']).toBe(h['x-service-event-id']);
      expect(h['webhook-timestamp']).toBe(h['x-service-timestamp']);
      expect(h['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      // The official library, default constructor, given the secret exactly as the API issued
      // it, accepts the request as sent and parses the body; another secret or one changed byte
      // is refused.
      const verified = new Webhook(first).verify(req.body.toString('utf8'), h);
      expect(verified).toEqual(JSON.parse(req.body.toString('utf8')));
      const other = `whsec_${randomBytes(32).toString('base64')}`;
      expect(() => new Webhook(other).verify(req.body.toString(), h)).toThrow(
        'No matching signature found',
      );
      const tampered = req.body.toString('utf8').replace('lead.created', 'lead.Created');
      expect(() => new Webhook(first).verify(tampered, h)).toThrow();
      // The example receiver accepts it both ways (SIGNATURE_SCHEME=standard and the default).
      expect(example.verifyStandard(req.body, req.headers, [first], Date.now())).toBe(true);
      expect(example.verifyBody(req.body, req.headers, [first])).toBe(true);
      expect(example.verifyStandard(req.body, req.headers, [other], Date.now())).toBe(false);

      // During the 24 h after a rotation a second v1 signature, with the previous secret, follows.
      const rotated = await w.admin().rotateWebhookSecret(tenant.slug);
      expect(rotated.status).toBe(200);
      const second = rotated.body.secret;
      expect(second).toMatch(STANDARD_SECRET);
      await w.leadEvent(tenant);
      const after = (await w.waitForRequests(path, 2))[1];
      const ah = after.headers as Record<string, string>;
      const body = after.body.toString('utf8');
      expect(ah['webhook-signature'].split(' ')).toHaveLength(2);
      expect(ah['webhook-signature']).toMatch(/^v1,\S{44} v1,\S{44}$/);
      expect(new Webhook(second).verify(body, ah)).toEqual(JSON.parse(body));
      expect(new Webhook(first).verify(body, ah)).toEqual(JSON.parse(body));
      expect(example.verifyStandard(after.body, after.headers, [first], Date.now())).toBe(true);
      expect(example.verifyStandard(after.body, after.headers, [second], Date.now())).toBe(true);
      expect(ah['x-service-signature']).toBe(hmac(second, after.body));
      expect(ah['x-service-signature-previous']).toBe(hmac(first, after.body));
    });

    it('an endpoint whose secret predates the Standard Webhooks form keeps verifying, through its rotation', async () => {
      const { tenant, path, url } = await w.tenantWithPath();
      await w.configure(tenant.slug, url, ['lead.created']);
      // The row as an earlier version left it: a secret made as `whsec_` + base64url of 32
      // random bytes, stored sealed, which receivers hold and check in one of the two ways the
      // documentation then gave (X-Service-Signature, or a library with format 'raw').
      const legacy = `whsec_${randomBytes(32).toString('base64url')}`;
      await w.t.db.query(`UPDATE webhook_endpoints SET secret_sealed = $2 WHERE tenant_id = $1`, [
        tenant.orgId,
        seal(legacy, w.t.app.get(AppConfig).secretsEncryptionKey),
      ]);
      const legacyForm = `whsec_${Buffer.from(legacy, 'utf8').toString('base64')}`;

      const eventId = await w.leadEvent(tenant);
      const [req] = await w.waitForRequests(path, 1);
      const h = req.headers as Record<string, string>;
      const raw = req.body.toString('utf8');
      expect(h['x-service-signature']).toBe(hmac(legacy, req.body));
      // webhook-signature: the very bytes the earlier version sent (key = the string's UTF-8).
      const mac = createHmac('sha256', Buffer.from(legacy, 'utf8'))
        .update(`${eventId}.${h['webhook-timestamp']}.${raw}`)
        .digest('base64');
      expect(h['webhook-signature']).toBe(`v1,${mac}`);
      expect(new Webhook(legacy, { format: 'raw' }).verify(raw, h)).toEqual(JSON.parse(raw));
      // …and, with its documented whsec_ form, the default constructor verifies it too.
      expect(new Webhook(legacyForm).verify(raw, h)).toEqual(JSON.parse(raw));
      expect(example.verifyBody(req.body, req.headers, [legacy])).toBe(true);
      expect(example.verifyStandard(req.body, req.headers, [legacy], Date.now())).toBe(true);

      // Rotating gives a Standard Webhooks secret; for 24 h the legacy one still signs beside it,
      // each with its own key, so a receiver on either verifies every delivery.
      const rotated = await w.admin().rotateWebhookSecret(tenant.slug);
      expect(rotated.status).toBe(200);
      const next = rotated.body.secret;
      expect(next).toMatch(STANDARD_SECRET);
      await w.leadEvent(tenant);
      const after = (await w.waitForRequests(path, 2))[1];
      const ah = after.headers as Record<string, string>;
      const body = after.body.toString('utf8');
      expect(ah['x-service-signature']).toBe(hmac(next, after.body));
      expect(ah['x-service-signature-previous']).toBe(hmac(legacy, after.body));
      expect(new Webhook(next).verify(body, ah)).toEqual(JSON.parse(body));
      expect(new Webhook(legacy, { format: 'raw' }).verify(body, ah)).toEqual(JSON.parse(body));
      expect(new Webhook(legacyForm).verify(body, ah)).toEqual(JSON.parse(body));
      expect(example.verifyBody(after.body, after.headers, [legacy])).toBe(true);
      expect(example.verifyStandard(after.body, after.headers, [legacy], Date.now())).toBe(true);
      expect(example.verifyStandard(after.body, after.headers, [next], Date.now())).toBe(true);
    });
  });

  describe('POST …/webhook/test', () => {
    it('sends one webhook.test event at once, whatever the selection', async () => {
      const { tenant, path, url } = await w.tenantWithPath();
      const secret = await w.configure(tenant.slug, url, ['bonus.approved']);
      const res = await w.admin().testWebhook(tenant.slug);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        event_id: expect.stringMatching(EVENT_ID),
        delivered: true,
        status_code: 200,
      });
      // Sent before the answer, not by a worker later.
      const received = w.requestsTo(path);
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
      const { tenant, path, url } = await w.tenantWithPath(() => ({ status: 500 }));
      await w.configure(tenant.slug, url, ['lead.created']);
      const res = await w.admin().testWebhook(tenant.slug);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        event_id: expect.stringMatching(EVENT_ID),
        delivered: false,
        status_code: 500,
      });
      await sleep(RETRY_MS * 6);
      expect(w.requestsTo(path)).toHaveLength(1);
      const detail = await w.detailOf(tenant.slug, res.body.event_id);
      expect(detail.attempts).toHaveLength(1);
      expect(detail.status).not.toBe('pending');
    });
  });
});
