import { Param, type StreamableFile } from '@nestjs/common';
import { Readable } from 'node:stream';
import { PageQuery } from '../../common/http/single-query-values.pipe';
import { csvFile, csvFilters } from '../../pages/lists';
import { payoutsExportFilter } from '../read-model/export-filters';
import { ListPayoutsQueryDto } from '../../payouts/dto/payout-requests.dto';
import { seesFullPayoutDetails } from '../../payouts/payout-details/payout-details.service';
import { PayoutsCsvService } from '../../payouts/payouts-csv.service';
import { ExportsService } from '../../transfer/exports.service';
import { Org, type ConsoleCtx, OrgDownload, OrgDownloadsController } from '../org-page';
import { PayoutsProgramDocs } from '../payouts-program.openapi';

/** `/org/:slug/payouts/runs/:run_id.csv`: the run's mass-payout file, as the Admin API's. */
@OrgDownloadsController('payouts/runs')
export class PayoutsCsvPagesController {
  constructor(private readonly csv: PayoutsCsvService) {}

  @OrgDownload(':run_id.csv')
  @PayoutsProgramDocs.runCsv()
  async runCsv(@Org() org: ConsoleCtx, @Param('run_id') runId: string): Promise<StreamableFile> {
    const access = seesFullPayoutDetails(org.actor) ? 'full' : 'masked';
    const body = Readable.from([await this.csv.runCsv(org.tenant.id, runId, access)]);
    return csvFile(`payouts-${runId}.csv`, body);
  }
}

/**
 * The CSV links of the payouts page's two lists, streamed as the other lists' are (the transfer
 * exports, src/transfer/exports.service.ts): `/org/:slug/payouts.csv?run=&status=&user=` is the
 * `payouts` export with the payouts list's filters; `/org/:slug/payout-runs.csv` every run.
 */
@OrgDownloadsController()
export class PayoutListsCsvController {
  constructor(private readonly exports: ExportsService) {}

  @OrgDownload('payouts.csv')
  @PayoutsProgramDocs.payoutsCsv()
  async payouts(
    @Org() org: ConsoleCtx,
    @PageQuery() query: Record<string, string>,
  ): Promise<StreamableFile> {
    const filters = csvFilters(ListPayoutsQueryDto, {
      run_id: query.run || undefined,
      status: query.status || undefined,
      user_id: query.user || undefined,
    });
    const cond = payoutsExportFilter(filters);
    const stream = await this.exports.stream(org.tenant.id, 'payouts', cond);
    return csvFile(`payouts-${org.tenant.slug}.csv`, stream);
  }

  @OrgDownload('payout-runs.csv')
  @PayoutsProgramDocs.runsCsv()
  async runs(@Org() org: ConsoleCtx): Promise<StreamableFile> {
    const stream = await this.exports.stream(org.tenant.id, 'payout_runs');
    return csvFile(`payout-runs-${org.tenant.slug}.csv`, stream);
  }
}
