import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Admin, CurrentTenant } from '../../common/access/access.decorators';
import { ApiProblems } from '../../common/errors/problem.response';
import type { TenantEntity } from '../../tenants/tenant.entity';
import { ListConversionsQueryDto } from './conversions.dto';
import { ConversionDetailResponse, ConversionListResponse } from './conversions.response';
import { ConversionListReader } from '../read-model/conversion-list.reader';

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/conversions')
export class ConversionsListAdminController {
  constructor(private readonly conversions: ConversionListReader) {}

  /**
   * The tenant's conversions, newest first, each with its partner (the lead's referrer), the
   * customer (the lead's contact name) and its commission (bonuses neither rejected nor
   * reversed); filtered by `status`, `user_id` and the UTC days `from`…`to` (both inclusive).
   * The console's conversions page.
   */
  @Get()
  @Admin('viewer')
  @ApiProblems(400, 401, 403, 404)
  list(
    @CurrentTenant() tenant: TenantEntity,
    @Query() query: ListConversionsQueryDto,
  ): Promise<ConversionListResponse> {
    return this.conversions.list(tenant.id, query);
  }

  /**
   * One conversion with its cascade: every bonus it created (tier, partner, amount, status),
   * referrer first. The console's conversion page.
   */
  @Get(':conversion_id')
  @Admin('viewer')
  @ApiProblems(401, 403, [404, 'conversion_not_found'])
  detail(
    @CurrentTenant() tenant: TenantEntity,
    @Param('conversion_id') conversionId: string,
  ): Promise<ConversionDetailResponse> {
    return this.conversions.detail(tenant.id, conversionId);
  }
}
