import { type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { BacktestModule } from '../backtest/backtest.module';
import { ProgramBacktests } from './program/backtest-cache';
import { AuditModule } from '../audit/audit.module';
import { BonusesModule } from '../bonuses/bonuses.module';
import { PageFormGuard, PageSecurity } from '../common/http/page-security';
import { MembersModule } from '../members/members.module';
import { OffersModule } from '../offers/offers.module';
import { PayoutsModule } from '../payouts/payouts.module';
import { TenantsModule } from '../tenants/tenants.module';
import { TransferModule } from '../transfer/transfer.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { ConsoleApplicationsModule } from './applications/applications-pages.module';
import { ConsoleBountiesModule } from './bounties/bounties-pages.module';
import { ConsoleNotificationsModule } from './notifications/notifications-pages.module';
import { AuditLogPagesController } from './audit-log/audit-log.controller';
import { BonusesCsvController } from './bonuses/bonuses-csv.controller';
import { BonusesPagesController } from './bonuses/bonuses.controller';
import { IntegrationPagesController } from './integration/integration.controller';
import { IntegrationModelReader } from './integration/integration.model';
import { WebhookPagesController } from './integration/webhook.controller';
import { MemberListAdminController } from './members/member-list-admin.controller';
import { MembersCsvController } from './members/members-csv.controller';
import { MembersPagesController } from './members/members-pages.controller';
import { MemberListService } from './members/member-list.service';
import { OverviewPagesController } from './overview/overview.controller';
import {
  PayoutListsCsvController,
  PayoutsCsvPagesController,
} from './payouts/payouts-csv.controller';
import { PayoutsPagesController } from './payouts/payouts-pages.controller';
import { ProgramPagesController } from './program/program-pages.controller';
import { BonusNamesReader } from './read-model/bonus-names.reader';
import { MemberListReader } from './read-model/members.reader';
import { StatsReader } from './read-model/stats.reader';
import { ConsoleRecordsModule } from './records.module';
import { SessionPagesController } from './session/session.controller';
import { StatsAdminController } from './stats/stats-admin.controller';
import { StatsService } from './stats/stats.service';

/** The pages of /org: signing in and out, then one controller (with its views and words) per area. */
const PAGE_CONTROLLERS = [
  SessionPagesController,
  OverviewPagesController,
  MembersCsvController,
  MembersPagesController,
  ProgramPagesController,
  PayoutsPagesController,
  PayoutsCsvPagesController,
  PayoutListsCsvController,
  BonusesPagesController,
  BonusesCsvController,
  IntegrationPagesController,
  WebhookPagesController,
  AuditLogPagesController,
];

/**
 * The console (docs/console.md): every page of /org (staff), from signing in to each area of an
 * organisation, the stats kept as rollups and the API twins of its lists (GET …/stats, …/users).
 * The records' pages (conversions, leads, the ban form) are ConsoleRecordsModule, imported here.
 * Pages and actions declare the `org-page` policy (`@OrgView`, `@OrgAction`, `@OrgDownload`),
 * which the global guard checks, and PageFormGuard's form rules; what they read of other
 * features' tables is read-model/'s.
 */
@Module({
  imports: [
    BacktestModule,
    ConsoleRecordsModule,
    ConsoleApplicationsModule,
    ConsoleBountiesModule,
    ConsoleNotificationsModule,
    AuditModule,
    BonusesModule,
    MembersModule,
    OffersModule,
    PayoutsModule,
    TenantsModule,
    TransferModule,
    WebhooksModule,
  ],
  controllers: [StatsAdminController, MemberListAdminController, ...PAGE_CONTROLLERS],
  providers: [
    ProgramBacktests,
    StatsReader,
    StatsService,
    MemberListReader,
    MemberListService,
    BonusNamesReader,
    IntegrationModelReader,
    PageSecurity,
  ],
  exports: [StatsService],
})
export class ConsoleModule implements NestModule {
  /** Every post of the pages must be a plain form from the service's own origin. */
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(PageFormGuard).forRoutes(...PAGE_CONTROLLERS);
  }
}
