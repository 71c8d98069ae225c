import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { MailModule } from '../mail/mail.module';
import { MembersModule } from '../members/members.module';
import { MailRetention } from './mail/mail-retention';
import { MailScanRepository } from './mail/mail-scan.repository';
import { MailScanner } from './mail/mail-scanner';
import { MailSender } from './mail/mail-sender';
import { MailWorker } from './mail/mail-worker';
import { MailPrivacyRepository } from './mail/mail-privacy.repository';
import { NotificationLogRepository } from './mail/notification-log.repository';
import { NotificationPreferencesRepository } from './notification-preferences.repository';
import { NotificationLogController } from './notification-log.controller';
import { NotificationLogService } from './notification-log.service';
import { NotificationsAdminController } from './notifications-admin.controller';
import { UnsubscribeController } from './unsubscribe.controller';
import { NotificationsService } from './notifications.service';

/**
 * Partner notifications (docs/notifications.md): each member's preferences per mail type, read
 * and set by staff (Admin API) and by the partner (the portal); the delivery log, digests and
 * one-click unsubscribe.
 */
@Module({
  imports: [AuditModule, MembersModule, MailModule],
  controllers: [NotificationsAdminController, NotificationLogController, UnsubscribeController],
  providers: [
    NotificationPreferencesRepository,
    NotificationsService,
    NotificationLogRepository,
    MailScanRepository,
    MailScanner,
    MailSender,
    NotificationLogService,
    MailRetention,
    MailPrivacyRepository,
  ],
  exports: [NotificationsService, NotificationLogService, MailScanner, MailSender],
})
export class NotificationsModule {}

/** Reads the outbox into mail and sends it: worker processes only. */
@Module({ imports: [NotificationsModule], providers: [MailWorker] })
export class NotificationsWorkerModule {}
