import { Controller, Get, Module, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { TerminusModule } from '@nestjs/terminus';
import { PrometheusController, PrometheusModule } from '@willsoto/nestjs-prometheus';
import type { Response } from 'express';
import { Public } from '../common/auth/auth.decorators';
import { HealthController } from './health.controller';
import { ReadinessService } from './readiness.service';

/** Prometheus text format for scrapers: default process metrics plus the HTTP metrics. */
@ApiExcludeController()
@Controller()
export class MetricsController extends PrometheusController {
  @Get()
  @Public()
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
