import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Admin, CurrentTenant } from '../common/access/access.decorators';
import { ApiProblems } from '../common/errors/problem.response';
import type { TenantEntity } from '../tenants/tenant.entity';
import { BacktestService } from './backtest.service';
import { BacktestDto, BacktestResponse } from './dto/backtest.dto';

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/program')
export class BacktestController {
  constructor(private readonly backtest: BacktestService) {}

  /**
   * What a draft program would have paid (docs/money.md §2, "Backtest"): the conversions registered
   * in the period (UTC days, inclusive, at most 366) that the draft would govern, replayed in
   * registration order over today's trees, beside what they paid, with the 20 partners whose pay
   * changes most. Writes nothing.
   */
  @Post('backtest')
  @HttpCode(200)
  @Admin('viewer')
  @ApiProblems(400, 401, 403, [404, 'group_not_found'], [404, 'offer_not_found'])
  run(@CurrentTenant() tenant: TenantEntity, @Body() dto: BacktestDto): Promise<BacktestResponse> {
    return this.backtest.run(tenant, dto);
  }
}
