import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Admin, CurrentTenant } from '../../common/access/access.decorators';
import { ApiProblems } from '../../common/errors/problem.response';
import type { TenantEntity } from '../../tenants/tenant.entity';
import { StatsQueryDto } from './stats.dto';
import { StatsResponse } from './stats.response';
import { resolvePeriod, StatsService } from './stats.service';

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/stats')
export class StatsAdminController {
  constructor(private readonly stats: StatsService) {}

  /**
   * The program's numbers for a period of UTC days (`from`, `to`, both inclusive; default the
   * last 30 days; days between 2000-01-01 and 2100-12-31, at most 731 of them, else 400): totals, one item per day (zeros included), the funnel and the top
   * 10 partners by commission. What the console's overview shows, read from daily rollups kept
   * as the data changes (docs/console.md). Money in the tenant's currency.
   */
  @Get()
  @Admin('viewer')
  @ApiProblems(400, 401, 403, 404)
  get(
    @CurrentTenant() tenant: TenantEntity,
    @Query() query: StatsQueryDto,
  ): Promise<StatsResponse> {
    return this.stats.stats(tenant, resolvePeriod(query));
  }
}
