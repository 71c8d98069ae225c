import { type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { PageFormGuard, PageSecurity } from '../../common/http/page-security';
import { NotificationsModule } from '../../notifications/notifications.module';
import { NotificationsPagesController } from './notifications-pages.controller';

/**
 * The console's partner mail page (docs/notifications.md). Part of ConsoleModule; the same
 * session, role and CSRF rules.
 */
@Module({
  imports: [NotificationsModule],
  controllers: [NotificationsPagesController],
  providers: [PageSecurity],
})
export class ConsoleNotificationsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(PageFormGuard).forRoutes(NotificationsPagesController);
  }
}
