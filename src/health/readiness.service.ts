import { Inject, Injectable } from '@nestjs/common';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import Redis from 'ioredis';
import { AppConfig } from '../config/app-config';
import { DomainError } from '../common/errors/domain-error';
import { REDIS } from '../redis/redis.module';
import type { ReadyResponse } from './dto/health.response';

const PING_TIMEOUT_MS = 2000;

/**
 * Readiness by role (docs/operations.md): an `api` process needs PostgreSQL only (writes go to
 * the outbox there; Redis only hurries deliveries on and holds rate-limit counters), so Redis
 * down is reported as `degraded` and the process stays ready; a process that runs the workers
 * (`worker`, `all`) needs both. Not ready is `503 unavailable` naming what is down.
 */
@Injectable()
export class ReadinessService {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly config: AppConfig,
  ) {}

  async check(): Promise<ReadyResponse> {
    const [database, redis] = await Promise.all([this.pingDatabase(), this.pingRedis()]);
    const needsRedis = this.config.processRole !== 'api';
    const down = [...(database ? [] : ['database']), ...(redis || !needsRedis ? [] : ['redis'])];
    if (down.length) {
      throw new DomainError(503, 'unavailable', `Not ready: ${down.join(', ')} down.`);
    }
    const redisStatus = redis ? 'up' : 'degraded';
    return {
      status: redis ? 'ok' : 'degraded',
      role: this.config.processRole,
      info: { database: { status: 'up' }, redis: { status: redisStatus } },
      error: redis ? {} : { redis: { status: 'down' } },
      details: { database: { status: 'up' }, redis: { status: redisStatus } },
    };
  }

  private async pingDatabase(): Promise<boolean> {
    try {
      const result = await this.health.check([
        () => this.db.pingCheck('database', { timeout: PING_TIMEOUT_MS }),
      ]);
      return result.status === 'ok';
    } catch {
      return false;
    }
  }

  private async pingRedis(): Promise<boolean> {
    try {
      await Promise.race([
        this.redis.ping(),
        new Promise((_, reject) =>
          setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS).unref(),
        ),
      ]);
      return true;
    } catch {
      return false;
    }
  }
}
