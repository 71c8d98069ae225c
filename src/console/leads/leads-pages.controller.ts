import { Controller, Get, Query, Req, Res, UseFilters } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../../access/access.decorators';
import { Org, type OrgContext, OrgPage } from '../../admin-pages/org-page.guard';
import { PageSecurity } from '../../common/http/page-security';
import { SingleQueryValues } from '../../common/http/single-query-values.pipe';
import type { HtmlPage } from '../../common/pages/page';
import { PageFilter } from '../../common/pages/page.filter';
import { Pages } from '../../common/pages/pages.decorator';
import { parseList, pick, sendCsv } from '../lists';
import { RecordDocs } from '../records.openapi';
import { consoleCtx } from '../views/layout';
import { LEAD_FILTERS, ListLeadsQueryDto } from './leads.dto';
import { LeadListService } from './leads-list.service';
import { leadsPage } from './leads.views';

/** `/org/:slug/leads`: the list (status, source, partner, period, pages). */
@ApiTags('admin-pages')
@Controller('org/:slug/leads')
@Public()
@Pages()
export class LeadsPagesController {
  constructor(
    private readonly leads: LeadListService,
    private readonly security: PageSecurity,
  ) {}

  @Get()
  @OrgPage('viewer')
  @RecordDocs.leads()
  async page(
    @Org() org: OrgContext,
    @Req() req: Request,
    @Query(SingleQueryValues) query: Record<string, string>,
  ): Promise<HtmlPage> {
    const ctx = consoleCtx(org, req, this.security);
    const filters = pick(query, LEAD_FILTERS);
    const { dto, error } = parseList(ListLeadsQueryDto, filters, query.page);
    const list = dto && (await this.leads.list(org.tenant.id, dto));
    return leadsPage(ctx, filters, list, { notice: query.notice, error: error ?? query.error });
  }
}

/** `/org/:slug/leads.csv`: the leads export with the page's filters, streamed. */
@ApiTags('admin-pages')
@Controller('org/:slug')
@Public()
@UseFilters(PageFilter)
export class LeadsCsvController {
  constructor(private readonly leads: LeadListService) {}

  @Get('leads.csv')
  @OrgPage('viewer')
  @RecordDocs.leadsCsv()
  async csv(
    @Org() org: OrgContext,
    @Query(SingleQueryValues) query: Record<string, string>,
    @Res() res: Response,
  ): Promise<void> {
    const { dto, error } = parseList(ListLeadsQueryDto, pick(query, LEAD_FILTERS));
    if (!dto) {
      res.status(400).type('text/plain').send(error);
      return;
    }
    sendCsv(res, `leads-${org.tenant.slug}.csv`, await this.leads.csv(org.tenant.id, dto));
  }
}
