import type { ConsoleCtx } from '../org-page';
import type { HtmlPage } from '../../common/pages/page';
import { RECORD_TEXTS } from '../records.i18n';
import { DataTable, Pager } from '../../pages/layout';
import { consolePage } from '../console-page';
import { AUDIT_LOG_TEXTS } from './audit-log.i18n';

export interface AuditEntryView {
  at: string;
  actor: { type: string; name: string };
  action: string;
  target_type: string;
  target_id: string;
  details: unknown;
}

/**
 * The audit log, newest first, 50 a page; dead-lettered webhooks stand out. Actions and target
 * types are the Admin API's codes (the filter takes them), the rest is in the page's language.
 */
export function auditLogPage(
  ctx: ConsoleCtx,
  list: { items: AuditEntryView[]; page: number; totalPages: number; action?: string },
  shown: { notice?: string; error?: string },
): HtmlPage {
  const { t } = ctx.fmt;
  const r = RECORD_TEXTS[ctx.fmt.lang];
  const a = AUDIT_LOG_TEXTS[ctx.fmt.lang];
  const base = `/org/${ctx.tenant.slug}`;
  const dead = (entry: AuditEntryView) => entry.action === 'webhook.dead_lettered';
  return consolePage(
    ctx,
    { title: t.auditLog, area: 'audit-log', ...shown },
    <>
      <form class="filters search" method="get" action={`${base}/audit-log`} role="search">
        <label>
          {a.action}{' '}
          <input name="action" value={list.action ?? ''} placeholder="webhook.dead_lettered" />
        </label>
        <button type="submit">{r.filter}</button>
        {list.action && <a href={`${base}/audit-log`}>{r.clearFilters}</a>}
      </form>
      <DataTable
        caption={a.entries}
        hideCaption
        headers={[a.at, a.actor, a.action, a.target, a.details]}
        empty={t.nothing}
        rows={list.items.map((entry) => [
          entry.at,
          <>
            {entry.actor.name}{' '}
            <span class="muted">({a.actorType[entry.actor.type] ?? entry.actor.type})</span>
          </>,
          dead(entry) ? <strong>{entry.action}</strong> : entry.action,
          entry.target_type === 'event' ? (
            <a href={`${base}/webhook-events/${entry.target_id}`}>{entry.target_id}</a>
          ) : (
            `${entry.target_type} ${entry.target_id}`
          ),
          <code class="details">{JSON.stringify(entry.details)}</code>,
        ])}
        rowClasses={list.items.map((entry) => (dead(entry) ? 'dead' : undefined))}
      />
      <Pager
        ctx={ctx}
        base={`${base}/audit-log`}
        params={{ action: list.action }}
        page={list.page}
        totalPages={list.totalPages}
      />
    </>,
  );
}
