import Redis, { Cluster, type RedisOptions } from 'ioredis';

export interface RedisNode {
  host: string;
  port: number;
}

/**
 * Where Redis is (docs/operations.md): one server (`REDIS_URL`), a primary found through Sentinel
 * (`REDIS_SENTINELS` + `REDIS_SENTINEL_NAME`), or a Redis Cluster (`REDIS_CLUSTER_NODES`). With
 * Sentinel or Cluster, the credentials and TLS of `REDIS_URL`, when it is set, apply to the
 * data nodes.
 */
export type RedisTarget =
  | { mode: 'standalone'; url: string }
  | { mode: 'sentinel'; sentinels: RedisNode[]; name: string; auth: RedisOptions }
  | { mode: 'cluster'; nodes: RedisNode[]; auth: RedisOptions };

/** `host:port,host:port` */
export const NODE_LIST = /^[^\s,:]+:\d{1,5}(,[^\s,:]+:\d{1,5})*$/;

export function parseNodes(list: string): RedisNode[] {
  return list.split(',').map((node) => {
    const at = node.lastIndexOf(':');
    return { host: node.slice(0, at), port: Number(node.slice(at + 1)) };
  });
}

/** Username, password and TLS of a redis:// URL, for Sentinel's and Cluster's data nodes. */
export function authOf(url: string | undefined): RedisOptions {
  if (!url) return {};
  const parsed = new URL(url);
  return {
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/**
 * Bull's keys of one queue are used together by its Lua scripts, so on a cluster they must hash to
 * one slot: the prefix carries a hash tag (`{refq}`). A prefix given without one is tagged here
 * on a cluster, and left as it is elsewhere (keys and tests stay what they were).
 */
export function queuePrefixFor(prefix: string, target: RedisTarget): string {
  return target.mode === 'cluster' && !prefix.includes('{') ? `{${prefix}}` : prefix;
}

/** Rate-limit counters are independent keys: their own untagged prefix spreads them over slots. */
export function rateLimitPrefixFor(queuePrefix: string): string {
  return queuePrefix.replace(/[{}]/g, '');
}

/**
 * A client of `target`. A replica promoted by Sentinel is followed: the client asks Sentinel again
 * when its connection drops (the old primary died) or a command meets the old primary, now
 * read-only. (ioredis's `failoverDetector` is not used: in the failover test it left a Bull client
 * closed for good.)
 */
export function createRedisClient(target: RedisTarget, options: RedisOptions): Redis | Cluster {
  switch (target.mode) {
    case 'standalone':
      return new Redis(target.url, options);
    case 'sentinel':
      return new Redis({
        ...options,
        ...target.auth,
        sentinels: target.sentinels,
        name: target.name,
        reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 2 : false),
        sentinelRetryStrategy: options.retryStrategy ?? undefined,
      });
    case 'cluster': {
      const { retryStrategy, enableOfflineQueue, enableReadyCheck, ...redisOptions } = options;
      return new Cluster(target.nodes, {
        redisOptions: { ...redisOptions, ...target.auth, enableReadyCheck },
        clusterRetryStrategy: retryStrategy ?? undefined,
        enableOfflineQueue: enableOfflineQueue ?? true,
        enableReadyCheck: enableReadyCheck ?? true,
        slotsRefreshTimeout: 2000,
      });
    }
  }
}
