import { HttpCode, Param, Post } from '@nestjs/common';
import { Org, OrgAction, type ConsoleCtx, OrgPagesController, OrgView } from '../org-page';
import { PageQuery } from '../../common/http/single-query-values.pipe';
import { FormBody } from '../../common/pages/form';
import { type HtmlPage, Redirect, withQuery } from '../../common/pages/page';
import { ConversionsService } from '../../conversions/conversions.service';
import { keptFilters, loadList } from '../../pages/lists';
import { RecordDocs } from '../console.openapi';
import {
  CONVERSION_FILTERS,
  ListConversionsQueryDto,
  ReverseConversionForm,
} from './conversions.dto';
import { ConversionListReader } from '../read-model/conversion-list.reader';
import { conversionPage, conversionsPage } from './conversions.views';

/** `/org/:slug/conversions`: the list (status, partner, period, pages) and reversal. */
@OrgPagesController('conversions')
export class ConversionsPagesController {
  constructor(
    private readonly list: ConversionListReader,
    private readonly conversions: ConversionsService,
  ) {}

  @OrgView()
  @RecordDocs.conversions()
  async page(
    @Org() ctx: ConsoleCtx,
    @PageQuery() query: Record<string, string>,
  ): Promise<HtmlPage> {
    const { filters, list, error } = await loadList(
      ListConversionsQueryDto,
      query,
      CONVERSION_FILTERS,
      (dto) => this.list.list(ctx.tenant.id, dto),
    );
    return conversionsPage(ctx, filters, list, {
      notice: query.notice,
      reversed: query.reversed,
      error: error ?? query.error,
    });
  }

  @OrgView(':conversion_id')
  @RecordDocs.conversion()
  async detail(
    @Org() ctx: ConsoleCtx,
    @Param('conversion_id') conversionId: string,
    @PageQuery() query: Record<string, string>,
  ): Promise<HtmlPage> {
    const detail = await this.list.detail(ctx.tenant.id, conversionId);
    return conversionPage(ctx, detail, { reversed: query.reversed, error: query.error });
  }

  @Post(':conversion_id/reverse')
  @HttpCode(303)
  @OrgAction('manager', 'conversions')
  @RecordDocs.reverse()
  async reverse(
    @Org() org: ConsoleCtx,
    @Param('conversion_id') conversionId: string,
    @FormBody() form: ReverseConversionForm,
  ): Promise<Redirect> {
    await this.conversions.reverse(org.tenant.id, conversionId, form.reason, org.actor);
    if (form.back === 'detail') {
      const page = `/org/${org.tenant.slug}/conversions/${encodeURIComponent(conversionId)}`;
      return new Redirect(withQuery(page, { reversed: conversionId }));
    }
    const kept = keptFilters(form.back, [...CONVERSION_FILTERS, 'page', 'lang']);
    const back = `/org/${org.tenant.slug}/conversions`;
    return new Redirect(withQuery(back, { ...kept, reversed: conversionId }));
  }
}
