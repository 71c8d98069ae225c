import type { ConsoleCtx } from '../org-page';
import { CsrfField } from '../../common/pages/components';
import type { HtmlPage } from '../../common/pages/page';
import { RECORD_TEXTS } from '../records.i18n';
import { backQuery, DataTable, TableSection } from '../../pages/layout';
import { consolePage } from '../console-page';
import { ListPager, ListSummary } from '../../pages/list-parts';
import { RecordFilters } from '../record-filters';
import { CONVERSION_STATUSES } from './conversions.dto';
import type {
  ConversionDetailResponse,
  ConversionListResponse,
  ConversionRowResponse,
} from './conversions.response';

/** `2026-11-21T09:30:00.000Z` → `2026-11-21 09:30`. */
const minute = (iso: string) => iso.slice(0, 16).replace('T', ' ');

type Filters = { status?: string; user_id?: string; from?: string; to?: string };

/** The conversions: filters, CSV of the same filters, the list newest first, reversal. */
export function conversionsPage(
  ctx: ConsoleCtx,
  filters: Filters,
  list: ConversionListResponse | undefined,
  shown: { notice?: string; reversed?: string; error?: string },
): HtmlPage {
  const { t, money } = ctx.fmt;
  const r = RECORD_TEXTS[ctx.fmt.lang];
  const slug = ctx.tenant.slug;
  const base = `/org/${slug}/conversions`;
  const manage = ctx.can('manager');
  const back = backQuery(filters, list?.pagination.page);
  return consolePage(
    ctx,
    {
      title: t.conversions,
      area: 'conversions',
      notice: shown.reversed ? r.reversed(shown.reversed) : shown.notice,
      error: shown.error,
    },
    <>
      <RecordFilters
        ctx={ctx}
        base={base}
        filters={filters}
        statuses={CONVERSION_STATUSES.map((s) => [s, r.conversionStatus[s]])}
      />
      {list && (
        <>
          <ListSummary
            ctx={ctx}
            pagination={list.pagination}
            csv={`/org/${slug}/conversions.csv`}
            filters={filters}
          />
          {!manage && <p class="muted">{r.viewerCannotReverse}</p>}
          <DataTable
            caption={t.conversions}
            hideCaption
            headers={[
              t.created,
              t.partner,
              t.amount,
              r.commission,
              t.status,
              r.customer,
              r.order,
              manage ? r.reverse : r.reason,
            ]}
            numeric={[2, 3]}
            empty={t.nothing}
            rows={list.items.map((c) => [
              minute(c.created_at),
              <a href={`/org/${slug}/partners/${c.user_id}`}>{c.partner_name}</a>,
              <span data-amount={String(c.amount_kopecks)}>
                {money(c.amount_kopecks, c.currency)}
              </span>,
              <span data-commission={String(c.commission_kopecks)}>
                {money(c.commission_kopecks, c.currency)}
              </span>,
              <span
                class={c.status === 'reversed' ? 'badge off' : 'badge on'}
                data-status={c.status}
              >
                {r.conversionStatus[c.status] ?? c.status}
              </span>,
              c.customer_name,
              <a href={`${base}/${c.conversion_id}`} data-conversion={c.conversion_id}>
                {c.external_order_id}
              </a>,
              c.status === 'reversed' ? (
                <span class="muted">
                  {c.reversed_at ? `${minute(c.reversed_at)} · ` : ''}
                  {c.reverse_reason ?? ''}
                </span>
              ) : manage ? (
                <form method="post" action={`${base}/${c.conversion_id}/reverse`} class="row-form">
                  <CsrfField value={ctx.csrf} />
                  <input type="hidden" name="back" value={back} />
                  <input
                    name="reason"
                    required
                    maxLength={500}
                    aria-label={r.reverseReason(c.external_order_id)}
                    placeholder={r.reason}
                  />
                  <button type="submit" class="danger" data-action="reverse">
                    {r.reverse}
                  </button>
                </form>
              ) : (
                ''
              ),
            ])}
          />
          <ListPager ctx={ctx} base={base} filters={filters} pagination={list.pagination} />
        </>
      )}
    </>,
  );
}

function StatusBadge({ ctx, status }: { ctx: ConsoleCtx; status: string }) {
  const r = RECORD_TEXTS[ctx.fmt.lang];
  return (
    <span class={status === 'reversed' ? 'badge off' : 'badge on'} data-status={status}>
      {r.conversionStatus[status] ?? status}
    </span>
  );
}

/** A conversion: the order, its partner and customer, the cascade of its bonuses, reversal. */
export function conversionPage(
  ctx: ConsoleCtx,
  d: ConversionDetailResponse,
  shown: { reversed?: string; error?: string },
): HtmlPage {
  const { t, money } = ctx.fmt;
  const r = RECORD_TEXTS[ctx.fmt.lang];
  const slug = ctx.tenant.slug;
  const c: ConversionRowResponse = d.conversion;
  return consolePage(
    ctx,
    {
      title: `${r.order} ${c.external_order_id}`,
      area: 'conversions',
      notice: shown.reversed ? r.reversed(shown.reversed) : undefined,
      error: shown.error,
    },
    <>
      <p>
        <a href={`/org/${slug}/conversions`}>{r.allConversions}</a>
      </p>
      <dl class="profile">
        <dt>{t.status}</dt>
        <dd>
          <StatusBadge ctx={ctx} status={c.status} />
          {c.status === 'reversed' && (
            <span class="muted">
              {' '}
              {c.reversed_at ? minute(c.reversed_at) : ''} · {c.reverse_reason ?? ''}
            </span>
          )}
        </dd>
        <dt>{t.amount}</dt>
        <dd data-amount={String(c.amount_kopecks)}>{money(c.amount_kopecks, c.currency)}</dd>
        <dt>{r.commission}</dt>
        <dd data-commission={String(c.commission_kopecks)}>
          {money(c.commission_kopecks, c.currency)}
        </dd>
        <dt>{t.partner}</dt>
        <dd>
          <a href={`/org/${slug}/partners/${c.user_id}`}>{c.partner_name}</a>
        </dd>
        <dt>{r.customer}</dt>
        <dd>{c.customer_name}</dd>
        <dt>{t.created}</dt>
        <dd>{minute(c.created_at)}</dd>
        <dt>ID</dt>
        <dd>
          <code>{c.conversion_id}</code> · <code>{c.lead_id}</code>
        </dd>
      </dl>
      {c.status !== 'reversed' && ctx.can('manager') && (
        <form
          method="post"
          action={`/org/${slug}/conversions/${c.conversion_id}/reverse`}
          class="actions"
        >
          <CsrfField value={ctx.csrf} />
          <input type="hidden" name="back" value="detail" />
          <label>
            {r.reverseReason(c.external_order_id)} <input name="reason" required maxLength={500} />
          </label>
          <button type="submit" class="danger" data-action="reverse">
            {r.reverse}
          </button>
        </form>
      )}
      {c.status !== 'reversed' && !ctx.can('manager') && (
        <p class="muted">{r.viewerCannotReverse}</p>
      )}
      <TableSection
        id="cascade"
        caption={r.cascade}
        headers={[r.tier, t.partner, t.amount, t.status, r.reason]}
        numeric={[2]}
        empty={t.nothing}
        rows={d.bonuses.map((b) => [
          b.tier ?? '',
          <a href={`/org/${slug}/partners/${b.user_id}`} data-bonus={b.bonus_id}>
            {b.partner_name}
          </a>,
          <span data-bonus-amount={String(b.amount_kopecks)}>
            {money(b.amount_kopecks, b.currency)}
          </span>,
          <span class="badge" data-bonus-status={b.status}>
            {r.bonusStatus[b.status] ?? b.status}
          </span>,
          b.reason ?? '',
        ])}
      />
    </>,
  );
}
