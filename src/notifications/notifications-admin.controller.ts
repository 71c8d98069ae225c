import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Actor } from '../common/access/actor';
import { Admin, CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import { ApiProblems } from '../common/errors/problem.response';
import type { TenantEntity } from '../tenants/tenant.entity';
import {
  NotificationPreferencesResponse,
  UpdateNotificationPreferencesDto,
} from './dto/notification-preferences.dto';
import { NotificationsService } from './notifications.service';

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/users/:user_id/notifications')
export class NotificationsAdminController {
  constructor(private readonly notifications: NotificationsService) {}

  /**
   * A member's (`usr_…` or `mbr_…`) mode of every partner mail type: `instant`, `daily` (the
   * digest) or `off`, the defaults included (docs/partners.md, "Notifications").
   */
  @Get()
  @Admin('viewer')
  @ApiProblems(401, 403, [404, 'user_not_found'])
  get(
    @CurrentTenant() tenant: TenantEntity,
    @Param('user_id') userId: string,
  ): Promise<NotificationPreferencesResponse> {
    return this.notifications.forUser(tenant.id, userId);
  }

  /**
   * Sets the modes of the types given (the others keep theirs; audited). An unknown type or mode
   * is 400 `validation_failed` naming `preferences.<type>`, and nothing changes.
   */
  @Put()
  @Admin('manager')
  @ApiProblems(400, 401, 403, [404, 'user_not_found'])
  update(
    @CurrentTenant() tenant: TenantEntity,
    @Param('user_id') userId: string,
    @Body() dto: UpdateNotificationPreferencesDto,
    @CurrentActor() actor: Actor,
  ): Promise<NotificationPreferencesResponse> {
    return this.notifications.update(tenant.id, userId, dto.preferences, actor);
  }
}
