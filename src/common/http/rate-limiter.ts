import { Inject, Injectable, Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../../config/app-config';
import { REDIS } from '../../redis/redis.token';
import { DomainError } from '../errors/domain-error';

/** `429 rate_limited`, with `Retry-After` in seconds. */
export class RateLimitedError extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'rate_limited', 'Too many requests; try again later.', undefined, {
      'Retry-After': String(retryAfterSeconds),
    });
  }
}

/**
 * Fixed-window request limits kept in Redis, so they hold across instances (README.md,
 * "Configuration"). RATE_LIMITS =off lifts them; with Redis unreachable they fail open
 * (availability over the limit), and the sign-in code limits never depend on this (they are counted
 * in Postgres).
 */
@Injectable()
export class RateLimiter {
  private readonly logger = new Logger(RateLimiter.name);

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly config: AppConfig,
  ) {}

  async consume(bucket: string, key: string, limit: number, windowSeconds: number): Promise<void> {
    if (!this.config.rateLimits) return;
    const window = Math.floor(Date.now() / 1000 / windowSeconds);
    const redisKey = `${this.config.rateLimitPrefix}:rl:${bucket}:${key}:${window}`;
    let count: number;
    try {
      const results = await this.redis
        .multi()
        .incr(redisKey)
        .expire(redisKey, windowSeconds + 1)
        .exec();
      count = Number(results?.[0]?.[1] ?? 0);
    } catch (error) {
      this.logger.warn(`Rate limiter unavailable (${(error as Error).message}); allowing`);
      return;
    }
    if (count > limit) {
      const retryAfter = windowSeconds - (Math.floor(Date.now() / 1000) % windowSeconds);
      throw new RateLimitedError(retryAfter);
    }
  }
}
