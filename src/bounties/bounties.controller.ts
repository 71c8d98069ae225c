import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Actor } from '../common/access/actor';
import { Admin, CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import { ApiProblems } from '../common/errors/problem.response';
import { PageQueryDto } from '../common/http/pagination.dto';
import type { TenantEntity } from '../tenants/tenant.entity';
import { BountiesService } from './bounties.service';
import { CreateBountyDto, UpdateBountyDto } from './dto/bounty-requests.dto';
import { BountyListResponse, BountyProgressResponse, BountyResponse } from './dto/bounty.response';

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug')
export class BountiesController {
  constructor(private readonly bounties: BountiesService) {}

  /**
   * Creates a bounty (docs/money.md, "Bounties"): one bonus to each partner (of `group_id`, or
   * any) whose own referred conversions in [`starts_at`, `ends_at`) reach `threshold`. Audited.
   */
  @Post('bounties')
  @Admin('manager')
  @ApiProblems(400, 401, 403, [404, 'group_not_found'])
  create(
    @CurrentTenant() tenant: TenantEntity,
    @Body() dto: CreateBountyDto,
    @CurrentActor() actor: Actor,
  ): Promise<BountyResponse> {
    return this.bounties.create(tenant.id, dto, actor);
  }

  /** The tenant's bounties, newest first, each with how many partners reached it. */
  @Get('bounties')
  @Admin('viewer')
  @ApiProblems(400, 401, 403, 404)
  list(
    @CurrentTenant() tenant: TenantEntity,
    @Query() query: PageQueryDto,
  ): Promise<BountyListResponse> {
    return this.bounties.list(tenant.id, query);
  }

  /** One bounty. */
  @Get('bounties/:bounty_id')
  @Admin('viewer')
  @ApiProblems(401, 403, [404, 'bounty_not_found'])
  get(
    @CurrentTenant() tenant: TenantEntity,
    @Param('bounty_id') bountyId: string,
  ): Promise<BountyResponse> {
    return this.bounties.getResponse(tenant.id, bountyId);
  }

  /**
   * Renames a bounty or moves its end: `ends_at` now ends it, null makes it open-ended. Partners
   * who reached it keep their bonus. Audited.
   */
  @Patch('bounties/:bounty_id')
  @Admin('manager')
  @ApiProblems(400, 401, 403, [404, 'bounty_not_found'])
  update(
    @CurrentTenant() tenant: TenantEntity,
    @Param('bounty_id') bountyId: string,
    @Body() dto: UpdateBountyDto,
    @CurrentActor() actor: Actor,
  ): Promise<BountyResponse> {
    return this.bounties.update(tenant.id, bountyId, dto, actor);
  }

  /**
   * Each partner's progress, furthest first: the partners it applies to with some progress, and
   * everyone who reached it (whose `value` may since have dropped below by reversals).
   */
  @Get('bounties/:bounty_id/progress')
  @Admin('viewer')
  @ApiProblems(400, 401, 403, [404, 'bounty_not_found'])
  progress(
    @CurrentTenant() tenant: TenantEntity,
    @Param('bounty_id') bountyId: string,
    @Query() query: PageQueryDto,
  ): Promise<BountyProgressResponse> {
    return this.bounties.progress(tenant.id, bountyId, query);
  }
}
