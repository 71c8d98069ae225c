import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Actor } from '../common/access/actor';
import { Admin, CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import { ApiProblems } from '../common/errors/problem.response';
import type { TenantEntity } from '../tenants/tenant.entity';
import {
  CustomersErasedResponse,
  EraseCustomerDto,
  MemberErasedResponse,
  PersonalDataResponse,
} from './dto/privacy.dto';
import { PrivacyService } from './privacy.service';

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug')
export class PrivacyController {
  constructor(private readonly privacy: PrivacyService) {}

  /**
   * Erases a member's personal data in this tenant (docs/privacy.md): the member stays a
   * deactivated tombstone (`erased: true`) with ids, tree position, group, bonuses, ledger and
   * payouts unchanged; their values are gone from every table, stored events and idempotent
   * answers included; their links answer 410 `link_disabled`; emits `member.erased`. Asked again:
   * the same answer. `user_id` is `mbr_…` or `usr_…`.
   */
  @Post('users/:user_id/erase')
  @HttpCode(200)
  @Admin('owner')
  @ApiProblems(401, 403, [404, 'user_not_found'])
  erase(
    @CurrentTenant() tenant: TenantEntity,
    @Param('user_id') userId: string,
    @CurrentActor() actor: Actor,
  ): Promise<MemberErasedResponse> {
    return this.privacy.eraseMember(tenant.id, userId, actor);
  }

  /**
   * Every personal field the service holds about the member in this tenant, as JSON (the
   * subject-access export, docs/privacy.md).
   */
  @Get('users/:user_id/personal-data')
  @Admin('owner')
  @ApiProblems(401, 403, [404, 'user_not_found'])
  personalData(
    @CurrentTenant() tenant: TenantEntity,
    @Param('user_id') userId: string,
  ): Promise<PersonalDataResponse> {
    return this.privacy.personalData(tenant.id, userId);
  }

  /**
   * Erases a referred customer (docs/privacy.md): the contact of every lead of this tenant whose
   * email, phone (by its digits) or `customer.external_id` matches, the client data of their
   * conversions, and the same values inside stored events and answers. Counts what matched.
   */
  @Post('customers/erase')
  @HttpCode(200)
  @Admin('owner')
  @ApiProblems(400, 401, 403)
  eraseCustomer(
    @CurrentTenant() tenant: TenantEntity,
    @Body() dto: EraseCustomerDto,
    @CurrentActor() actor: Actor,
  ): Promise<CustomersErasedResponse> {
    return this.privacy.eraseCustomer(tenant.id, dto, actor);
  }
}
