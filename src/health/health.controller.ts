import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheck } from '@nestjs/terminus';
import { Public } from '../common/access/access.decorators';
import { ApiProblems } from '../common/errors/problem.response';
import { LiveResponse, ReadyResponse } from './dto/health.response';
import { ReadinessService } from './readiness.service';

@ApiTags('operations')
@Controller('health')
export class HealthController {
  constructor(private readonly readiness: ReadinessService) {}

  /** The process is up (no dependency is checked). */
  @Get('live')
  @Public()
  live(): LiveResponse {
    return { status: 'ok' };
  }

  /**
   * Ready for the process's role: an `api` process needs PostgreSQL (Redis down is reported as
   * `degraded`, still 200); `worker` and `all` need PostgreSQL and Redis. 503 `unavailable`
   * names what is down.
   */
  @Get('ready')
  @Public()
  @HealthCheck({ swaggerDocumentation: false })
  @ApiProblems([503, 'unavailable'])
  ready(): Promise<ReadyResponse> {
    return this.readiness.check();
  }
}
