import { type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { BonusesModule } from '../bonuses/bonuses.module';
import { PageFormGuard, PageSecurity } from '../common/http/page-security';
import { TenantsModule } from '../tenants/tenants.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { AdminPagesController } from './admin-pages.controller';
import { AdminSessionsService } from './admin-sessions.service';

/** The organisation admin area (SPEC 8), over the same services as the admin API. */
@Module({
  imports: [TenantsModule, WebhooksModule, BonusesModule, AuditModule],
  controllers: [AdminPagesController],
  providers: [AdminSessionsService, PageSecurity],
})
export class AdminPagesModule implements NestModule {
  /** Every post of the pages must be a plain form from the service's own origin. */
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(PageFormGuard).forRoutes(AdminPagesController);
  }
}
