import type { Test } from 'supertest';
import { createLead, eventsOf } from '../../factories/money.factory';
import { createStaffToken, createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { HttpsReceiver, startHttpsReceiver } from '../../utils/https-receiver';
import { newRunId } from '../../utils/test-env';

/**
 * The webhook admin API: validation, roles, tenant isolation, secret storage and the SSRF guard,
 * both when a URL is set and when a delivery connects.
 */
const RETRY_MS = 100;
const EVENT_ID = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Attempt {
  attempt: number;
  status_code: number | null;
  error: string | null;
}

describe('webhooks: admin API', () => {
  /** Private targets allowed (the self-signed receiver is on loopback). */
  let open: TestApp;
  /** The SSRF guard on, as in production; same database, its own queue and worker. */
  let guarded: TestApp;
  let receiver: HttpsReceiver;
  const tenants: TestTenant[] = [];

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    const common = {
      WEBHOOK_CA_FILE: receiver.caFile,
      WEBHOOK_RETRY_DELAYS_MS: Array(5).fill(RETRY_MS).join(','),
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_SWEEP_MS: '1000',
    };
    open = await createTestApp({
      ...common,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      QUEUE_PREFIX: `whadm_${newRunId()}`,
    });
    guarded = await createTestApp({ ...common, QUEUE_PREFIX: `whadm_guard_${newRunId()}` });
  });

  afterAll(async () => {
    const ids = tenants.map((x) => x.orgId);
    for (let i = 0; i < 80 && ids.length && open; i++) {
      const [{ count }]: { count: number }[] = await open.db.query(
        `SELECT count(*)::int AS count FROM webhook_deliveries
          WHERE tenant_id = ANY($1) AND status = 'pending'`,
        [ids],
      );
      if (!count) break;
      await sleep(100);
    }
    await guarded?.close();
    await open?.close();
    await receiver?.close();
  });

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const platform = () => bearer(open.adminToken);
  const base = (slug: string) => `/admin/v1/tenants/${slug}/webhook`;
  const urlFor = (tenant: TestTenant) => `https://localhost:${receiver.port}/hook/${tenant.slug}`;
  const requestsTo = (tenant: TestTenant) =>
    receiver.requests.filter((r) => r.path === `/hook/${tenant.slug}`);

  async function newTenant(): Promise<TestTenant> {
    const tenant = await createTenant(open);
    tenants.push(tenant);
    return tenant;
  }

  async function configure(tenant: TestTenant, events = ['lead.created']): Promise<string> {
    const res = await open
      .http()
      .put(base(tenant.slug))
      .set(platform())
      .send({ url: urlFor(tenant), events });
    expect(res.status).toBe(200);
    return res.body.secret as string;
  }

  /** Registers a lead through `app` and returns its lead.created event id. */
  async function leadEvent(tenant: TestTenant, app = open): Promise<string> {
    const referrer = await upsertUser(app, tenant.key);
    const leadId = await createLead(app, tenant.key, referrer.serviceUserId);
    return (await eventsOf(app, tenant.orgId, 'lead.created')).find(
      (e) => e.payload.lead_id === leadId,
    )!.event_id;
  }

  async function waitForStatus(tenant: TestTenant, eventId: string, status: string) {
    const until = Date.now() + 10000;
    for (;;) {
      const res = await open
        .http()
        .get(`${base(tenant.slug)}/events/${eventId}`)
        .set(platform());
      if (res.body.status === status) return res.body as { status: string; attempts: Attempt[] };
      if (Date.now() > until) throw new Error(`never ${status}: ${JSON.stringify(res.body)}`);
      await sleep(50);
    }
  }

  async function sealedRow(tenant: TestTenant) {
    const [row]: Record<string, unknown>[] = await open.db.query(
      `SELECT * FROM webhook_endpoints WHERE tenant_id = $1`,
      [tenant.orgId],
    );
    return row;
  }

  describe('configuration and validation', () => {
    it('answers 404 before the endpoint is configured', async () => {
      const tenant = await newTenant();
      const res = await open.http().get(base(tenant.slug)).set(platform());
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.code).toBe('not_found');
      const rotate = await open
        .http()
        .post(`${base(tenant.slug)}/secret`)
        .set(platform());
      expect(rotate.status).toBe(404);
      const test = await open
        .http()
        .post(`${base(tenant.slug)}/test`)
        .set(platform());
      expect(test.status).toBe(404);
    });

    it('creates the endpoint with a secret shown once, and updates it without one', async () => {
      const tenant = await newTenant();
      const created = await open
        .http()
        .put(base(tenant.slug))
        .set(platform())
        .send({ url: urlFor(tenant), events: ['lead.created', 'bonus.approved'] });
      expect(created.status).toBe(200);
      expect(created.body).toEqual({
        url: urlFor(tenant),
        events: ['lead.created', 'bonus.approved'],
        enabled: true,
        created_at: expect.stringMatching(/Z$/),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      });

      const get = await open.http().get(base(tenant.slug)).set(platform());
      expect(get.status).toBe(200);
      expect(get.body).toEqual({
        url: urlFor(tenant),
        events: ['lead.created', 'bonus.approved'],
        enabled: true,
        created_at: created.body.created_at,
      });

      const updated = await open
        .http()
        .put(base(tenant.slug))
        .set(platform())
        .send({ url: `${urlFor(tenant)}/v2`, events: ['bonus.pending'], enabled: false });
      expect(updated.status).toBe(200);
      expect(updated.body).toEqual({
        url: `${urlFor(tenant)}/v2`,
        events: ['bonus.pending'],
        enabled: false,
        created_at: created.body.created_at,
      });
    });

    it.each([
      [
        'an http:// url',
        { url: 'http://hooks.example/x', events: ['lead.created'] },
        422,
        'insecure_webhook_url',
      ],
      [
        'an unknown event type',
        { url: 'https://hooks.example/x', events: ['lead.deleted'] },
        400,
        'validation_failed',
      ],
      [
        'the test event type',
        { url: 'https://hooks.example/x', events: ['webhook.test'] },
        400,
        'validation_failed',
      ],
      ['a missing url', { events: ['lead.created'] }, 400, 'validation_failed'],
      ['a missing event list', { url: 'https://hooks.example/x' }, 400, 'validation_failed'],
      ['a url that is not one', { url: 'not a url', events: [] }, 400, 'validation_failed'],
      ['a non-string url', { url: 42, events: [] }, 400, 'validation_failed'],
      [
        'a non-boolean enabled',
        { url: 'https://hooks.example/x', events: [], enabled: 'yes' },
        400,
        'validation_failed',
      ],
      [
        'an unknown field',
        { url: 'https://hooks.example/x', events: [], secret: 'whsec_mine' },
        400,
        'validation_failed',
      ],
    ])('refuses %s', async (_name, body, status, code) => {
      const tenant = await newTenant();
      const res = await open.http().put(base(tenant.slug)).set(platform()).send(body);
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.code).toBe(code);
      if (status === 400) expect(res.body.errors.length).toBeGreaterThan(0);
      // Nothing was stored.
      expect((await open.http().get(base(tenant.slug)).set(platform())).status).toBe(404);
    });

    it('refuses bad list queries with 400', async () => {
      const tenant = await newTenant();
      await configure(tenant);
      for (const query of ['status=failed', 'page=0', 'page_size=101', 'page=x']) {
        const res = await open
          .http()
          .get(`${base(tenant.slug)}/events?${query}`)
          .set(platform());
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation_failed');
      }
    });

    it('answers 404 event_not_found for an unknown event', async () => {
      const tenant = await newTenant();
      await configure(tenant);
      const unknown = 'evt_01JD0Z6V2Y8K3M4N5P6Q7R8S9T';
      const detail = await open
        .http()
        .get(`${base(tenant.slug)}/events/${unknown}`)
        .set(platform());
      expect(detail.status).toBe(404);
      expect(detail.body.code).toBe('event_not_found');
      const replay = await open
        .http()
        .post(`${base(tenant.slug)}/events/${unknown}/replay`)
        .set(platform());
      expect(replay.status).toBe(404);
      expect(replay.body.code).toBe('event_not_found');
    });
  });

  describe('secret storage', () => {
    it('stores the secret only sealed and never returns it again', async () => {
      const tenant = await newTenant();
      const first = await configure(tenant);
      const rotated = await open
        .http()
        .post(`${base(tenant.slug)}/secret`)
        .set(platform());
      expect(rotated.status).toBe(200);
      const second = rotated.body.secret as string;
      expect(second).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

      const row = await sealedRow(tenant);
      const stored = JSON.stringify(row);
      for (const secret of [first, second]) {
        expect(row.secret_sealed).not.toContain(secret);
        expect(stored).not.toContain(secret);
        expect(stored).not.toContain(secret.slice('whsec_'.length));
      }
      expect(row.secret_sealed).toMatch(/^v1\./);
      expect(row.previous_secret_sealed).toMatch(/^v1\./);

      // No read shows either secret: the endpoint, its deliveries, the audit log.
      await leadEvent(tenant);
      const reads = [
        base(tenant.slug),
        `${base(tenant.slug)}/events`,
        `/admin/v1/tenants/${tenant.slug}/audit-log?page_size=100`,
      ];
      for (const path of reads) {
        const res = await open.http().get(path).set(platform());
        expect(res.status).toBe(200);
        expect(res.text).not.toContain(first);
        expect(res.text).not.toContain(second);
        expect(res.body.secret).toBeUndefined();
      }
    });
  });

  describe('roles and tenants', () => {
    let tenant: TestTenant;
    let other: TestTenant;
    let tokens: Record<'owner' | 'manager' | 'viewer' | 'foreign', string>;
    let eventId: string;

    beforeAll(async () => {
      tenant = await newTenant();
      other = await newTenant();
      tokens = {
        owner: await createStaffToken(open, tenant.slug, 'owner'),
        manager: await createStaffToken(open, tenant.slug, 'manager'),
        viewer: await createStaffToken(open, tenant.slug, 'viewer'),
        foreign: await createStaffToken(open, other.slug, 'owner'),
      };
      await configure(tenant);
      eventId = await leadEvent(tenant);
      await waitForStatus(tenant, eventId, 'delivered');
    });

    type Call = (slug: string, token: string) => Test;
    const calls: Record<string, Call> = {
      'PUT …/webhook': (slug, token) =>
        open
          .http()
          .put(base(slug))
          .set(bearer(token))
          .send({
            url: `https://localhost:${receiver.port}/hook/${slug}`,
            events: ['lead.created'],
          }),
      'POST …/webhook/secret': (slug, token) =>
        open
          .http()
          .post(`${base(slug)}/secret`)
          .set(bearer(token)),
      'POST …/webhook/test': (slug, token) =>
        open
          .http()
          .post(`${base(slug)}/test`)
          .set(bearer(token)),
      'POST …/events/:id/replay': (slug, token) =>
        open
          .http()
          .post(`${base(slug)}/events/${eventId}/replay`)
          .set(bearer(token)),
      'GET …/webhook': (slug, token) => open.http().get(base(slug)).set(bearer(token)),
      'GET …/webhook/events': (slug, token) =>
        open
          .http()
          .get(`${base(slug)}/events`)
          .set(bearer(token)),
      'GET …/events/:id': (slug, token) =>
        open
          .http()
          .get(`${base(slug)}/events/${eventId}`)
          .set(bearer(token)),
    };

    it.each(['PUT …/webhook', 'POST …/webhook/secret', 'POST …/webhook/test'])(
      'refuses %s to a manager, a viewer and another tenant’s owner, and changes nothing',
      async (name) => {
        const before = await sealedRow(tenant);
        const deliveriesBefore = await open.db.query(
          `SELECT count(*)::int AS count FROM webhook_deliveries WHERE tenant_id = $1`,
          [tenant.orgId],
        );
        for (const who of ['manager', 'viewer', 'foreign'] as const) {
          const res = await calls[name](tenant.slug, tokens[who]);
          expect([who, res.status]).toEqual([who, 403]);
          expect(res.body.code).toBe('forbidden');
        }
        expect(await sealedRow(tenant)).toEqual(before);
        expect(
          await open.db.query(
            `SELECT count(*)::int AS count FROM webhook_deliveries WHERE tenant_id = $1`,
            [tenant.orgId],
          ),
        ).toEqual(deliveriesBefore);
      },
    );

    it('refuses a replay to a manager, a viewer and another tenant’s owner', async () => {
      for (const who of ['manager', 'viewer', 'foreign'] as const) {
        const res = await calls['POST …/events/:id/replay'](tenant.slug, tokens[who]);
        expect([who, res.status]).toEqual([who, 403]);
      }
      await sleep(300);
      expect(requestsTo(tenant)).toHaveLength(1);
    });

    it('lets the owner configure, rotate, test and replay', async () => {
      const put = await calls['PUT …/webhook'](tenant.slug, tokens.owner);
      expect(put.status).toBe(200);
      expect(put.body.secret).toBeUndefined();
      const rotate = await calls['POST …/webhook/secret'](tenant.slug, tokens.owner);
      expect(rotate.status).toBe(200);
      expect(rotate.body.secret).toMatch(/^whsec_/);
      const test = await calls['POST …/webhook/test'](tenant.slug, tokens.owner);
      expect(test.status).toBe(200);
      expect(test.body).toMatchObject({ delivered: true, status_code: 200 });
      const replay = await calls['POST …/events/:id/replay'](tenant.slug, tokens.owner);
      expect(replay.status).toBe(202);
    });

    it.each(['GET …/webhook', 'GET …/webhook/events', 'GET …/events/:id'])(
      'lets a viewer and a manager read %s, but not another tenant’s owner',
      async (name) => {
        for (const who of ['viewer', 'manager', 'owner'] as const) {
          const res = await calls[name](tenant.slug, tokens[who]);
          expect([who, res.status]).toEqual([who, 200]);
          expect(JSON.stringify(res.body)).not.toMatch(/whsec_/);
        }
        const foreign = await calls[name](tenant.slug, tokens.foreign);
        expect(foreign.status).toBe(403);
        expect(foreign.body.code).toBe('forbidden');
      },
    );

    it('shows the delivery and its attempts to a viewer', async () => {
      const detail = await calls['GET …/events/:id'](tenant.slug, tokens.viewer);
      expect(detail.body.event).toMatchObject({ event_type: 'lead.created', event_id: eventId });
      expect(detail.body.attempts[0]).toMatchObject({ attempt: 1, status_code: 200, error: null });
      const list = await calls['GET …/webhook/events'](tenant.slug, tokens.viewer);
      expect(list.body.items.map((i: { event_id: string }) => i.event_id)).toContain(eventId);
    });

    it('never shows one tenant’s deliveries under another tenant’s slug', async () => {
      await configure(other);
      const otherEvent = await leadEvent(other);
      const foreignList = await open
        .http()
        .get(`${base(other.slug)}/events`)
        .set(platform());
      expect(foreignList.status).toBe(200);
      const ids = foreignList.body.items.map((i: { event_id: string }) => i.event_id);
      expect(ids).toEqual([otherEvent]);
      expect(ids).not.toContain(eventId);

      const detail = await open
        .http()
        .get(`${base(other.slug)}/events/${eventId}`)
        .set(bearer(tokens.foreign));
      expect(detail.status).toBe(404);
      expect(detail.body.code).toBe('event_not_found');
      const replay = await open
        .http()
        .post(`${base(other.slug)}/events/${eventId}/replay`)
        .set(bearer(tokens.foreign));
      expect(replay.status).toBe(404);
      expect(replay.body.code).toBe('event_not_found');

      const ownList = await open
        .http()
        .get(`${base(tenant.slug)}/events`)
        .set(platform());
      expect(ownList.body.items.map((i: { event_id: string }) => i.event_id)).not.toContain(
        otherEvent,
      );
    });
  });

  describe('SSRF guard (WEBHOOK_ALLOW_PRIVATE_TARGETS unset)', () => {
    it.each([
      'https://127.0.0.1/hook',
      'https://127.0.0.1:8443/hook',
      'https://localhost/hook',
      'https://10.0.0.1/',
      'https://172.16.0.1/',
      'https://192.168.1.1/',
      'https://100.64.0.1/',
      'https://169.254.169.254/latest/meta-data',
      'https://0.0.0.0/',
      'https://[::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[fd00::1]/',
      'https://[fe80::1]/',
      // docs/security.md: the IPv4-compatible form, and special-purpose blocks a hand-kept list missed.
      'https://[::127.0.0.1]/',
      'https://[::ffff:0:7f00:1]/',
      'https://[64:ff9b:1::a00:1]/',
      'https://[2001::1]/',
      'https://[fec0::1]/',
      'https://192.0.0.8/',
      'https://203.0.113.7/',
    ])('refuses %s with 422 webhook_target_forbidden', async (url) => {
      const tenant = await newTenant();
      const res = await guarded
        .http()
        .put(base(tenant.slug))
        .set(bearer(guarded.adminToken))
        .send({ url, events: ['lead.created'] });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('webhook_target_forbidden');
      expect((await guarded.http().get(base(tenant.slug)).set(platform())).status).toBe(404);
    });

    it('keeps the stored endpoint when a forbidden URL is refused', async () => {
      const tenant = await newTenant();
      await configure(tenant);
      const res = await guarded
        .http()
        .put(base(tenant.slug))
        .set(platform())
        .send({ url: 'https://169.254.169.254/', events: ['bonus.approved'] });
      expect(res.status).toBe(422);
      const get = await guarded.http().get(base(tenant.slug)).set(platform());
      expect(get.body).toMatchObject({ url: urlFor(tenant), events: ['lead.created'] });
    });

    it.each(['https://8.8.8.8/hook', 'https://[2606:4700:4700::1111]/hook'])(
      'accepts the public address %s',
      async (url) => {
        const tenant = await newTenant();
        const res = await guarded
          .http()
          .put(base(tenant.slug))
          .set(platform())
          .send({ url, events: ['lead.created'] });
        expect(res.status).toBe(200);
        expect(res.body.url).toBe(url);
      },
    );

    it.each([
      ['a host name', (port: number) => `https://localhost:${port}`],
      ['an IP literal', (port: number) => `https://127.0.0.1:${port}`],
    ])(
      'refuses to connect to a forbidden address set while the guard was off (%s)',
      async (_name, origin) => {
        const tenant = await newTenant();
        // Set through the app that allows private targets: the stored URL now points at loopback.
        const put = await open
          .http()
          .put(base(tenant.slug))
          .set(platform())
          .send({ url: `${origin(receiver.port)}/hook/${tenant.slug}`, events: ['lead.created'] });
        expect(put.status).toBe(200);
        // The event is emitted through the guarded app, whose worker makes every attempt.
        const eventId = await leadEvent(tenant, guarded);
        expect(eventId).toMatch(EVENT_ID);
        const dead = await waitForStatus(tenant, eventId, 'dead');
        expect(dead.attempts).toHaveLength(6);
        for (const attempt of dead.attempts) {
          expect(attempt).toMatchObject({ status_code: null, error: 'ssrf_blocked' });
        }
        expect(requestsTo(tenant)).toHaveLength(0);

        // The test event goes through the same check.
        const test = await guarded
          .http()
          .post(`${base(tenant.slug)}/test`)
          .set(platform());
        expect(test.status).toBe(200);
        expect(test.body).toMatchObject({ delivered: false, status_code: null });
        expect(requestsTo(tenant)).toHaveLength(0);
      },
    );
  });
});
