import { Body, Controller, Get, Patch, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Actor } from '../common/access/actor';
import { Admin, CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import { ApiProblems } from '../common/errors/problem.response';
import { CreateTenantDto } from './dto/create-tenant.dto';
import { CreatedTenantResponse, TenantResponse } from './dto/tenant.response';
import { UpdateTenantDto } from './dto/update-tenant.dto';
import type { TenantEntity } from './tenant.entity';
import { TenantsService } from './tenants.service';

@ApiTags('admin')
@Controller('admin/v1/tenants')
export class TenantsController {
  constructor(private readonly tenants: TenantsService) {}

  /** Creates a tenant and its first Federation API key (shown once). Platform admin only. */
  @Post()
  @Admin('platform')
  @ApiProblems(400, 401, 403, [409, 'conflict'])
  create(
    @Body() dto: CreateTenantDto,
    @CurrentActor() actor: Actor,
  ): Promise<CreatedTenantResponse> {
    return this.tenants.create(dto, actor);
  }

  /** The tenant's settings; never a secret. */
  @Get(':slug')
  @Admin('viewer')
  @ApiProblems(401, 403, 404)
  get(@CurrentTenant() tenant: TenantEntity): TenantResponse {
    return this.tenants.get(tenant);
  }

  /** Changes any field but `slug`. */
  @Patch(':slug')
  @Admin('owner')
  @ApiProblems(400, 401, 403, 404)
  update(
    @CurrentTenant() tenant: TenantEntity,
    @Body() dto: UpdateTenantDto,
    @CurrentActor() actor: Actor,
  ): Promise<TenantResponse> {
    return this.tenants.update(tenant, dto, actor);
  }
}
