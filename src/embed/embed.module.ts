import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { BonusesModule } from '../bonuses/bonuses.module';
import { EmbedCorsMiddleware } from '../access/embed-cors.middleware';
import { LeadsModule } from '../leads/leads.module';
import { LedgerModule } from '../payouts/ledger/ledger.module';
import { TenantsModule } from '../tenants/tenants.module';
import { MembersModule } from '../members/members.module';
import { EmbedDataController } from './embed-data.controller';
import { EmbedDataService } from './embed-data.service';

/** The Embed Data API (widgets' reads) and the CORS rules of every /embed path. */
@Module({
  imports: [TenantsModule, MembersModule, LeadsModule, BonusesModule, LedgerModule],
  controllers: [EmbedDataController],
  providers: [EmbedDataService],
})
export class EmbedModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(EmbedCorsMiddleware)
      .forRoutes({ path: 'embed/*path', method: RequestMethod.ALL });
  }
}
