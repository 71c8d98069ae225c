import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import type Redis from 'ioredis';
import { AppConfig } from '../config/app-config';
import { RateLimiter } from '../common/http/rate-limiter';
import { type BullClients, CLOSED } from './bull-options';
import { createRedisClient } from './redis-target';
import { BULL_CLIENTS, REDIS } from './redis.token';

export { BULL_CLIENTS, REDIS } from './redis.token';

/**
 * One shared ioredis client for the service's own use (readiness, rate-limit counters), to one
 * server, through Sentinel or to a Cluster (redis-target.ts). Commands fail fast instead of
 * queueing while Redis is down, so readiness reports the truth at once.
 */
@Injectable()
class RedisShutdown implements OnApplicationShutdown {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(BULL_CLIENTS) private readonly bullClients: BullClients,
  ) {}
  async onApplicationShutdown(): Promise<void> {
    this.redis.disconnect();
    // Bull closes no client of its own: they are all made by bullRootOptions, and closed here.
    for (const client of this.bullClients) if (client !== CLOSED) client.disconnect();
    this.bullClients.clear();
    this.bullClients.add(CLOSED);
  }
}

@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [AppConfig],
      useFactory: (config: AppConfig) =>
        createRedisClient(config.redis, {
          lazyConnect: false,
          enableOfflineQueue: false,
          maxRetriesPerRequest: 1,
          connectTimeout: 2000,
          retryStrategy: (times) => Math.min(times * 200, 2000),
        }).on('error', () => undefined),
    },
    { provide: BULL_CLIENTS, useFactory: (): BullClients => new Set() },
    RedisShutdown,
    RateLimiter,
  ],
  exports: [REDIS, BULL_CLIENTS, RateLimiter],
})
export class RedisModule {}
