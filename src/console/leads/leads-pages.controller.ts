import { HttpCode, Param, Post } from '@nestjs/common';
import { Org, OrgAction, type ConsoleCtx, OrgPagesController, OrgView } from '../org-page';
import { PageQuery } from '../../common/http/single-query-values.pipe';
import { FormBody } from '../../common/pages/form';
import { type HtmlPage, Redirect, withQuery } from '../../common/pages/page';
import { keptFilters, loadList } from '../../pages/lists';
import { RecordDocs } from '../console.openapi';
import { LeadsService } from '../../leads/leads.service';
import { LEAD_FILTERS, LeadStatusForm, ListLeadsQueryDto } from './leads.dto';
import { LeadListReader } from '../read-model/lead-list.reader';
import { leadsPage } from './leads.views';

/** `/org/:slug/leads`: the list (status, source, partner, period, pages) and status changes. */
@OrgPagesController('leads')
export class LeadsPagesController {
  constructor(
    private readonly leads: LeadListReader,
    private readonly changes: LeadsService,
  ) {}

  @OrgView()
  @RecordDocs.leads()
  async page(
    @Org() ctx: ConsoleCtx,
    @PageQuery() query: Record<string, string>,
  ): Promise<HtmlPage> {
    const { filters, list, error } = await loadList(ListLeadsQueryDto, query, LEAD_FILTERS, (dto) =>
      this.leads.list(ctx.tenant.id, dto),
    );
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
    @Org() org: ConsoleCtx,
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
