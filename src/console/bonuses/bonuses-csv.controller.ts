import type { StreamableFile } from '@nestjs/common';
import { ListBonusesQueryDto } from '../../bonuses/dto/bonus-requests.dto';
import { CsvFilters, csvFile } from '../../pages/lists';
import { bonusesExportFilter } from '../read-model/export-filters';
import { OrgDocs } from '../org-areas.openapi';
import { ExportsService } from '../../transfer/exports.service';
import { Org, type ConsoleCtx, OrgDownload, OrgDownloadsController } from '../org-page';

export const BONUS_FILTERS = ['status', 'review', 'user_id', 'created_from', 'created_to'] as const;

/**
 * `/org/:slug/bonuses.csv`: the transfer work's `bonuses.csv` export (docs/import-export.md) of the bonuses the
 * page's filters keep (the Admin API list's rules), streamed.
 */
@OrgDownloadsController()
export class BonusesCsvController {
  constructor(private readonly exports: ExportsService) {}

  @OrgDownload('bonuses.csv')
  @OrgDocs.bonusesCsv()
  async csv(
    @Org() org: ConsoleCtx,
    @CsvFilters(ListBonusesQueryDto, BONUS_FILTERS) dto: ListBonusesQueryDto,
  ): Promise<StreamableFile> {
    const cond = bonusesExportFilter(dto);
    const stream = await this.exports.stream(org.tenant.id, 'bonuses', cond);
    return csvFile(`bonuses-${org.tenant.slug}.csv`, stream);
  }
}
