import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { BonusesModule } from '../bonuses/bonuses.module';
import { MembersModule } from '../members/members.module';
import { BountiesController } from './bounties.controller';
import { BountiesRepository } from './bounties.repository';
import { BountiesService } from './bounties.service';

/**
 * Bounties (docs/money.md, "Bounties"). Conversions import it to check, after each conversion, the
 * bounties its referrer may have reached; it reads their rollup and never imports them.
 */
@Module({
  imports: [AuditModule, MembersModule, BonusesModule],
  controllers: [BountiesController],
  providers: [BountiesRepository, BountiesService],
  exports: [BountiesService],
})
export class BountiesModule {}
