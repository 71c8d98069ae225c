import { Module } from '@nestjs/common';
import { LeadsModule } from '../leads/leads.module';
import { TenantsModule } from '../tenants/tenants.module';
import { MembersModule } from '../members/members.module';
import { ClickCounter } from './click-counter';
import { DeeplinksRepository } from './deeplinks.repository';
import { DeeplinksService } from './deeplinks.service';
import { LeadFormController } from './lead-form.controller';
import { ReferralLinkController } from './referral-link.controller';
import { LandingLookup, LandingRefusalFilter, ShortLinkController } from './short-link.controller';

/** Referral short links, their landing page, and the lead form that takes a signed ref. */
@Module({
  imports: [TenantsModule, MembersModule, LeadsModule],
  controllers: [ReferralLinkController, ShortLinkController, LeadFormController],
  providers: [
    DeeplinksRepository,
    DeeplinksService,
    ClickCounter,
    LandingLookup,
    LandingRefusalFilter,
  ],
  exports: [DeeplinksService],
})
export class DeeplinksModule {}
