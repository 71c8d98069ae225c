import { type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { BonusesModule } from '../bonuses/bonuses.module';
import { BountiesModule } from '../bounties/bounties.module';
import { PageFormGuard, PageSecurity } from '../common/http/page-security';
import { ConversionsModule } from '../conversions/conversions.module';
import { DeeplinksModule } from '../deeplinks/deeplinks.module';
import { LeadsModule } from '../leads/leads.module';
import { MembersModule } from '../members/members.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { PayoutsModule } from '../payouts/payouts.module';
import { SignInPopupModule } from '../sign-in-popup/sign-in-popup.module';
import { TenantsModule } from '../tenants/tenants.module';
import { PortalActivityRepository } from './portal-activity.repository';
import { PortalSessions } from './portal-session';
import { PortalController } from './portal.controller';
import { PortalService } from './portal.service';

/**
 * The partner portal, `/p/<slug>` (docs/partners.md): built on the sign-in service of the popup,
 * the page frame of pages/, and the services of the features whose data it shows. No feature
 * imports it.
 */
@Module({
  imports: [
    TenantsModule,
    MembersModule,
    SignInPopupModule,
    LeadsModule,
    BonusesModule,
    BountiesModule,
    ConversionsModule,
    PayoutsModule,
    DeeplinksModule,
    NotificationsModule,
  ],
  controllers: [PortalController],
  providers: [PortalSessions, PortalService, PortalActivityRepository, PageSecurity],
})
export class PortalModule implements NestModule {
  /** Every post of the portal must be a plain form from the service's own origin. */
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(PageFormGuard).forRoutes(PortalController);
  }
}
