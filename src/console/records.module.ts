import { type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { PageFormGuard, PageSecurity } from '../common/http/page-security';
import { ConversionsModule } from '../conversions/conversions.module';
import { BansModule } from '../bans/bans.module';
import { LeadsModule } from '../leads/leads.module';
import { TransferModule } from '../transfer/transfer.module';
import { ConversionsListAdminController } from './conversions/conversions-admin.controller';
import { ConversionListReader } from './read-model/conversion-list.reader';
import { ConversionsPagesController } from './conversions/conversions-pages.controller';
import { LeadsListAdminController } from './leads/leads-admin.controller';
import { LeadListReader } from './read-model/lead-list.reader';
import { LeadsPagesController } from './leads/leads-pages.controller';
import { MemberBanPagesController } from './members/member-ban.controller';
import { PrivacyModule } from '../privacy/privacy.module';
import {
  CustomerPrivacyPagesController,
  PartnerPrivacyPagesController,
  PersonalDataDownloadController,
} from './privacy/privacy-pages.controller';
import { RecordsCsvController } from './records-csv.controller';

const PAGE_CONTROLLERS = [
  ConversionsPagesController,
  LeadsPagesController,
  RecordsCsvController,
  MemberBanPagesController,
  PartnerPrivacyPagesController,
  CustomerPrivacyPagesController,
  PersonalDataDownloadController,
];

/**
 * The console's record pages (docs/console.md): conversions (with reversal) and leads, their API
 * twins and CSV links (the transfer exports with the page's filters), the ban form of a
 * partner's page, and the owners' privacy actions (docs/privacy.md). Part of ConsoleModule; the same session, role and CSRF rules.
 */
@Module({
  imports: [ConversionsModule, BansModule, LeadsModule, TransferModule, PrivacyModule],
  controllers: [ConversionsListAdminController, LeadsListAdminController, ...PAGE_CONTROLLERS],
  providers: [ConversionListReader, LeadListReader, PageSecurity],
})
export class ConsoleRecordsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(PageFormGuard).forRoutes(...PAGE_CONTROLLERS);
  }
}
