import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { DeeplinksModule } from '../deeplinks/deeplinks.module';
import { GroupsModule } from '../groups/groups.module';
import { MailModule } from '../mail/mail.module';
import { MembersModule } from '../members/members.module';
import { ApplicationsAdminController } from './applications-admin.controller';
import { ApplicationsEmbedController } from './applications-embed.controller';
import { ApplicationsRepository } from './applications.repository';
import { ApplicationsService } from './applications.service';

/**
 * Partner applications (docs/partners.md, "Applications"): the Embed endpoint, the hosted join and
 * confirmation pages, and the staff's Admin API. ApplicationsService is exported for the console.
 */
@Module({
  imports: [AuditModule, DeeplinksModule, GroupsModule, MailModule, MembersModule],
  controllers: [ApplicationsEmbedController, ApplicationsAdminController],
  providers: [ApplicationsRepository, ApplicationsService],
  exports: [ApplicationsService],
})
export class ApplicationsModule {}
