import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Admin, CurrentTenant } from '../../common/access/access.decorators';
import { ApiProblems } from '../../common/errors/problem.response';
import type { TenantEntity } from '../../tenants/tenant.entity';
import { ListPartnersQueryDto } from './partners.dto';
import { PartnerDetailResponse, PartnerListResponse } from './partners.response';
import { MemberListService } from './member-list.service';

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/users')
export class MemberListAdminController {
  constructor(private readonly partners: MemberListService) {}

  /**
   * The tenant's partners (members), newest first or by `sort`, searched by `q`: a part of the
   * name, email or external id, or a whole `mbr_…` / `usr_…` id. The console's partners page.
   */
  @Get()
  @Admin('viewer')
  @ApiProblems(400, 401, 403, 404)
  list(
    @CurrentTenant() tenant: TenantEntity,
    @Query() query: ListPartnersQueryDto,
  ): Promise<PartnerListResponse> {
    return this.partners.list(tenant.id, query);
  }

  /**
   * One partner (`mbr_…` or `usr_…`): profile, upline chain, first line, links with clicks,
   * leads, bonuses and balances, and the payout details they entered, masked (`payout_details`).
   * The console's partner page.
   */
  @Get(':user_id')
  @Admin('viewer')
  @ApiProblems(401, 403, [404, 'user_not_found'])
  detail(
    @CurrentTenant() tenant: TenantEntity,
    @Param('user_id') userId: string,
  ): Promise<PartnerDetailResponse> {
    return this.partners.detail(tenant.id, userId);
  }
}
