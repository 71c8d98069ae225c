import { Agent, request as httpRequest } from 'node:http';
import { ensureDatabase, runMigrations } from '../../../src/database/ensure-database';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { PrivatePostgres } from '../../utils/private-postgres';
import {
  freePort,
  PrivateRedis,
  spawnWorker,
  stopAllChildren,
  workerStarted,
} from '../../utils/processes';
import { testEnv } from '../../utils/test-env';

/**
 * docs/operations.md: a database that goes away is `503 unavailable` with `Retry-After`, never a 500, and
 * readiness follows the process's role. Real servers: a private PostgreSQL restarted under
 * requests, a private Redis stopped and started, a real worker process.
 */
jest.setTimeout(120_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('availability', () => {
  describe('PostgreSQL restarted under requests', () => {
    let pg: PrivatePostgres;
    let t: TestApp;
    let tenant: TestTenant;

    beforeAll(async () => {
      pg = await PrivatePostgres.start();
      const url = pg.url('referrals_outage');
      await ensureDatabase(url);
      await runMigrations(url);
      t = await createTestApp({ DATABASE_URL: url, PROCESS_ROLE: 'api' });
      tenant = await createTenant(t);
    });
    afterAll(async () => {
      await t?.close().catch(() => undefined);
      await pg?.destroy();
    });

    /** What each request answers while PostgreSQL is up; down, each must be 503. */
    const requests = (i: number) => [
      {
        up: 200,
        send: () =>
          t
            .http()
            .post('/federation/v1/users/upsert')
            .set('X-Service-Tenant-Key', tenant.key)
            .send({ external_id: `outage-${i}` }),
      },
      {
        up: 200,
        send: () =>
          t
            .http()
            .get(`/admin/v1/tenants/${tenant.slug}`)
            .set('Authorization', `Bearer ${t.adminToken}`),
      },
      // Pages: an unknown admin-page session (looked up in the database) and a short link.
      {
        up: 303,
        page: true,
        send: () =>
          t.http().get(`/org/${tenant.slug}/integration`).set('Cookie', 'svc_admin=not-a-session'),
      },
      { up: 404, page: true, send: () => t.http().get('/s/NoSuch42') },
      { up: 200, ready: true, send: () => t.http().get('/health/ready') },
    ];

    it('answers 503 unavailable with Retry-After while it is down, never 500, and recovers', async () => {
      const seen: Record<string, number> = {};
      const problems: string[] = [];
      let i = 0;
      const round = async () => {
        const sends = requests(i++);
        const answers = await Promise.all(sends.map(({ send }) => send()));
        let allUp = true;
        for (const [n, res] of answers.entries()) {
          const { up, page, ready } = sends[n] as { up: number; page?: boolean; ready?: boolean };
          seen[res.status] = (seen[res.status] ?? 0) + 1;
          if (res.status === up) continue;
          allUp = false;
          expect(res.status).toBe(503);
          expect(res.text).not.toMatch(/\n\s+at\s|ECONNREFUSED|57P0|terminat/i);
          if (page) {
            expect(res.headers['content-type']).toMatch(/^text\/html/);
            expect(res.text).toMatch(/Temporarily unavailable/);
          } else {
            expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
            expect(res.body).toMatchObject({ status: 503, code: 'unavailable' });
          }
          if (ready) continue; // readiness says what is down; it has no Retry-After
          expect(res.headers['retry-after']).toBe('5');
          problems.push(String(n));
        }
        return allUp;
      };

      expect(await round()).toBe(true);
      const stopped = pg.stop();
      // Requests while the server shuts down and while it is gone.
      while (pg.running) await round();
      await stopped;
      for (let k = 0; k < 3; k++) await round();
      expect(problems.length).toBeGreaterThan(0);

      await pg.start();
      let recovered = false;
      for (let k = 0; k < 50 && !recovered; k++) {
        recovered = await round();
        if (!recovered) await sleep(200);
      }
      expect(recovered).toBe(true);
      expect(Object.keys(seen).filter((s) => !['200', '303', '404', '503'].includes(s))).toEqual(
        [],
      );
      process.stdout.write(
        `\nPostgreSQL restart under requests: answers by status ${JSON.stringify(seen)}\n`,
      );
    });
  });

  describe('readiness by role with Redis stopped', () => {
    let redis: PrivateRedis;
    let api: TestApp;
    const agent = new Agent({ keepAlive: false });
    let tenant: TestTenant;

    const get = (port: number, path: string) =>
      new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, path, agent }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString('utf8')));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        });
        req.on('error', reject);
        req.end();
      });

    beforeAll(async () => {
      redis = await PrivateRedis.start();
      api = await createTestApp({ REDIS_URL: redis.url, PROCESS_ROLE: 'api' });
      tenant = await createTenant(api);
    });
    afterAll(async () => {
      await api?.close();
      await stopAllChildren();
      await redis?.stop();
    });

    it('an api process stays ready and keeps acknowledging writes; a worker is not ready', async () => {
      const healthPort = await freePort();
      const worker = spawnWorker('worker', {
        ...testEnv(),
        REDIS_URL: redis.url,
        WORKER_HEALTH_PORT: String(healthPort),
      });
      await workerStarted(worker);
      expect((await get(healthPort, '/health/live')).status).toBe(200);
      const workerReady = await get(healthPort, '/health/ready');
      expect(workerReady).toMatchObject({ status: 200, body: { status: 'ok', role: 'worker' } });
      expect((await api.http().get('/health/ready')).body).toMatchObject({ status: 'ok' });

      await redis.stop();

      const ready = await api.http().get('/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({
        status: 'degraded',
        role: 'api',
        info: { database: { status: 'up' }, redis: { status: 'degraded' } },
      });
      const write = await api
        .http()
        .post('/federation/v1/users/upsert')
        .set('X-Service-Tenant-Key', tenant.key)
        .send({ external_id: 'while-redis-is-down' });
      expect(write.status).toBe(200);

      let notReady = await get(healthPort, '/health/ready');
      for (let k = 0; k < 20 && notReady.status !== 503; k++) {
        await sleep(250);
        notReady = await get(healthPort, '/health/ready');
      }
      expect(notReady).toMatchObject({
        status: 503,
        body: { status: 503, code: 'unavailable', detail: expect.stringMatching(/\bredis\b/) },
      });

      await redis.start();
      let back = await get(healthPort, '/health/ready');
      for (let k = 0; k < 40 && back.status !== 200; k++) {
        await sleep(250);
        back = await get(healthPort, '/health/ready');
      }
      expect(back.status).toBe(200);
      await worker.stop();
    });
  });
});
