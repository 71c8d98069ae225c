import { Org, OrgPagesController, type ConsoleCtx, OrgView } from '../org-page';
import { DomainError } from '../../common/errors/domain-error';
import { PageQuery } from '../../common/http/single-query-values.pipe';
import type { HtmlPage } from '../../common/pages/page';
import { ConsoleDocs } from '../console.openapi';
import { addDays, type Period, resolvePeriod, StatsService, today } from '../stats/stats.service';
import { overviewPage } from './overview.views';

/** The overview `/org/:slug`: the same numbers as GET /admin/v1/tenants/:slug/stats. */
@OrgPagesController()
export class OverviewPagesController {
  constructor(private readonly stats: StatsService) {}

  @OrgView()
  @ConsoleDocs.overview()
  async page(
    @Org() ctx: ConsoleCtx,
    @PageQuery() query: Record<string, string>,
  ): Promise<HtmlPage> {
    let period: Period;
    try {
      period = resolvePeriod({ from: query.from || undefined, to: query.to || undefined });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const fallback = { from: addDays(today(), -29), to: today() };
      const detail = error.errors?.map((e) => `${e.field}: ${e.message}`).join('; ');
      // The period picker again, with what was refused, as a 400 (docs/console.md).
      return overviewPage(ctx, undefined, fallback, {
        error: detail ?? error.message,
        status: error.status,
      });
    }
    return overviewPage(ctx, await this.stats.stats(ctx.tenant, period), period, {
      error: query.error,
    });
  }
}
