import { Res } from '@nestjs/common';
import type { Response } from 'express';
import { Org, type ConsoleCtx, OrgDownloadsController, OrgView } from './org-page';
import { sendFilteredCsv } from '../common/pages/console/lists';
import { PageQuery } from '../common/http/single-query-values.pipe';
import { CONVERSION_FILTERS, ListConversionsQueryDto } from './conversions/conversions.dto';
import { ConversionListService } from './conversions/conversions-list.service';
import { LEAD_FILTERS, ListLeadsQueryDto } from './leads/leads.dto';
import { LeadListService } from './leads/leads-list.service';
import { RecordDocs } from './records.openapi';

/**
 * The CSV links of the record lists, `/org/:slug/conversions.csv` and `/org/:slug/leads.csv`:
 * the list's export with the page's filters, streamed (a refused filter answers 400).
 */
@OrgDownloadsController()
export class RecordsCsvController {
  constructor(
    private readonly conversions: ConversionListService,
    private readonly leads: LeadListService,
  ) {}

  @OrgView('conversions.csv')
  @RecordDocs.conversionsCsv()
  conversionsCsv(
    @Org() org: ConsoleCtx,
    @PageQuery() query: Record<string, string>,
    @Res() res: Response,
  ): Promise<void> {
    const name = `conversions-${org.tenant.slug}.csv`;
    return sendFilteredCsv(res, name, ListConversionsQueryDto, query, CONVERSION_FILTERS, (dto) =>
      this.conversions.csv(org.tenant.id, dto),
    );
  }

  @OrgView('leads.csv')
  @RecordDocs.leadsCsv()
  leadsCsv(
    @Org() org: ConsoleCtx,
    @PageQuery() query: Record<string, string>,
    @Res() res: Response,
  ): Promise<void> {
    return sendFilteredCsv(
      res,
      `leads-${org.tenant.slug}.csv`,
      ListLeadsQueryDto,
      query,
      LEAD_FILTERS,
      (dto) => this.leads.csv(org.tenant.id, dto),
    );
  }
}
