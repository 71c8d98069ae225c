import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { BonusesModule } from '../bonuses/bonuses.module';
import { TenantsModule } from '../tenants/tenants.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { AdminPagesController } from './admin-pages.controller';
import { AdminSessionsService } from './admin-sessions.service';

/** The organisation admin area (SPEC 8), over the same services as the admin API. */
@Module({
  imports: [TenantsModule, WebhooksModule, BonusesModule, AuditModule],
  controllers: [AdminPagesController],
  providers: [AdminSessionsService],
})
export class AdminPagesModule {}
