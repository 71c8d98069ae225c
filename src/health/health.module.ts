import { Controller, Get, Module, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { TerminusModule } from '@nestjs/terminus';
import { PrometheusController, PrometheusModule } from '@willsoto/nestjs-prometheus';
import type { Response } from 'express';
import { Public } from '../common/access/access.decorators';
import { HealthController } from './health.controller';
import { ReadinessService } from './readiness.service';

/** Prometheus text format for scrapers: default process metrics plus the HTTP metrics. */
@ApiTags('operations')
@Controller()
export class MetricsController extends PrometheusController {
  @Get()
  @Public()
  @ApiOperation({
    summary: 'Prometheus metrics',
    description:
      'Default process metrics, HTTP requests by route pattern and status with their latency, ' +
      'and the webhook metrics. Public, like the health checks.',
  })
  @ApiProduces('text/plain')
  @ApiOkResponse({
    description: 'Prometheus text exposition format 0.0.4',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  override async index(@Res({ passthrough: true }) response: Response) {
    return super.index(response);
  }
}

@Module({
  imports: [
    TerminusModule.forRoot({ logger: false }),
    PrometheusModule.register({ controller: MetricsController, path: '/metrics' }),
  ],
  controllers: [HealthController],
  providers: [ReadinessService],
  exports: [ReadinessService],
})
export class HealthModule {}
