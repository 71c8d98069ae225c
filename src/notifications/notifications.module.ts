import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { MembersModule } from '../members/members.module';
import { NotificationPreferencesRepository } from './notification-preferences.repository';
import { NotificationsAdminController } from './notifications-admin.controller';
import { NotificationsService } from './notifications.service';

/**
 * Partner notifications (docs/partners.md, "Notifications"): each member's preferences per mail
 * type, read and set by staff (Admin API) and by the partner (the portal).
 */
@Module({
  imports: [AuditModule, MembersModule],
  controllers: [NotificationsAdminController],
  providers: [NotificationPreferencesRepository, NotificationsService],
  exports: [NotificationsService],
})
export class NotificationsModule {}
