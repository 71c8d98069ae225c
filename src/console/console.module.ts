import { Module } from '@nestjs/common';
import { StatsAdminController } from './stats/stats-admin.controller';
import { StatsRepository } from './stats/stats.repository';
import { StatsService } from './stats/stats.service';

/**
 * The program console (SPEC 10, docs/console.md): the stats kept as rollups and their API, the
 * overview and partners pages (`/org/:slug`, `/org/:slug/partners`) and their API twins.
 */
@Module({
  controllers: [StatsAdminController],
  providers: [StatsRepository, StatsService],
  exports: [StatsService],
})
export class ConsoleModule {}
