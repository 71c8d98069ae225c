import { type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { OrgPageGuard } from '../admin-pages/org-page.guard';
import { PageFormGuard, PageSecurity } from '../common/http/page-security';
import { OverviewPagesController } from './overview/overview.controller';
import { PartnersAdminController } from './partners/partners-admin.controller';
import { PartnersCsvController } from './partners/partners-csv.controller';
import { PartnersPagesController } from './partners/partners-pages.controller';
import { PartnersRepository } from './partners/partners.repository';
import { PartnersService } from './partners/partners.service';
import { ConsoleRecordsModule } from './records.module';
import {
  PayoutListsCsvController,
  PayoutsCsvPagesController,
} from './payouts/payouts-csv.controller';
import { PayoutsPagesController } from './payouts/payouts-pages.controller';
import { ProgramPagesController } from './program/program-pages.controller';
import { StatsAdminController } from './stats/stats-admin.controller';
import { StatsRepository } from './stats/stats.repository';
import { StatsService } from './stats/stats.service';
import { MembersModule } from '../members/members.module';
import { OffersModule } from '../offers/offers.module';
import { PayoutsModule } from '../payouts/payouts.module';
import { TenantsModule } from '../tenants/tenants.module';
import { TransferModule } from '../transfer/transfer.module';

const PAGE_CONTROLLERS = [
  PartnersCsvController,
  PartnersPagesController,
  OverviewPagesController,
  PayoutsCsvPagesController,
  PayoutListsCsvController,
  PayoutsPagesController,
  ProgramPagesController,
];

/**
 * The program console (docs/console.md): the stats kept as rollups and their API, the
 * overview and partners pages (`/org/:slug`, `/org/:slug/partners`) and their API twins. The
 * pages use the admin pages' session, role guard and CSRF rules (OrgPageGuard, PageFormGuard).
 */
@Module({
  imports: [
    ConsoleRecordsModule,
    MembersModule,
    PayoutsModule,
    OffersModule,
    TenantsModule,
    TransferModule,
  ],
  controllers: [StatsAdminController, PartnersAdminController, ...PAGE_CONTROLLERS],
  providers: [
    StatsRepository,
    StatsService,
    PartnersRepository,
    PartnersService,
    PageSecurity,
    OrgPageGuard,
  ],
  exports: [StatsService],
})
export class ConsoleModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(PageFormGuard).forRoutes(...PAGE_CONTROLLERS);
  }
}
