import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Actor } from '../common/access/actor';
import { Admin, CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import { ApiProblems } from '../common/errors/problem.response';
import type { TenantEntity } from '../tenants/tenant.entity';
import { MemberStatusResponse } from './dto/member-status.response';
import { MembersService } from './members.service';

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/users/:user_id')
export class MembersAdminController {
  constructor(private readonly members: MembersService) {}

  /**
   * Deactivates a member: the cascade skips them from now on. `user_id` is either of the
   * member's ids, `usr_…` or `mbr_…`.
   */
  @Post('deactivate')
  @HttpCode(200)
  @Admin('manager')
  @ApiProblems(401, 403, [404, 'user_not_found'])
  deactivate(
    @CurrentTenant() tenant: TenantEntity,
    @Param('user_id') userId: string,
    @CurrentActor() actor: Actor,
  ): Promise<MemberStatusResponse> {
    return this.members.setActive(tenant.id, userId, false, actor);
  }

  /**
   * Activates a deactivated member again. A banned member is refused with 409 `user_banned`:
   * lift the ban with `POST …/unban` (docs/fraud.md, "Bans").
   */
  @Post('activate')
  @HttpCode(200)
  @Admin('manager')
  @ApiProblems(401, 403, [404, 'user_not_found'], [409, 'user_banned'])
  activate(
    @CurrentTenant() tenant: TenantEntity,
    @Param('user_id') userId: string,
    @CurrentActor() actor: Actor,
  ): Promise<MemberStatusResponse> {
    return this.members.setActive(tenant.id, userId, true, actor);
  }
}
