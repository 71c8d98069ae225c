import { NotificationLogService } from '../../notifications/notification-log.service';
import type { HtmlPage } from '../../common/pages/page';
import { consolePageDocs, LANG, refusedOn } from '../org-page.openapi';
import { Org, type ConsoleCtx, OrgPagesController, OrgView } from '../org-page';
import { mailPage } from './notifications.views';

/** Mails of the delivery log shown on the page. */
const LOG_ROWS = 20;

/**
 * The console's partner mail page (docs/notifications.md): the preview of each mail type and the
 * newest mails of the delivery log, through NotificationLogService as the Admin API does.
 */
@OrgPagesController('notifications')
export class NotificationsPagesController {
  constructor(private readonly notifications: NotificationLogService) {}

  @OrgView()
  @consolePageDocs(
    'A preview of each partner mail type and the newest mails of the delivery log',
    { lang: LANG },
    refusedOn(),
  )
  async page(@Org() ctx: ConsoleCtx): Promise<HtmlPage> {
    const log = await this.notifications.list(ctx.tenant.id, { page: 1, page_size: LOG_ROWS });
    return mailPage(ctx, {
      previews: this.notifications.previews(ctx.tenant),
      log: log.items,
    });
  }
}
