/**
 * What the console's page and download controllers take from the organisation pages' session
 * guard (admin-pages/org-page.guard.ts): its route and parameter decorators and the handler's
 * context. The console's pages are organisation pages (docs/console.md); this is their one way in.
 */
export type { ConsoleCtx } from '../admin-pages/org-page.guard';
export {
  Org,
  OrgAction,
  OrgDownload,
  OrgDownloadsController,
  OrgPagesController,
  OrgView,
} from '../admin-pages/org-page.guard';
