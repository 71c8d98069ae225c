import { Res } from '@nestjs/common';
import type { Response } from 'express';
import { PageQuery } from '../../common/http/single-query-values.pipe';
import { sendFilteredCsv } from '../../common/pages/console/lists';
import { ConsoleDocs } from '../console.openapi';
import { Org, type ConsoleCtx, OrgDownloadsController, OrgView } from '../org-page';
import { ListPartnersQueryDto } from './partners.dto';
import { PartnersService } from './partners.service';

/** `/org/:slug/partners.csv`: the list with the page's search and sort, streamed. */
@OrgDownloadsController()
export class PartnersCsvController {
  constructor(private readonly partners: PartnersService) {}

  @OrgView('partners.csv')
  @ConsoleDocs.partnersCsv()
  csv(
    @Org() org: ConsoleCtx,
    @PageQuery() query: Record<string, string>,
    @Res() res: Response,
  ): Promise<void> {
    return sendFilteredCsv(
      res,
      `partners-${org.tenant.slug}.csv`,
      ListPartnersQueryDto,
      query,
      ['q', 'sort'],
      (dto) => this.partners.csv(org.tenant.id, dto),
    );
  }
}
