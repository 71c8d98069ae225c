import { ApiProperty } from '@nestjs/swagger';

export class LiveResponse {
  /** @example "ok" */ status: string;
}

export class DependencyStatusResponse {
  /** @example "up" */ status: string;
}

export class ReadyDependenciesResponse {
  database: DependencyStatusResponse;
  redis: DependencyStatusResponse;
}

export class ReadyResponse {
  /** @example "ok" */ status: string;
  info: ReadyDependenciesResponse;
  /** Dependencies that are down (empty when ready). */
  @ApiProperty({ type: Object, additionalProperties: true, example: {} })
  error: Record<string, unknown>;
  details: ReadyDependenciesResponse;
}
