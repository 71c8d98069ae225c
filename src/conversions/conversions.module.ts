import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { BonusesModule } from '../bonuses/bonuses.module';
import { BountiesModule } from '../bounties/bounties.module';
import { DeeplinksModule } from '../deeplinks/deeplinks.module';
import { FraudModule } from '../fraud/fraud.module';
import { LeadsModule } from '../leads/leads.module';
import { OffersModule } from '../offers/offers.module';
import { MembersModule } from '../members/members.module';
import { ConversionAttribution } from './conversion-attribution';
import { ConversionPrivacyRepository } from './conversion-privacy.repository';
import { ConversionsAdminController } from './conversions-admin.controller';
import { ConversionsController } from './conversions.controller';
import { ConversionsRepository } from './conversions.repository';
import { ConversionsService } from './conversions.service';
import { PersonalSalesRepository } from './personal-sales.repository';
import { QualifiedCascade } from './qualified-cascade';
import { Promotions } from './promotions';

@Module({
  imports: [
    AuditModule,
    MembersModule,
    OffersModule,
    BonusesModule,
    BountiesModule,
    LeadsModule,
    DeeplinksModule,
    FraudModule,
  ],
  controllers: [ConversionsController, ConversionsAdminController],
  providers: [
    ConversionsRepository,
    ConversionPrivacyRepository,
    ConversionsService,
    ConversionAttribution,
    PersonalSalesRepository,
    QualifiedCascade,
    Promotions,
  ],
  exports: [ConversionsService],
})
export class ConversionsModule {}
