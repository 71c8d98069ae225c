import { Module } from '@nestjs/common';
import { OffersModule } from '../offers/offers.module';
import { BacktestController } from './backtest.controller';
import { BacktestRepository } from './backtest.repository';
import { BacktestService } from './backtest.service';

/** The backtest of a draft program (docs/money.md §2): reads only. GroupsService is global. */
@Module({
  imports: [OffersModule],
  controllers: [BacktestController],
  providers: [BacktestRepository, BacktestService],
  exports: [BacktestService],
})
export class BacktestModule {}
