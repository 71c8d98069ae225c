import type { HtmlPage } from '../../common/pages/page';
import { LEAD_SOURCES, LEAD_STATUSES } from '../../leads/lead.entity';
import { RECORD_TEXTS } from '../views/i18n-records';
import { type ConsoleCtx, consolePage, DataTable, Pager, withParams } from '../views/layout';
import { RecordFilters } from '../views/record-filters';
import type { LeadListResponse } from './leads.response';

/** `2026-11-21T09:30:00.000Z` → `2026-11-21 09:30`. */
const minute = (iso: string) => iso.slice(0, 16).replace('T', ' ');

type Filters = { status?: string; source?: string; user_id?: string; from?: string; to?: string };

const STATUS_BADGE: Record<string, string> = {
  converted: 'badge on',
  rejected: 'badge off',
};

/** The leads: filters, CSV of the same filters, the list newest first. */
export function leadsPage(
  ctx: ConsoleCtx,
  filters: Filters,
  list: LeadListResponse | undefined,
  shown: { notice?: string; error?: string },
): HtmlPage {
  const { t } = ctx.fmt;
  const r = RECORD_TEXTS[ctx.fmt.lang];
  const slug = ctx.tenant.slug;
  const base = `/org/${slug}/leads`;
  return consolePage(
    ctx,
    { title: t.leads, area: 'leads', ...shown },
    <>
      <RecordFilters
        ctx={ctx}
        base={base}
        filters={filters}
        statuses={LEAD_STATUSES.map((s) => [s, r.leadStatus[s]])}
        sources={LEAD_SOURCES.map((s) => [s, r.leadSource[s]])}
      />
      {list && (
        <>
          <p class="muted" data-total={String(list.pagination.total)}>
            {t.found(list.pagination.total)}
          </p>
          <p class="csv">
            <a href={withParams(`/org/${slug}/leads.csv`, filters)} download>
              {t.csv}
            </a>
          </p>
          <DataTable
            caption={t.leads}
            hideCaption
            headers={[t.created, t.contact, t.partner, t.status, t.source, t.email, r.phone]}
            empty={t.nothing}
            rows={list.items.map((l) => [
              minute(l.created_at),
              <span data-lead={l.lead_id}>{l.contact_name}</span>,
              <a href={`/org/${slug}/partners/${l.user_id}`}>{l.partner_name}</a>,
              <>
                <span class={STATUS_BADGE[l.status] ?? 'badge'} data-status={l.status}>
                  {r.leadStatus[l.status] ?? l.status}
                </span>
                {l.status_reason && <span class="muted"> {l.status_reason}</span>}
              </>,
              r.leadSource[l.source] ?? l.source,
              l.contact_email ?? '',
              l.contact_phone ?? '',
            ])}
          />
          <Pager
            ctx={ctx}
            base={base}
            params={filters}
            page={list.pagination.page}
            totalPages={list.pagination.total_pages}
          />
        </>
      )}
    </>,
  );
}
