import type { StreamableFile } from '@nestjs/common';
import { CsvFilters, csvFile } from '../pages/lists';
import { Org, type ConsoleCtx, OrgDownload, OrgDownloadsController } from './org-page';
import { CONVERSION_FILTERS, ListConversionsQueryDto } from './conversions/conversions.dto';
import { ConversionListReader } from './read-model/conversion-list.reader';
import { LEAD_FILTERS, ListLeadsQueryDto } from './leads/leads.dto';
import { LeadListReader } from './read-model/lead-list.reader';
import { RecordDocs } from './console.openapi';

/**
 * The CSV links of the record lists, `/org/:slug/conversions.csv` and `/org/:slug/leads.csv`:
 * the list's export with the page's filters, streamed (a refused filter answers 400).
 */
@OrgDownloadsController()
export class RecordsCsvController {
  constructor(
    private readonly conversions: ConversionListReader,
    private readonly leads: LeadListReader,
  ) {}

  @OrgDownload('conversions.csv')
  @RecordDocs.conversionsCsv()
  async conversionsCsv(
    @Org() org: ConsoleCtx,
    @CsvFilters(ListConversionsQueryDto, CONVERSION_FILTERS) filters: ListConversionsQueryDto,
  ): Promise<StreamableFile> {
    const stream = await this.conversions.csv(org.tenant.id, filters);
    return csvFile(`conversions-${org.tenant.slug}.csv`, stream);
  }

  @OrgDownload('leads.csv')
  @RecordDocs.leadsCsv()
  async leadsCsv(
    @Org() org: ConsoleCtx,
    @CsvFilters(ListLeadsQueryDto, LEAD_FILTERS) filters: ListLeadsQueryDto,
  ): Promise<StreamableFile> {
    return csvFile(`leads-${org.tenant.slug}.csv`, await this.leads.csv(org.tenant.id, filters));
  }
}
