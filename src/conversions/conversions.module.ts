import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { BonusesModule } from '../bonuses/bonuses.module';
import { LeadsModule } from '../leads/leads.module';
import { OffersModule } from '../offers/offers.module';
import { UsersModule } from '../users/users.module';
import { ConversionsAdminController } from './conversions-admin.controller';
import { ConversionsController } from './conversions.controller';
import { ConversionsRepository } from './conversions.repository';
import { ConversionsService } from './conversions.service';

@Module({
  imports: [AuditModule, UsersModule, OffersModule, BonusesModule, LeadsModule],
  controllers: [ConversionsController, ConversionsAdminController],
  providers: [ConversionsRepository, ConversionsService],
})
export class ConversionsModule {}
