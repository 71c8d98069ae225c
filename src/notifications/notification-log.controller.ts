import { Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Actor } from '../common/access/actor';
import { Admin, CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import { ApiProblems } from '../common/errors/problem.response';
import type { TenantEntity } from '../tenants/tenant.entity';
import {
  DigestsResponse,
  NotificationListResponse,
  NotificationLogQueryDto,
  NotificationResponse,
} from './dto/notification-log.dto';
import { NotificationLogService } from './notification-log.service';

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/notifications')
export class NotificationLogController {
  constructor(private readonly log: NotificationLogService) {}

  /**
   * The delivery log of partner mail (docs/notifications.md), newest first: each mail's type,
   * status (`queued`, `sent`, `failed`, `suppressed`), address, subject, attempts and last error.
   * `user_id` (`usr_…` or `mbr_…`), `status` and `type` filter it.
   */
  @Get()
  @Admin('viewer')
  @ApiProblems(400, 401, 403, 404)
  list(
    @CurrentTenant() tenant: TenantEntity,
    @Query() query: NotificationLogQueryDto,
  ): Promise<NotificationListResponse> {
    return this.log.list(tenant.id, query);
  }

  /**
   * Sends every digest with something in it now, whatever `digest_hour_utc` says: each member's
   * waiting items become one digest (answered 202: the worker sends them within a second or so).
   */
  @Post('digests')
  @HttpCode(202)
  @Admin('owner')
  @ApiProblems(401, 403, 404)
  digests(@CurrentTenant() tenant: TenantEntity): Promise<DigestsResponse> {
    return this.log.digestsNow(tenant.id);
  }

  /** Queues a mail again at once, with the same Message-ID (audited `notification.resent`). */
  @Post(':notification_id/resend')
  @HttpCode(200)
  @Admin('manager')
  @ApiProblems(401, 403, [404, 'notification_not_found'])
  resend(
    @CurrentTenant() tenant: TenantEntity,
    @Param('notification_id') id: string,
    @CurrentActor() actor: Actor,
  ): Promise<NotificationResponse> {
    return this.log.resend(tenant.id, id, actor);
  }

  /**
   * Lets mail reach an address the SMTP server refused permanently (5xx) again (audited
   * `notification.unsuppressed`).
   */
  @Delete('suppressions/:email')
  @HttpCode(204)
  @Admin('manager')
  @ApiProblems(401, 403, [404, 'suppression_not_found'])
  unsuppress(
    @CurrentTenant() tenant: TenantEntity,
    @Param('email') email: string,
    @CurrentActor() actor: Actor,
  ): Promise<void> {
    return this.log.unsuppress(tenant.id, email, actor);
  }
}
