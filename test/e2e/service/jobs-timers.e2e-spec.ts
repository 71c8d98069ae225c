// Jobs and timers through Nest (docs/architecture.md, "Jobs and timers"): the sweeps' repeatable
// Bull jobs are kept once, under a stable job id, however many worker processes start against one
// Redis prefix; a process's own timers are in SchedulerRegistry, only where its role runs them, and
// none is left once the app has closed.
import { randomBytes } from 'node:crypto';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { getQueueToken } from '@nestjs/bull';
import { BULL_MODULE_QUEUE_PROCESS } from '@nestjs/bull/dist/bull.constants';
import { SchedulerRegistry } from '@nestjs/schedule';
import Bull, { type Queue } from 'bull';
import Redis from 'ioredis';
import { APPROVE_DUE_JOB, BONUSES_QUEUE } from '../../../src/bonuses/bonuses.queue';
import { CLICK_FLUSH_INTERVAL } from '../../../src/deeplinks/click-counter';
import {
  HOUSEKEEPING_FIRST_TIMEOUT,
  HOUSEKEEPING_INTERVAL,
} from '../../../src/housekeeping/housekeeping.worker';
import {
  PAYOUTS_QUEUE,
  SCHEDULED_RUNS_CRON,
  SCHEDULED_RUNS_JOB,
} from '../../../src/payouts/payouts.queue';
import { MAIL_INTERVAL } from '../../../src/notifications/mail/mail-worker';
import { IMPORT_SWEEP_INTERVAL } from '../../../src/transfer/import-sweep.worker';
import { WEBHOOK_SWEEP_INTERVAL, WebhookWorker } from '../../../src/webhooks/webhook.processor';
import { createTestApp, type TestApp } from '../../utils/create-test-app';
import { until } from '../../utils/until';

jest.setTimeout(120_000);

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** A prefix of this file's own, under the run's (so global teardown removes what is left). */
const ownPrefix = () =>
  `${process.env.TEST_QUEUE_PREFIX ?? 'test'}_jobs${randomBytes(3).toString('hex')}`;

async function dropPrefix(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
}

describe('repeatable jobs', () => {
  it('two worker processes on one prefix keep each sweep once, under its stable job id', async () => {
    const prefix = ownPrefix();
    // What an earlier version left in Redis: the same sweep with no job id, and another period.
    const seed = new Bull(BONUSES_QUEUE, REDIS_URL, { prefix });
    await seed.add(APPROVE_DUE_JOB, {}, { repeat: { every: 700 } });
    await seed.add(APPROVE_DUE_JOB, {}, { repeat: { every: 60_000 } });
    expect(await seed.getRepeatableJobs()).toHaveLength(2);
    await seed.close();

    const env = { PROCESS_ROLE: 'worker', QUEUE_PREFIX: prefix, BONUS_APPROVAL_SWEEP_MS: '700' };
    const apps: TestApp[] = [];
    try {
      apps.push(...(await Promise.all([createTestApp(env), createTestApp(env)])));
      const bonuses = apps[0].app.get<Queue>(getQueueToken(BONUSES_QUEUE), { strict: false });
      const payouts = apps[0].app.get<Queue>(getQueueToken(PAYOUTS_QUEUE), { strict: false });
      const sweeps = async () =>
        (await bonuses.getRepeatableJobs()).map(({ name, id, every }) => ({ name, id, every }));
      const wanted = [{ name: APPROVE_DUE_JOB, id: APPROVE_DUE_JOB, every: 700 }];
      await until('one grace-period sweep', async () => {
        return JSON.stringify(await sweeps()) === JSON.stringify(wanted);
      });
      // Both workers have scheduled by now or do so again on reconnect: still one, later too.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(await sweeps()).toEqual(wanted);
      const runs = await payouts.getRepeatableJobs();
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({
        name: SCHEDULED_RUNS_JOB,
        id: SCHEDULED_RUNS_JOB,
        cron: SCHEDULED_RUNS_CRON,
        tz: 'UTC',
      });
    } finally {
      await Promise.all(apps.map((t) => t.close()));
      await dropPrefix(prefix);
    }
  });

  it('declares the webhook consumer with the concurrency of each app’s config', async () => {
    const apps: TestApp[] = [];
    const prefix = ownPrefix();
    try {
      for (const concurrency of ['3', '7']) {
        apps.push(
          await createTestApp({
            PROCESS_ROLE: 'worker',
            QUEUE_PREFIX: prefix,
            WEBHOOK_CONCURRENCY: concurrency,
          }),
        );
      }
      const declared = apps.map((t) => {
        const worker = t.app.get(WebhookWorker);
        return Reflect.getMetadata(BULL_MODULE_QUEUE_PROCESS, worker.deliver) as unknown;
      });
      expect(declared).toEqual([
        { name: 'deliver', concurrency: 3 },
        { name: 'deliver', concurrency: 7 },
      ]);
    } finally {
      for (const t of apps) await t.close();
      await dropPrefix(prefix);
    }
  });
});

describe('consumers at shutdown', () => {
  it('a worker closed while its queues still connect leaves no unhandled rejection behind', async () => {
    // Redis answers through a proxy that holds each new connection back: the app has started and
    // is closed before its queues' clients are ready. Bull names each consumer's blocking
    // connection once its client is ready, so during the close, on a connection the close tears
    // down. Unheard, that rejection fails this test (Jest reports it) and ends a real process.
    const proxy = await slowRedisProxy(400);
    const prefix = ownPrefix();
    try {
      const t = await createTestApp({
        PROCESS_ROLE: 'worker',
        QUEUE_PREFIX: prefix,
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      });
      // The moment this test is about: started, not yet connected.
      const bonuses = t.app.get<Queue>(getQueueToken(BONUSES_QUEUE), { strict: false });
      expect(bonuses.client.status).not.toBe('ready');
      await t.close();
      // What the close set off settles (the proxied connections included) before the test ends.
      await new Promise((resolve) => setTimeout(resolve, 1000));
    } finally {
      await proxy.close();
      await dropPrefix(prefix);
    }
  });
});

/** A TCP proxy to the test Redis that starts forwarding each connection only after `delayMs`. */
async function slowRedisProxy(
  delayMs: number,
): Promise<{ port: number; close: () => Promise<void> }> {
  const target = new URL(REDIS_URL);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.pause();
    client.on('error', () => undefined);
    client.on('close', () => sockets.delete(client));
    setTimeout(() => {
      if (client.destroyed) return;
      const upstream = connect(Number(target.port || 6379), target.hostname);
      sockets.add(upstream);
      upstream.on('error', () => client.destroy());
      upstream.on('close', () => {
        sockets.delete(upstream);
        client.destroy();
      });
      client.on('close', () => upstream.destroy());
      client.pipe(upstream).pipe(client);
      client.resume();
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('timers', () => {
  /** Every timer made while the spies are on, with who made it, and every one cleared. */
  const made: { handle: NodeJS.Timeout; repeating: boolean; caller: string }[] = [];
  const cleared = new Set<unknown>();
  const real = {
    setInterval: globalThis.setInterval,
    setTimeout: globalThis.setTimeout,
    clearInterval: globalThis.clearInterval,
    clearTimeout: globalThis.clearTimeout,
  };
  beforeAll(() => {
    const making = (make: typeof setInterval, repeating: boolean) =>
      ((...args: Parameters<typeof setInterval>) => {
        const handle = make(...args);
        made.push({ handle, repeating, caller: callerOf(new Error().stack ?? '') });
        return handle;
      }) as unknown as typeof setInterval;
    const clearing =
      (clear: typeof clearInterval) => (handle?: string | number | NodeJS.Timeout) => {
        cleared.add(handle);
        clear(handle);
      };
    jest.spyOn(globalThis, 'setInterval').mockImplementation(making(real.setInterval, true));
    jest
      .spyOn(globalThis, 'setTimeout')
      .mockImplementation(making(real.setTimeout, false) as never);
    jest.spyOn(globalThis, 'clearInterval').mockImplementation(clearing(real.clearInterval));
    jest.spyOn(globalThis, 'clearTimeout').mockImplementation(clearing(real.clearTimeout));
  });
  afterAll(() => jest.restoreAllMocks());

  it('a worker keeps its sweeps in SchedulerRegistry and leaves no timer of its own once closed', async () => {
    const prefix = ownPrefix();
    made.length = 0;
    const t = await createTestApp({ PROCESS_ROLE: 'worker', QUEUE_PREFIX: prefix });
    try {
      const registry = t.app.get(SchedulerRegistry);
      expect(registry.getIntervals().sort()).toEqual(
        [
          CLICK_FLUSH_INTERVAL,
          HOUSEKEEPING_INTERVAL,
          IMPORT_SWEEP_INTERVAL,
          MAIL_INTERVAL,
          WEBHOOK_SWEEP_INTERVAL,
        ].sort(),
      );
      expect(registry.getTimeouts()).toEqual([HOUSEKEEPING_FIRST_TIMEOUT]);
      const scheduled = [
        ...registry.getIntervals().map((name) => registry.getInterval(name) as unknown),
        registry.getTimeout(HOUSEKEEPING_FIRST_TIMEOUT) as unknown,
      ];
      // The service's own repeating timers: the registry's, and the webhook loop's lease heartbeat.
      const repeating = made.filter((m) => m.repeating && m.caller.includes(SRC));
      expect(repeating.length).toBe(6);
      await t.close();

      expect(registry.getIntervals()).toEqual([]);
      expect(registry.getTimeouts()).toEqual([]);
      for (const handle of scheduled) expect(cleared.has(handle)).toBe(true);
      const left = repeating.filter(({ handle }) => !cleared.has(handle));
      expect(left.map(({ caller }) => caller)).toEqual([]);
    } finally {
      await dropPrefix(prefix);
    }
  });

  it('an API process runs no sweep: only its click counter’s flush', async () => {
    const t = await createTestApp({ PROCESS_ROLE: 'api' });
    try {
      const registry = t.app.get(SchedulerRegistry);
      expect(registry.getIntervals()).toEqual([CLICK_FLUSH_INTERVAL]);
      expect(registry.getTimeouts()).toEqual([]);
    } finally {
      await t.close();
    }
    expect(t.app.get(SchedulerRegistry).getIntervals()).toEqual([]);
  });
});

const SRC = `${resolve(__dirname, '../../../src')}/`;

/** The stack frame that asked for a timer: the first past this file's spy and Jest's mock. */
function callerOf(stack: string): string {
  const frames = stack.split('\n').slice(1);
  return frames.find((f) => !f.includes(__filename) && !f.includes('jest-mock')) ?? '';
}
