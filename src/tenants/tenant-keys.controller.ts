import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Actor } from '../common/access/actor';
import { Admin, CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import { ApiProblems } from '../common/errors/problem.response';
import {
  CreatedTenantKeyResponse,
  CreateTenantKeyDto,
  TenantKeyListResponse,
} from './dto/tenant-key.dto';
import { TenantCredentialsService } from './tenant-credentials.service';
import type { TenantEntity } from './tenant.entity';

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/keys')
export class TenantKeysController {
  constructor(private readonly credentials: TenantCredentialsService) {}

  /** Issues a Federation API key, shown once. At most two are active, so rotation can overlap. */
  @Post()
  @Admin('owner')
  @ApiProblems(400, 401, 403, 404, [409, 'conflict'])
  create(
    @CurrentTenant() tenant: TenantEntity,
    @Body() dto: CreateTenantKeyDto,
    @CurrentActor() actor: Actor,
  ): Promise<CreatedTenantKeyResponse> {
    return this.credentials.createKey(tenant.id, dto.name, actor);
  }

  /** The tenant's keys by name and creation date; never the secret. */
  @Get()
  @Admin('owner')
  @ApiProblems(401, 403, 404)
  list(@CurrentTenant() tenant: TenantEntity): Promise<TenantKeyListResponse> {
    return this.credentials.listKeys(tenant.id);
  }

  /** Revokes a key; it stops working at once. */
  @Delete(':key_id')
  @HttpCode(204)
  @Admin('owner')
  @ApiProblems(401, 403, [404, 'not_found'])
  revoke(
    @CurrentTenant() tenant: TenantEntity,
    @Param('key_id') keyId: string,
    @CurrentActor() actor: Actor,
  ): Promise<void> {
    return this.credentials.revokeKey(tenant.id, keyId, actor);
  }
}
