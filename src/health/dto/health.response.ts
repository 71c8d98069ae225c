import { ApiProperty } from '@nestjs/swagger';

export class LiveResponse {
  /** @example "ok" */ status: string;
}

export class DependencyStatusResponse {
  /** `up`, or `degraded` for Redis on an `api` process that stays ready without it. */
  @ApiProperty({ enum: ['up', 'degraded'], example: 'up' })
  status: string;
}

export class ReadyDependenciesResponse {
  database: DependencyStatusResponse;
  redis: DependencyStatusResponse;
}

export class ReadyResponse {
  /** `ok`, or `degraded` when an `api` process is ready without Redis. */
  @ApiProperty({ enum: ['ok', 'degraded'], example: 'ok' })
  status: string;
  /** The process's `PROCESS_ROLE`, which decides what readiness needs. */
  @ApiProperty({ enum: ['api', 'worker', 'all'], example: 'all' })
  role: string;
  info: ReadyDependenciesResponse;
  /** Dependencies that are down (empty when ready). */
  @ApiProperty({ type: Object, additionalProperties: true, example: {} })
  error: Record<string, unknown>;
  details: ReadyDependenciesResponse;
}
