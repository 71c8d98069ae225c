import { Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import {
  Org,
  OrgAction,
  type OrgContext,
  OrgPage,
  OrgDownloadsController,
  OrgPagesController,
  ConsoleContext,
  type ConsoleCtx,
} from '../../admin-pages/org-page.guard';
import { SingleQueryValues } from '../../common/http/single-query-values.pipe';
import { FormBody } from '../../common/pages/form';
import { type HtmlPage, Redirect, withQuery } from '../../common/pages/page';
import {
  keptFilters,
  listQuery,
  parseList,
  pick,
  sendListCsv,
} from '../../common/pages/console/lists';
import { RecordDocs } from '../records.openapi';
import { LeadsService } from '../../leads/leads.service';
import { LEAD_FILTERS, LeadStatusForm, ListLeadsQueryDto } from './leads.dto';
import { LeadListService } from './leads-list.service';
import { leadsPage } from './leads.views';

/** `/org/:slug/leads`: the list (status, source, partner, period, pages) and status changes. */
@OrgPagesController('leads')
export class LeadsPagesController {
  constructor(
    private readonly leads: LeadListService,
    private readonly changes: LeadsService,
  ) {}

  @Get()
  @OrgPage('viewer')
  @RecordDocs.leads()
  async page(
    @ConsoleContext() ctx: ConsoleCtx,
    @Query(SingleQueryValues) query: Record<string, string>,
  ): Promise<HtmlPage> {
    const { filters, dto, error } = listQuery(ListLeadsQueryDto, query, LEAD_FILTERS);
    const list = dto && (await this.leads.list(ctx.tenant.id, dto));
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
@OrgDownloadsController()
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
