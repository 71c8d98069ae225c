import { type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { PageFormGuard, PageSecurity } from '../common/http/page-security';
import { DeeplinksModule } from '../deeplinks/deeplinks.module';
import { GroupsModule } from '../groups/groups.module';
import { MailModule } from '../mail/mail.module';
import { MembersModule } from '../members/members.module';
import { TenantsModule } from '../tenants/tenants.module';
import { ApplicationsAdminController } from './applications-admin.controller';
import { ApplicationsEmbedController } from './applications-embed.controller';
import { ApplicationsRepository } from './applications.repository';
import { ApplicationsService } from './applications.service';
import { JoinPagesController } from './join-pages.controller';

/**
 * Partner applications (docs/partners.md, "Applications"): the Embed endpoint, the hosted join and
 * confirmation pages, and the staff's Admin API. ApplicationsService is exported for the console.
 */
@Module({
  imports: [AuditModule, DeeplinksModule, GroupsModule, MailModule, MembersModule, TenantsModule],
  controllers: [ApplicationsEmbedController, ApplicationsAdminController, JoinPagesController],
  providers: [ApplicationsRepository, ApplicationsService, PageSecurity],
  exports: [ApplicationsService],
})
export class ApplicationsModule implements NestModule {
  /** Every post of the join pages must be a plain form from the service's own origin. */
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(PageFormGuard).forRoutes(JoinPagesController);
  }
}
