import { Controller, Get, Inject } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import Redis from 'ioredis';
import { Public } from '../common/auth/auth.decorators';
import { DomainError } from '../common/errors/domain-error';
import { ApiProblems } from '../common/errors/problem.response';
import { REDIS } from '../redis/redis.module';
import { LiveResponse, ReadyResponse } from './dto/health.response';

@ApiTags('operations')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  /** The process is up (no dependency is checked). */
  @Get('live')
  @Public()
  live(): LiveResponse {
    return { status: 'ok' };
  }

  /** PostgreSQL and Redis both answer; 503 `unavailable` naming what is down otherwise. */
  @Get('ready')
  @Public()
  @HealthCheck({ swaggerDocumentation: false })
  @ApiProblems([503, 'unavailable'])
  async ready(): Promise<ReadyResponse> {
    try {
      return (await this.health.check([
        () => this.db.pingCheck('database', { timeout: 2000 }),
        () => this.pingRedis(),
      ])) as unknown as ReadyResponse;
    } catch (error) {
      const down = Object.keys(
        (error as { response?: { error?: Record<string, unknown> } }).response?.error ?? {},
      );
      throw new DomainError(503, 'unavailable', `Not ready: ${down.join(', ') || 'unknown'} down.`);
    }
  }

  private async pingRedis() {
    const indicator = this.indicators.check('redis');
    try {
      await Promise.race([
        this.redis.ping(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref()),
      ]);
      return indicator.up();
    } catch {
      return indicator.down();
    }
  }
}
