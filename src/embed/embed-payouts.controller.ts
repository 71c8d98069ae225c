import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentTenant, EmbedOrigin } from '../common/access/access.decorators';
import { RateLimit } from '../access/rate-limits';
import { ApiProblems } from '../common/errors/problem.response';
import { EmbedPageQueryDto } from './dto/embed-queries.dto';
import { FastLane } from '../fast-lanes/fast-lane.decorator';
import type { TenantEntity } from '../tenants/tenant.entity';
import { EmbedPayoutsResponse } from './dto/embed-payouts.response';
import { EmbedPayoutsService } from './embed-payouts.service';
import { EMBED_READ_PROBLEMS } from './embed-data.controller';

/** The widgets' payout history: gated like every Embed Data read, and a fast lane like them. */
@ApiTags('embed')
@Controller('embed/v1/data')
@EmbedOrigin()
@RateLimit('embed')
export class EmbedPayoutsController {
  constructor(private readonly embed: EmbedPayoutsService) {}

  /** The partner's payouts, newest first. */
  @Get('payouts/:user_id')
  @FastLane()
  @ApiProblems(...EMBED_READ_PROBLEMS)
  payouts(
    @CurrentTenant() tenant: TenantEntity,
    @Param('user_id') userId: string,
    @Query() query: EmbedPageQueryDto,
  ): Promise<EmbedPayoutsResponse> {
    return this.embed.history(tenant, userId, query);
  }
}
