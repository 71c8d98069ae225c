import type { HtmlPage } from '../../common/pages/page';
import type { OrgContext } from '../org-page.guard';
import { orgPage, Pager, Table } from '../views/layout';

export interface AuditEntryView {
  at: string;
  actor: { type: string; name: string };
  action: string;
  target_type: string;
  target_id: string;
  details: unknown;
}

/** The audit log, newest first, 50 a page; dead-lettered webhooks stand out. */
export function auditLogPage(
  ctx: OrgContext,
  list: { items: AuditEntryView[]; page: number; totalPages: number; action?: string },
  shown: { notice?: string; error?: string },
): HtmlPage {
  const base = `/org/${ctx.tenant.slug}`;
  const dead = (entry: AuditEntryView) => entry.action === 'webhook.dead_lettered';
  return orgPage(
    ctx,
    { title: 'Audit log', area: 'audit-log', ...shown },
    <>
      <form class="filters" method="get">
        <label>
          Action{' '}
          <input name="action" value={list.action ?? ''} placeholder="webhook.dead_lettered" />
        </label>
        <button type="submit">Filter</button>
      </form>
      <Table
        headers={['At', 'Actor', 'Action', 'Target', 'Details']}
        rows={list.items.map((entry) => [
          entry.at,
          <>
            {entry.actor.name} <span class="muted">({entry.actor.type})</span>
          </>,
          dead(entry) ? <strong>{entry.action}</strong> : entry.action,
          entry.target_type === 'event' ? (
            <a href={`${base}/webhook-events/${entry.target_id}`}>{entry.target_id}</a>
          ) : (
            `${entry.target_type} ${entry.target_id}`
          ),
          <code>{JSON.stringify(entry.details)}</code>,
        ])}
        rowClasses={list.items.map((entry) => (dead(entry) ? 'dead' : undefined))}
      />
      <Pager
        base={`${base}/audit-log`}
        params={{ action: list.action }}
        page={list.page}
        totalPages={list.totalPages}
      />
    </>,
  );
}
