import { type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { BonusesModule } from '../bonuses/bonuses.module';
import { PageFormGuard, PageSecurity } from '../common/http/page-security';
import { TenantsModule } from '../tenants/tenants.module';
import { TransferModule } from '../transfer/transfer.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { AuditLogPagesController } from './audit-log/audit-log.controller';
import { BonusNamesReader } from './bonuses/bonus-names.reader';
import { BonusesPagesController } from './bonuses/bonuses.controller';
import { BonusesCsvController } from './bonuses/bonuses-csv.controller';
import { IntegrationPagesController } from './integration/integration.controller';
import { IntegrationModelReader } from './integration/integration.model';
import { WebhookPagesController } from './integration/webhook.controller';
import { OrgPageGuard } from './org-page.guard';
import { SessionPagesController } from './session/session.controller';

/**
 * One controller (with its views) per area of `/org`: signing in and out, then each area of an
 * organisation (areas.ts lists them for the navigation).
 */
const CONTROLLERS = [
  SessionPagesController,
  IntegrationPagesController,
  WebhookPagesController,
  BonusesPagesController,
  BonusesCsvController,
  AuditLogPagesController,
];

/** The organisation admin area (docs/architecture.md), over the same services as the admin API. */
@Module({
  imports: [TenantsModule, WebhooksModule, BonusesModule, AuditModule, TransferModule],
  controllers: CONTROLLERS,
  providers: [PageSecurity, OrgPageGuard, IntegrationModelReader, BonusNamesReader],
})
export class AdminPagesModule implements NestModule {
  /** Every post of the pages must be a plain form from the service's own origin. */
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(PageFormGuard).forRoutes(...CONTROLLERS);
  }
}
