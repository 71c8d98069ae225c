import { request as httpRequest, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rawPool } from '../../../src/database/raw-pool';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { scalePort } from '../../utils/scale-ports';

/** docs/operations.md: the pool is DATABASE_POOL_SIZE; idle keep-alive connections outlive Node's 5 s. */
describe('scale configuration on a running app', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ DATABASE_POOL_SIZE: '3', HTTP_KEEP_ALIVE_TIMEOUT_MS: '8000' });
    await t.app.listen(await scalePort(), '127.0.0.1');
  });
  afterAll(() => t.close());

  it('opens at most DATABASE_POOL_SIZE connections', async () => {
    const pool = rawPool(t.db);
    expect(pool.options.max).toBe(3);
    await Promise.all(Array.from({ length: 10 }, () => t.db.query('SELECT pg_sleep(0.05)')));
    expect(pool.totalCount).toBeLessThanOrEqual(3);
  });

  it('keeps an idle connection open past 5 s, headers timeout above it', async () => {
    const server = t.app.getHttpServer();
    expect(server.keepAliveTimeout).toBe(8000);
    expect(server.headersTimeout).toBe(9000);
    const port = (server.address() as AddressInfo).port;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<{ status: number; socket: unknown }>((resolve, reject) => {
        const req = httpRequest({ port, host: '127.0.0.1', path: '/health/live', agent }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, socket: req.socket }));
        });
        req.on('error', reject);
        req.end();
      });
    const first = await get();
    await new Promise((r) => setTimeout(r, 6000));
    const second = await get();
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.socket).toBe(first.socket);
    agent.destroy();
  }, 20_000);
});
