import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { BonusesModule } from '../bonuses/bonuses.module';
import { EmbedCorsMiddleware } from '../access/embed-cors.middleware';
import { LeadsModule } from '../leads/leads.module';
import { PayoutsModule } from '../payouts/payouts.module';
import { TenantsModule } from '../tenants/tenants.module';
import { MembersModule } from '../members/members.module';
import { EmbedDataController } from './embed-data.controller';
import { EmbedDataService } from './embed-data.service';
import { EmbedPayoutsController } from './embed-payouts.controller';
import { EmbedPayoutsService } from './embed-payouts.service';

/**
 * The Embed Data API (the widgets' reads, the payout history included) and the CORS rules of
 * every /embed path. It builds on the features it reads; none of them imports it.
 */
@Module({
  imports: [TenantsModule, MembersModule, LeadsModule, BonusesModule, PayoutsModule],
  controllers: [EmbedDataController, EmbedPayoutsController],
  providers: [EmbedDataService, EmbedPayoutsService],
})
export class EmbedModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(EmbedCorsMiddleware)
      .forRoutes({ path: 'embed/*path', method: RequestMethod.ALL });
  }
}
