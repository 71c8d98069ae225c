import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Actor } from '../common/access/actor';
import { Admin, CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import { ApiProblems } from '../common/errors/problem.response';
import {
  CreatedStaffTokenResponse,
  CreateStaffTokenDto,
  StaffTokenListResponse,
} from './dto/staff-token.dto';
import { TenantCredentialsService } from './tenant-credentials.service';
import type { TenantEntity } from './tenant.entity';

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/staff-tokens')
export class StaffTokensController {
  constructor(private readonly credentials: TenantCredentialsService) {}

  /** Issues a staff token (`stf_…`) scoped to this tenant, shown once. */
  @Post()
  @Admin('owner')
  @ApiProblems(400, 401, 403, 404)
  create(
    @CurrentTenant() tenant: TenantEntity,
    @Body() dto: CreateStaffTokenDto,
    @CurrentActor() actor: Actor,
  ): Promise<CreatedStaffTokenResponse> {
    return this.credentials.createStaffToken(tenant.id, dto, actor);
  }

  /** The tenant's staff tokens (extends README.md, "API overview"); never the secret. */
  @Get()
  @Admin('owner')
  @ApiProblems(401, 403, 404)
  list(@CurrentTenant() tenant: TenantEntity): Promise<StaffTokenListResponse> {
    return this.credentials.listStaffTokens(tenant.id);
  }

  /** Revokes a staff token; it stops working at once (extends README.md, "API overview"). */
  @Delete(':token_id')
  @HttpCode(204)
  @Admin('owner')
  @ApiProblems(401, 403, [404, 'not_found'])
  revoke(
    @CurrentTenant() tenant: TenantEntity,
    @Param('token_id') tokenId: string,
    @CurrentActor() actor: Actor,
  ): Promise<void> {
    return this.credentials.revokeStaffToken(tenant.id, tokenId, actor);
  }
}
