import {
  Controller,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Req,
  Res,
  UseFilters,
} from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../../common/access/access.decorators';
import { Org, OrgAction, type OrgContext, OrgPage } from '../../admin-pages/org-page.guard';
import { PageSecurity } from '../../common/http/page-security';
import { SingleQueryValues } from '../../common/http/single-query-values.pipe';
import { FormBody } from '../../common/pages/form';
import { type HtmlPage, Redirect, withQuery } from '../../common/pages/page';
import { PageFilter } from '../../common/pages/page.filter';
import { Pages } from '../../common/pages/pages.decorator';
import { keptFilters, listQuery, parseList, pick, sendListCsv } from '../lists';
import { RecordDocs } from '../records.openapi';
import { consoleCtx } from '../views/layout';
import { LeadsService } from '../../leads/leads.service';
import { LEAD_FILTERS, LeadStatusForm, ListLeadsQueryDto } from './leads.dto';
import { LeadListService } from './leads-list.service';
import { leadsPage } from './leads.views';

/** `/org/:slug/leads`: the list (status, source, partner, period, pages) and status changes. */
@ApiTags('admin-pages')
@Controller('org/:slug/leads')
@Public()
@Pages()
export class LeadsPagesController {
  constructor(
    private readonly leads: LeadListService,
    private readonly changes: LeadsService,
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
    const { filters, dto, error } = listQuery(ListLeadsQueryDto, query, LEAD_FILTERS);
    const list = dto && (await this.leads.list(org.tenant.id, dto));
    return leadsPage(ctx, filters, list, {
      notice: query.notice,
      changed: query.changed,
      error: error ?? query.error,
    });
  }

  /** LeadsService's status change (docs/money.md): rejecting rejects the pending lead bonuses. */
  @Post(':lead_id/status')
  @HttpCode(303)
  @OrgAction('manager', 'leads')
  @RecordDocs.leadStatus()
  async status(
    @Org() org: OrgContext,
    @Param('lead_id') leadId: string,
    @FormBody() form: LeadStatusForm,
  ): Promise<Redirect> {
    await this.changes.changeStatus(
      org.tenant.id,
      leadId,
      { status: form.status, reason: form.reason },
      org.actor,
    );
    const kept = keptFilters(form.back, [...LEAD_FILTERS, 'page']);
    return new Redirect(withQuery(`/org/${org.tenant.slug}/leads`, { ...kept, changed: leadId }));
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
    const parsed = parseList(ListLeadsQueryDto, pick(query, LEAD_FILTERS));
    await sendListCsv(res, `leads-${org.tenant.slug}.csv`, parsed, (dto) =>
      this.leads.csv(org.tenant.id, dto),
    );
  }
}
