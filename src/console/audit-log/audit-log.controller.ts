import { AuditService } from '../../audit/audit.service';
import { PageQuery } from '../../common/http/single-query-values.pipe';
import type { HtmlPage } from '../../common/pages/page';
import { OrgDocs } from '../org-areas.openapi';
import { Org, OrgPagesController, type ConsoleCtx, OrgView } from '../org-page';
import { auditLogPage } from './audit-log.views';

const ACTION = /^[a-z_]+\.[a-z_]+$/;

/**
 * The audit log, a console page (docs/console.md): what staff, the platform and the system did,
 * filterable by action, in the page's language.
 */
@OrgPagesController('audit-log')
export class AuditLogPagesController {
  constructor(private readonly audit: AuditService) {}

  @OrgView()
  @OrgDocs.auditLog()
  async page(
    @Org() ctx: ConsoleCtx,
    @PageQuery() query: Record<string, string>,
  ): Promise<HtmlPage> {
    // A page is a filter, not a form: what does not parse is left out rather than refused.
    const page = Math.max(1, Number.isInteger(Number(query.page)) ? Number(query.page) : 1);
    const action = ACTION.test(query.action ?? '') ? query.action : undefined;
    const log = await this.audit.list(ctx.tenant.id, { page, page_size: 50, action });
    return auditLogPage(
      ctx,
      { items: log.items, page, totalPages: log.pagination.total_pages, action },
      { notice: query.notice, error: query.error },
    );
  }
}
