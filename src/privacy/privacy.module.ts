import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AuditModule } from '../audit/audit.module';
import { DeeplinksModule } from '../deeplinks/deeplinks.module';
import { MembersModule } from '../members/members.module';
import { OutboxModule } from '../outbox/outbox.module';
import { PayoutsModule } from '../payouts/payouts.module';
import { PersonalDataSteps } from './personal-data-steps';
import { PrivacyController } from './privacy.controller';
import { PrivacyService } from './privacy.service';

/** Erasure, the subject-access export and what retention means (docs/privacy.md). */
@Module({
  imports: [
    DiscoveryModule,
    AuditModule,
    DeeplinksModule,
    MembersModule,
    OutboxModule,
    PayoutsModule,
  ],
  controllers: [PrivacyController],
  providers: [PersonalDataSteps, PrivacyService],
  exports: [PrivacyService],
})
export class PrivacyModule {}
