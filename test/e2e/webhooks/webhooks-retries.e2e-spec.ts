/**
 * Webhook retries, dead letters and replays, and how each failure class shows in the attempt log
 * (redirect, timeout, refused connection, TLS, 4xx, long answers). Setup: webhooks-suite.
 */
import { createServer } from 'node:net';
import { createTestApp } from '../../utils/create-test-app';
import { newRunId } from '../../utils/test-env';
import {
  webhooksSuite,
  RETRY_MS,
  TIMEOUT_MS,
  ISO_MS,
  sleep,
  hmac,
} from '../../utils/webhooks-suite';

describe('webhooks: retries and failures', () => {
  const w = webhooksSuite();

  describe('retries, dead letters and replays', () => {
    it('retries 500, 500 and delivers on attempt 3 with the same event id and bytes', async () => {
      const { tenant, path, url } = await w.tenantWithPath((k) => ({ status: k < 2 ? 500 : 200 }));
      const secret = await w.configure(tenant.slug, url, ['lead.created']);
      const eventId = await w.leadEvent(tenant);

      const received = await w.waitForRequests(path, 3);
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

      const detail = await w.waitForDetail(tenant.slug, eventId, w.status('delivered'));
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
      expect(w.requestsTo(path)).toHaveLength(3);

      const list = await w.admin().webhookEvents(tenant.slug, { status: 'delivered' });
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
      const { tenant, path, url } = await w.tenantWithPath(() => ({ status: answer }));
      const secret = await w.configure(tenant.slug, url, ['lead.created']);
      const eventId = await w.leadEvent(tenant);

      // Still being retried: a replay is refused.
      await w.waitForRequests(path, 1);
      const early = await w.admin().replayWebhookEvent(tenant.slug, eventId);
      expect(early.status).toBe(409);
      expect(early.body.code).toBe('conflict');

      const dead = await w.waitForDetail(tenant.slug, eventId, w.status('dead'));
      await sleep(RETRY_MS * 3);
      expect(w.requestsTo(path)).toHaveLength(6);
      expect(w.requestsTo(path).map((r) => r.headers['x-service-delivery-attempt'])).toEqual([
        '1',
        '2',
        '3',
        '4',
        '5',
        '6',
      ]);
      expect(dead.attempts.map((a) => a.status_code)).toEqual([500, 500, 500, 500, 500, 500]);
      expect((await w.detailOf(tenant.slug, eventId)).attempts).toHaveLength(6);

      const deadList = await w.admin().webhookEvents(tenant.slug, { status: 'dead' });
      expect(deadList.status).toBe(200);
      expect(deadList.body.items).toEqual([
        expect.objectContaining({
          event_id: eventId,
          status: 'dead',
          attempts: 6,
          last_status_code: 500,
        }),
      ]);
      const pendingList = await w.admin().webhookEvents(tenant.slug, { status: 'pending' });
      expect(pendingList.body.items).toEqual([]);

      const audit = await w.admin().auditLog(tenant.slug, { page_size: 100 });
      expect(audit.status).toBe(200);
      const entries = (audit.body.items as { action: string; target_id: string }[]).filter(
        (e) => e.action === 'webhook.dead_lettered',
      );
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ action: 'webhook.dead_lettered', target_id: eventId });

      // The receiver is fixed; the replay is one fresh attempt with the same id and body.
      answer = 200;
      const replay = await w.admin().replayWebhookEvent(tenant.slug, eventId);
      expect(replay.status).toBe(202);
      const all = await w.waitForRequests(path, 7);
      const last = all[6];
      expect(last.headers['x-service-delivery-attempt']).toBe('7');
      expect(last.headers['x-service-event-id']).toBe(eventId);
      expect(last.body.equals(all[0].body)).toBe(true);
      expect(last.headers['x-service-signature']).toBe(hmac(secret, last.body));

      const delivered = await w.waitForDetail(tenant.slug, eventId, w.status('delivered'));
      expect(delivered.attempts).toHaveLength(7);
      expect(delivered.attempts[6]).toMatchObject({
        attempt: 7,
        status_code: 200,
        error: null,
        replay: true,
      });
      await sleep(RETRY_MS * 2);
      expect(w.requestsTo(path)).toHaveLength(7);
    });

    it('leaves a delivery dead when its replay fails', async () => {
      const { tenant, path, url } = await w.tenantWithPath(() => ({ status: 503 }));
      await w.configure(tenant.slug, url, ['lead.created']);
      const eventId = await w.leadEvent(tenant);
      await w.waitForDetail(tenant.slug, eventId, w.status('dead'));

      const replay = await w.admin().replayWebhookEvent(tenant.slug, eventId);
      expect(replay.status).toBe(202);
      const detail = await w.waitForDetail(tenant.slug, eventId, w.attempts(7));
      expect(detail.status).toBe('dead');
      expect(detail.attempts[6]).toMatchObject({
        attempt: 7,
        status_code: 503,
        error: 'http_status',
        replay: true,
      });
      await sleep(RETRY_MS * 3);
      expect(w.requestsTo(path)).toHaveLength(7);
      expect((await w.detailOf(tenant.slug, eventId)).status).toBe('dead');
    });

    it('keeps a replay while another worker holds every slot of the endpoint, and sends it once one is free', async () => {
      const { tenant, path, url } = await w.tenantWithPath();
      await w.configure(tenant.slug, url, ['lead.created']);
      const eventId = await w.leadEvent(tenant);
      await w.waitForDetail(tenant.slug, eventId, w.status('delivered'));

      // Another worker's lanes lease all the endpoint's slots for a while.
      await w.t.db.query(
        `UPDATE webhook_endpoint_slots
            SET holder = 'another-worker', locked_until = now() + interval '3 seconds'
          WHERE tenant_id = $1`,
        [tenant.orgId],
      );
      const replay = await w.admin().replayWebhookEvent(tenant.slug, eventId);
      expect(replay.status).toBe(202);
      await sleep(1000);
      expect(w.requestsTo(path)).toHaveLength(1);

      // The replay was put off, not dropped: it goes out once the leases lapse.
      const detail = await w.waitForDetail(tenant.slug, eventId, w.attempts(2), 15000);
      expect(detail.status).toBe('delivered');
      expect(detail.attempts[1]).toMatchObject({ attempt: 2, status_code: 200, replay: true });
      expect(w.requestsTo(path)).toHaveLength(2);
      expect(w.requestsTo(path)[1].headers['x-service-event-id']).toBe(eventId);
    });
  });

  describe('failure classes in the attempt log', () => {
    it('counts a redirect as a failure and never follows it', async () => {
      const { tenant, path, url } = await w.tenantWithPath();
      const elsewhere = `${path}-elsewhere`;
      w.routes.set(path, () => ({
        status: 302,
        headers: { Location: `https://localhost:${w.receiver.port}${elsewhere}` },
        body: '',
      }));
      await w.configure(tenant.slug, url, ['lead.created']);
      const eventId = await w.leadEvent(tenant);
      const detail = await w.waitForDetail(tenant.slug, eventId, w.attempts(2));
      expect(detail.status).not.toBe('delivered');
      expect(detail.attempts[0]).toMatchObject({ attempt: 1, status_code: 302, error: 'redirect' });
      await w.disable(tenant.slug, url);
      await sleep(300);
      expect(w.requestsTo(elsewhere)).toHaveLength(0);
    });

    it('shows an attempt in the log as in flight from before its request until its outcome', async () => {
      const { tenant, path, url } = await w.tenantWithPath(() => 'hang');
      await w.configure(tenant.slug, url, ['lead.created']);
      const eventId = await w.leadEvent(tenant);
      // The receiver holds the request open (until the service's timeout, TIMEOUT_MS): the
      // attempt was written to the log before the request was sent.
      await w.waitForRequests(path, 1);
      const during = await w.detailOf(tenant.slug, eventId);
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
      const after = await w.waitForDetail(tenant.slug, eventId, w.attempts(1));
      expect(after.attempts[0]).toMatchObject({
        attempt: 1,
        state: 'completed',
        status_code: null,
        error: 'timeout',
      });
      expect(after.attempts[0].duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      await w.disable(tenant.slug, url);
    });

    it('counts a receiver that does not answer within WEBHOOK_TIMEOUT_MS as a timeout', async () => {
      const { tenant, url } = await w.tenantWithPath(() => 'hang');
      await w.configure(tenant.slug, url, ['lead.created']);
      const eventId = await w.leadEvent(tenant);
      const detail = await w.waitForDetail(tenant.slug, eventId, w.attempts(1));
      expect(detail.status).toBe('pending');
      expect(detail.attempts[0]).toMatchObject({ attempt: 1, status_code: null, error: 'timeout' });
      expect(detail.attempts[0].duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(detail.attempts[0].duration_ms).toBeLessThan(TIMEOUT_MS + 2000);
      await w.disable(tenant.slug, url);
    });

    it('counts a refused connection', async () => {
      const port = await new Promise<number>((resolve) => {
        const server = createServer();
        server.listen(0, '127.0.0.1', () => {
          const { port: free } = server.address() as { port: number };
          server.close(() => resolve(free));
        });
      });
      const { tenant } = await w.tenantWithPath();
      const url = `https://127.0.0.1:${port}/closed`;
      await w.configure(tenant.slug, url, ['lead.created']);
      const eventId = await w.leadEvent(tenant);
      const detail = await w.waitForDetail(tenant.slug, eventId, w.attempts(1));
      expect(detail.attempts[0]).toMatchObject({
        attempt: 1,
        status_code: null,
        error: 'connection_refused',
      });
      await w.disable(tenant.slug, url);
    });

    it('counts an untrusted certificate as a TLS failure (an app without WEBHOOK_CA_FILE)', async () => {
      // Only for this test: its sweeper shares the database, so it would pick up (and fail) the
      // other tests' due deliveries and replays.
      const untrusting = await createTestApp({
        ...w.common,
        QUEUE_PREFIX: `whe2e_notls_${newRunId()}`,
      });
      try {
        const { tenant, path, url } = await w.tenantWithPath();
        await w.configure(tenant.slug, url, ['lead.created']);
        // The lead is registered through the untrusting app, so its worker makes the attempts.
        const eventId = await w.leadEvent(tenant, untrusting);
        const detail = await w.waitForDetail(tenant.slug, eventId, w.attempts(1));
        expect(detail.attempts[0]).toMatchObject({ attempt: 1, status_code: null, error: 'tls' });
        await w.disable(tenant.slug, url);
        await sleep(200);
        expect(w.requestsTo(path)).toHaveLength(0);
      } finally {
        await untrusting.close();
      }
    });

    it('counts a 4xx as an http_status failure and keeps the answer', async () => {
      const { tenant, url } = await w.tenantWithPath(() => ({
        status: 404,
        body: '{"error":"no such hook"}',
      }));
      await w.configure(tenant.slug, url, ['lead.created']);
      const eventId = await w.leadEvent(tenant);
      const detail = await w.waitForDetail(tenant.slug, eventId, w.attempts(1));
      expect(detail.attempts[0]).toMatchObject({
        attempt: 1,
        status_code: 404,
        error: 'http_status',
        response_body: '{"error":"no such hook"}',
      });
      await w.disable(tenant.slug, url);
    });

    it('keeps only the first 4096 bytes of a long answer', async () => {
      const long = 'x'.repeat(10000);
      const { tenant, url } = await w.tenantWithPath(() => ({ status: 500, body: long }));
      await w.configure(tenant.slug, url, ['lead.created']);
      const eventId = await w.leadEvent(tenant);
      const detail = await w.waitForDetail(tenant.slug, eventId, w.attempts(1));
      expect(detail.attempts[0].status_code).toBe(500);
      expect(detail.attempts[0].response_body).toBe(long.slice(0, 4096));
      await w.disable(tenant.slug, url);
    });

    it('keeps a multi-byte answer within 4096 bytes, as the start of what was sent', async () => {
      const long = '€'.repeat(3000); // 3 bytes each: 4096 falls inside a character
      const { tenant, url } = await w.tenantWithPath(() => ({ status: 500, body: long }));
      await w.configure(tenant.slug, url, ['lead.created']);
      const eventId = await w.leadEvent(tenant);
      const detail = await w.waitForDetail(tenant.slug, eventId, w.attempts(1));
      await w.disable(tenant.slug, url);
      const excerpt = detail.attempts[0].response_body!;
      expect(Buffer.byteLength(excerpt, 'utf8')).toBeLessThanOrEqual(4096);
      expect(long.startsWith(excerpt)).toBe(true);
      expect(excerpt.length).toBeGreaterThanOrEqual(1365);
    });
  });
});
