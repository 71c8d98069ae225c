import type { QueueOptions } from 'bull';
import type { Cluster } from 'ioredis';
import type Redis from 'ioredis';
import type { AppConfig } from '../config/app-config';
import { createRedisClient } from './redis-target';

/**
 * How Bull's Redis clients come back after an outage. Bull's own default reconnect back-off is
 * e^n ms capped at 20 s, so after a long outage a worker could sit up to 20 s before it looked at
 * Redis again (and a failed job fetch waited another `retryProcessDelay`, 5 s by default). Here a
 * client tries again every 50 ms × n, at most every RECONNECT_MAX_MS, so workers take jobs again
 * within about a second of Redis answering: a refused connection costs nothing, and the
 * commands queued meanwhile run the moment the client is back.
 */
export const RECONNECT_MAX_MS = 500;
/** Wait before a worker fetches jobs again after a fetch failed (Bull's default is 5 s). */
export const RETRY_PROCESS_DELAY_MS = 250;

export function reconnectDelay(times: number): number {
  return Math.min(times * 50, RECONNECT_MAX_MS);
}

/** The clients made for Bull (`createClient`): Bull does not close those itself. */
export type BullClients = Set<Redis | Cluster | typeof CLOSED>;
/** In a BullClients set once the app has shut down. */
export const CLOSED = Symbol('closed');

/**
 * Options every Bull queue of the service shares (BullModule.forRoot). Bull's Redis clients are
 * made here (`createClient`), to one server, through Sentinel or to a Cluster, the blocking and
 * subscriber ones without a ready check or a retry limit, as Bull requires, and kept in `clients`
 * for RedisShutdown to disconnect. Bull closes only the clients it made itself, and its close of
 * a client listens for the client's error and rejects with it, which while Redis is unreachable
 * fails the whole shutdown; these are never closed that way.
 */
export function bullRootOptions(config: AppConfig, clients: BullClients): QueueOptions {
  const target = config.redis;
  return {
    prefix: config.queuePrefix,
    settings: { retryProcessDelay: RETRY_PROCESS_DELAY_MS },
    createClient: (type, options) => {
      const blocking = type !== 'client';
      const client = createRedisClient(target, {
        retryStrategy: reconnectDelay,
        ...(blocking ? { maxRetriesPerRequest: null, enableReadyCheck: false } : {}),
        ...(options?.connectTimeout ? { connectTimeout: options.connectTimeout } : {}),
      });
      // Kept until the shutdown disconnects them all; one made after it (a queue closing late)
      // is disconnected at once, so no client reconnects forever behind a closed app.
      if (clients.has(CLOSED)) setImmediate(() => client.disconnect());
      else clients.add(client);
      return client;
    },
  };
}
