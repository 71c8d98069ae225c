import type { StreamableFile } from '@nestjs/common';
import { CsvFilters, csvFile } from '../../pages/lists';
import { ConsoleDocs } from '../console.openapi';
import { Org, type ConsoleCtx, OrgDownload, OrgDownloadsController } from '../org-page';
import { ListPartnersQueryDto, PARTNER_FILTERS } from './partners.dto';
import { MemberListService } from './member-list.service';

/** `/org/:slug/partners.csv`: the list with the page's search and sort, streamed. */
@OrgDownloadsController()
export class MembersCsvController {
  constructor(private readonly partners: MemberListService) {}

  @OrgDownload('partners.csv')
  @ConsoleDocs.partnersCsv()
  async csv(
    @Org() org: ConsoleCtx,
    @CsvFilters(ListPartnersQueryDto, PARTNER_FILTERS) filters: ListPartnersQueryDto,
  ): Promise<StreamableFile> {
    return csvFile(
      `partners-${org.tenant.slug}.csv`,
      await this.partners.csv(org.tenant.id, filters),
    );
  }
}
