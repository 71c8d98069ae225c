import { Res } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { Response } from 'express';
import { PageQuery } from '../../common/http/single-query-values.pipe';
import { csvHeaders } from '../../common/pages/console/lists';
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
  async csv(
    @Org() org: ConsoleCtx,
    @PageQuery() query: Record<string, string>,
    @Res() res: Response,
  ): Promise<void> {
    const dto = plainToInstance(ListPartnersQueryDto, {
      q: query.q || undefined,
      sort: query.sort || undefined,
    });
    if (validateSync(dto, { whitelist: true }).length) {
      res.status(400).type('text/plain').send('Bad search or sort.');
      return;
    }
    const { stream, done } = await this.partners.csv(org.tenant.id, dto);
    csvHeaders(res, `partners-${org.tenant.slug}.csv`);
    stream.on('error', (error: Error) => {
      done(error);
      res.destroy(error);
    });
    stream.on('end', () => done());
    res.on('close', () => done());
    stream.pipe(res);
  }
}
