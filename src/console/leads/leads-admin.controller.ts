import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Admin, CurrentTenant } from '../../common/access/access.decorators';
import { ApiProblems } from '../../common/errors/problem.response';
import type { TenantEntity } from '../../tenants/tenant.entity';
import { ListLeadsQueryDto } from './leads.dto';
import { LeadListResponse } from './leads.response';
import { LeadListReader } from '../read-model/lead-list.reader';

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/leads')
export class LeadsListAdminController {
  constructor(private readonly leads: LeadListReader) {}

  /**
   * The tenant's leads, newest first, each with its partner (the referrer); filtered by
   * `status`, `source`, `user_id` and the UTC days `from`…`to` (both inclusive). The console's
   * leads page.
   */
  @Get()
  @Admin('viewer')
  @ApiProblems(400, 401, 403, 404)
  list(
    @CurrentTenant() tenant: TenantEntity,
    @Query() query: ListLeadsQueryDto,
  ): Promise<LeadListResponse> {
    return this.leads.list(tenant.id, query);
  }
}
