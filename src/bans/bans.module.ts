import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { BonusesModule } from '../bonuses/bonuses.module';
import { DeeplinksModule } from '../deeplinks/deeplinks.module';
import { MembersModule } from '../members/members.module';
import { BansController } from './bans.controller';
import { BansService } from './bans.service';

/** Banning and unbanning partners (docs/fraud.md). */
@Module({
  imports: [AuditModule, MembersModule, BonusesModule, DeeplinksModule],
  controllers: [BansController],
  providers: [BansService],
  exports: [BansService],
})
export class BansModule {}
