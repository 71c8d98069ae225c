import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Admin, CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import type { Actor } from '../common/access/actor';
import { ApiProblems } from '../common/errors/problem.response';
import type { TenantEntity } from '../tenants/tenant.entity';
import { BansService } from './bans.service';
import { BanPartnerDto, BanResponse } from './dto/ban.dto';

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/users/:user_id')
export class BansController {
  constructor(private readonly bans: BansService) {}

  /**
   * Bans a partner (docs/fraud.md): deactivates them, rejects every pending bonus of theirs
   * (reason `partner_banned`, each emitting bonus.rejected), disables their short links (410
   * `link_disabled`); later leads and conversions pay them nothing. `user_id` is `mbr_…` or
   * `usr_…`. Audited.
   */
  @Post('ban')
  @HttpCode(200)
  @Admin('manager')
  @ApiProblems(400, 401, 403, [404, 'user_not_found'])
  ban(
    @CurrentTenant() tenant: TenantEntity,
    @Param('user_id') userId: string,
    @Body() dto: BanPartnerDto,
    @CurrentActor() actor: Actor,
  ): Promise<BanResponse> {
    return this.bans.ban(tenant.id, userId, dto.reason, actor);
  }

  /** Lifts a ban: the member is active and their links work again; nothing rejected comes back. */
  @Post('unban')
  @HttpCode(200)
  @Admin('manager')
  @ApiProblems(401, 403, [404, 'user_not_found'])
  unban(
    @CurrentTenant() tenant: TenantEntity,
    @Param('user_id') userId: string,
    @CurrentActor() actor: Actor,
  ): Promise<BanResponse> {
    return this.bans.unban(tenant.id, userId, actor);
  }
}
