import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { AuditService } from '../../audit/audit.service';
import { Public } from '../../common/access/access.decorators';
import { PageSecurity } from '../../common/http/page-security';
import { SingleQueryValues } from '../../common/http/single-query-values.pipe';
import type { HtmlPage } from '../../common/pages/page';
import { Pages } from '../../common/pages/pages.decorator';
import { consoleCtx } from '../../console/views/layout';
import { OrgDocs } from '../admin-pages.openapi';
import { Org, type OrgContext, OrgPage } from '../org-page.guard';
import { auditLogPage } from './audit-log.views';

const ACTION = /^[a-z_]+\.[a-z_]+$/;

/**
 * The audit log, a console page (docs/console.md): what staff, the platform and the system did,
 * filterable by action, in the page's language.
 */
@ApiTags('admin-pages')
@Controller('org/:slug/audit-log')
@Public()
@Pages()
export class AuditLogPagesController {
  constructor(
    private readonly audit: AuditService,
    private readonly security: PageSecurity,
  ) {}

  @Get()
  @OrgPage('viewer')
  @OrgDocs.auditLog()
  async page(
    @Org() ctx: OrgContext,
    @Req() req: Request,
    @Query(SingleQueryValues) query: Record<string, string>,
  ): Promise<HtmlPage> {
    // A page is a filter, not a form: what does not parse is left out rather than refused.
    const page = Math.max(1, Number.isInteger(Number(query.page)) ? Number(query.page) : 1);
    const action = ACTION.test(query.action ?? '') ? query.action : undefined;
    const log = await this.audit.list(ctx.tenant.id, { page, page_size: 50, action });
    return auditLogPage(
      consoleCtx(ctx, req, this.security),
      { items: log.items, page, totalPages: log.pagination.total_pages, action },
      { notice: query.notice, error: query.error },
    );
  }
}
