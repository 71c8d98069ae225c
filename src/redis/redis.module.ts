import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../config/app-config';
import { RateLimiter } from '../common/http/rate-limiter';
import { REDIS } from './redis.token';

export { REDIS } from './redis.token';

/**
 * One shared ioredis client for the service's own use (readiness, rate-limit counters). Commands
 * fail fast instead of queueing while Redis is down, so readiness reports the truth at once.
 */
@Injectable()
class RedisShutdown implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}
  async onApplicationShutdown(): Promise<void> {
    this.redis.disconnect();
  }
}

@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [AppConfig],
      useFactory: (config: AppConfig) =>
        new Redis(config.redisUrl, {
          lazyConnect: false,
          enableOfflineQueue: false,
          maxRetriesPerRequest: 1,
          connectTimeout: 2000,
          retryStrategy: (times) => Math.min(times * 200, 2000),
        }).on('error', () => undefined),
    },
    RedisShutdown,
    RateLimiter,
  ],
  exports: [REDIS, RateLimiter],
})
export class RedisModule {}
