import type { ConsoleCtx } from '../org-page';
import { CsrfField } from '../../common/pages/components';
import type { HtmlPage } from '../../common/pages/page';
import { canRequestTransition } from '../../leads/lead-transitions';
import { LEAD_SOURCES, LEAD_STATUSES, type LeadStatus } from '../../leads/lead.entity';
import { RECORD_TEXTS } from '../records.i18n';
import { backQuery, DataTable } from '../../pages/layout';
import { consolePage } from '../console-page';
import { ListPager, ListSummary } from '../../pages/list-parts';
import { RecordFilters } from '../record-filters';
import type { LeadListResponse } from './leads.response';
import { CustomerErasureSection } from '../privacy/privacy.views';

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
  shown: { notice?: string; changed?: string; error?: string },
): HtmlPage {
  const { t } = ctx.fmt;
  const r = RECORD_TEXTS[ctx.fmt.lang];
  const slug = ctx.tenant.slug;
  const base = `/org/${slug}/leads`;
  const manage = ctx.can('manager');
  const back = backQuery(filters, list?.pagination.page);
  /** The statuses staff may move a lead to from `status` (docs/money.md). */
  const next = (status: string) =>
    (['processed', 'rejected'] as const).filter((to) =>
      canRequestTransition(status as LeadStatus, to),
    );
  return consolePage(
    ctx,
    {
      title: t.leads,
      area: 'leads',
      notice: shown.changed ? r.statusChanged(shown.changed) : shown.notice,
      error: shown.error,
    },
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
          <ListSummary
            ctx={ctx}
            pagination={list.pagination}
            csv={`/org/${slug}/leads.csv`}
            filters={filters}
          />
          {!manage && <p class="muted">{r.viewerCannotChange}</p>}
          <DataTable
            caption={t.leads}
            hideCaption
            headers={[
              t.created,
              t.contact,
              t.partner,
              t.status,
              ...(manage ? [r.change] : []),
              t.source,
              t.email,
              r.phone,
            ]}
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
              ...(manage
                ? [
                    next(l.status).length ? (
                      <form method="post" action={`${base}/${l.lead_id}/status`} class="row-form">
                        <CsrfField value={ctx.csrf} />
                        <input type="hidden" name="back" value={back} />
                        <select name="status" aria-label={r.newStatus(l.contact_name)}>
                          {next(l.status).map((to) => (
                            <option value={to}>{r.leadStatus[to]}</option>
                          ))}
                        </select>
                        <input
                          name="reason"
                          maxLength={500}
                          placeholder={r.reason}
                          aria-label={r.statusReason(l.contact_name)}
                        />
                        <button type="submit" class="plain" data-action="lead-status">
                          {r.apply}
                        </button>
                      </form>
                    ) : (
                      ''
                    ),
                  ]
                : []),
              r.leadSource[l.source] ?? l.source,
              l.contact_email ?? '',
              l.contact_phone ?? '',
            ])}
          />
          <ListPager ctx={ctx} base={base} filters={filters} pagination={list.pagination} />
        </>
      )}
      <CustomerErasureSection ctx={ctx} />
    </>,
  );
}
