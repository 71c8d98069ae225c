import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '../../common/access/access.decorators';
import { Org, type OrgContext, OrgPage } from '../../admin-pages/org-page.guard';
import { DomainError } from '../../common/errors/domain-error';
import { PageSecurity } from '../../common/http/page-security';
import { SingleQueryValues } from '../../common/http/single-query-values.pipe';
import type { HtmlPage } from '../../common/pages/page';
import { Pages } from '../../common/pages/pages.decorator';
import { ConsoleDocs } from '../console.openapi';
import { addDays, type Period, resolvePeriod, StatsService, today } from '../stats/stats.service';
import { consoleCtx } from '../views/layout';
import { overviewPage } from './overview.views';

/** The overview `/org/:slug`: the same numbers as GET /admin/v1/tenants/:slug/stats. */
@ApiTags('admin-pages')
@Controller('org/:slug')
@Public()
@Pages()
export class OverviewPagesController {
  constructor(
    private readonly stats: StatsService,
    private readonly security: PageSecurity,
  ) {}

  @Get()
  @OrgPage('viewer')
  @ConsoleDocs.overview()
  async page(
    @Org() org: OrgContext,
    @Req() req: Request,
    @Query(SingleQueryValues) query: Record<string, string>,
  ): Promise<HtmlPage> {
    const ctx = consoleCtx(org, req, this.security);
    let period: Period;
    try {
      period = resolvePeriod({ from: query.from || undefined, to: query.to || undefined });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const fallback = { from: addDays(today(), -29), to: today() };
      const detail = error.errors?.map((e) => `${e.field}: ${e.message}`).join('; ');
      return overviewPage(ctx, undefined, fallback, { error: detail ?? error.message });
    }
    return overviewPage(ctx, await this.stats.stats(org.tenant, period), period, {
      error: query.error,
    });
  }
}
