import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { BonusesModule } from '../bonuses/bonuses.module';
import { FraudModule } from '../fraud/fraud.module';
import { OffersModule } from '../offers/offers.module';
import { MembersModule } from '../members/members.module';
import { LeadPrivacyRepository } from './lead-privacy.repository';
import { LeadsAdminController } from './leads-admin.controller';
import { LeadsController } from './leads.controller';
import { LeadsRepository } from './leads.repository';
import { LeadsService } from './leads.service';

@Module({
  imports: [AuditModule, MembersModule, OffersModule, BonusesModule, FraudModule],
  controllers: [LeadsController, LeadsAdminController],
  providers: [LeadsRepository, LeadsService, LeadPrivacyRepository],
  exports: [LeadsService],
})
export class LeadsModule {}
