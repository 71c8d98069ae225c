import { Module } from '@nestjs/common';
import { FraudRepository } from './fraud.repository';
import { FraudService } from './fraud.service';

/** Risk signals (docs/fraud.md); leads and conversions ask it what fired. */
@Module({
  providers: [FraudRepository, FraudService],
  exports: [FraudService],
})
export class FraudModule {}
