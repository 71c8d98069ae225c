import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Actor } from '../common/access/actor';
import { Admin, CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import { ApiProblems } from '../common/errors/problem.response';
import type { TenantEntity } from '../tenants/tenant.entity';
import { BonusesService } from './bonuses.service';
import {
  CreateManualBonusDto,
  ListBonusesQueryDto,
  RejectBonusDto,
} from './dto/bonus-requests.dto';
import { BonusListResponse, BonusResponse } from './dto/bonus.response';

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/bonuses')
export class BonusesAdminController {
  constructor(private readonly bonuses: BonusesService) {}

  /**
   * The tenant's bonuses, newest first, filtered by status, partner and creation time:
   * `created_from` inclusive, `created_to` exclusive (`created_from <= created_at < created_to`).
   */
  @Get()
  @Admin('viewer')
  @ApiProblems(400, 401, 403, 404)
  list(
    @CurrentTenant() tenant: TenantEntity,
    @Query() query: ListBonusesQueryDto,
  ): Promise<BonusListResponse> {
    return this.bonuses.list(tenant.id, query);
  }

  /**
   * A manual bonus or (negative) adjustment, pending like any other. One that would take the
   * tenant's money past the safe range (every sum exact below 2^53 kopecks): 422
   * `amount_out_of_range` (docs/money.md).
   */
  @Post()
  @Admin('manager')
  @ApiProblems(400, 401, 403, [404, 'user_not_found'], [422, 'amount_out_of_range'])
  create(
    @CurrentTenant() tenant: TenantEntity,
    @Body() dto: CreateManualBonusDto,
    @CurrentActor() actor: Actor,
  ): Promise<BonusResponse> {
    return this.bonuses.createManual(tenant, dto, actor);
  }

  /** Approves a pending bonus; emits bonus.approved once however often it is clicked. */
  @Post(':bonus_id/approve')
  @HttpCode(200)
  @Admin('manager')
  @ApiProblems(401, 403, [404, 'bonus_not_found'], [409, 'invalid_transition'])
  approve(
    @CurrentTenant() tenant: TenantEntity,
    @Param('bonus_id') bonusId: string,
    @CurrentActor() actor: Actor,
  ): Promise<BonusResponse> {
    return this.bonuses.approve(tenant.id, bonusId, actor);
  }

  /** Rejects a pending bonus with a reason; emits bonus.rejected. */
  @Post(':bonus_id/reject')
  @HttpCode(200)
  @Admin('manager')
  @ApiProblems(400, 401, 403, [404, 'bonus_not_found'], [409, 'invalid_transition'])
  reject(
    @CurrentTenant() tenant: TenantEntity,
    @Param('bonus_id') bonusId: string,
    @Body() dto: RejectBonusDto,
    @CurrentActor() actor: Actor,
  ): Promise<BonusResponse> {
    return this.bonuses.reject(tenant.id, bonusId, dto.reason, actor);
  }
}
