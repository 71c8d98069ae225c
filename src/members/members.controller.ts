import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentTenant, TenantKey } from '../common/access/access.decorators';
import { RateLimit } from '../access/rate-limits';
import { ApiProblems } from '../common/errors/problem.response';
import type { TenantEntity } from '../tenants/tenant.entity';
import { UpsertUserDto } from './dto/upsert-user.dto';
import { UpsertUserResponse } from './dto/upsert-user.response';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { MembersService } from './members.service';

@ApiTags('federation')
@Controller('federation/v1/users')
export class MembersController {
  constructor(private readonly members: MembersService) {}

  /**
   * Creates or updates a user by the tenant's `external_id`, optionally naming their referrer.
   */
  @Post('upsert')
  @HttpCode(200)
  @TenantKey()
  @RateLimit('federation')
  @Idempotent()
  @ApiProblems(
    400,
    [401, 'invalid_tenant_key'],
    [404, 'referrer_not_found'],
    [404, 'group_not_found'],
    [422, 'referral_cycle'],
    [422, 'invalid_ref'],
    [422, 'ref_expired'],
  )
  upsert(
    @CurrentTenant() tenant: TenantEntity,
    @Body() dto: UpsertUserDto,
  ): Promise<UpsertUserResponse> {
    return this.members.upsert(tenant.id, dto, tenant.attributionWindowDays);
  }
}
