import type { ConsoleCtx } from '../org-page';
import type { ComponentChildren } from 'preact';
import { CsrfField } from '../../common/pages/components';
import type { HtmlPage } from '../../common/pages/page';
import { BONUS_STATUSES } from '../../bonuses/bonus.entity';
import { RECORD_TEXTS } from '../records.i18n';
import { backQuery, DataTable, Pager, withParams, TableSection } from '../../pages/layout';
import { consolePage } from '../console-page';
import { PartnerPeriodFields } from '../record-filters';
import { BONUS_TEXTS, type BonusTexts } from './bonuses.i18n';

export interface BonusRow {
  bonus_id: string;
  user_id: string;
  /** The partner's surrogate id, name and the customer (BonusNamesReader). */
  member_id: string | null;
  partner_name: string | null;
  customer_name: string | null;
  amount_kopecks: number;
  currency: string;
  status: string;
  /** `lead`, `conversion` or `manual`, and a conversion bonus's tier (`referrer`, `upline_1`…). */
  source_type: string;
  tier: string | null;
  /** docs/money.md §2, "Versions": how a conversion bonus was computed, in one sentence. */
  explanation: string | null;
  created_at: string;
  reason: string | null;
  /** docs/fraud.md: the signals that hold a bonus for review, or null. */
  review: { status: string; signals: { code: string; detail: string }[] } | null;
}

export interface BonusesModel {
  totals: { status: string; count: number; amountKopecks: number; currency: string }[];
  filters: {
    status?: string;
    review?: string;
    user_id?: string;
    created_from?: string;
    created_to?: string;
  };
  /** Undefined when the filters were refused (the error says why). */
  list?: { items: BonusRow[]; page: number; totalPages: number };
}

/** What the redirect of an action says (the controller's query), in the page's language. */
export interface BonusesShown {
  notice?: string;
  error?: string;
  approved?: string;
  rejected?: string;
  /** `approve:3` or `reject:2`: a bulk action's count. */
  done?: string;
  /** The ids a bulk action found no longer pending, comma-separated. */
  stale?: string;
}

/** `2026-11-21T09:30:00.000Z` → `2026-11-21 09:30`. */
const minute = (iso: string) => iso.slice(0, 16).replace('T', ' ');

function noticeOf(b: BonusTexts, shown: BonusesShown): string | undefined {
  if (shown.approved) return b.approved(shown.approved);
  if (shown.rejected) return b.rejected(shown.rejected);
  const [action, n] = (shown.done ?? '').split(':');
  if (action === 'approve' && n) return b.approvedN(n);
  if (action === 'reject' && n) return b.rejectedN(n);
  return shown.notice;
}

function errorOf(b: BonusTexts, shown: BonusesShown): string | undefined {
  if (shown.stale) return b.stale(shown.stale.split(','));
  return shown.error && (b.errors[shown.error] ?? shown.error);
}

/** The bonus queue: totals by status, the filtered list, approval or rejection for managers. */
export function bonusesPage(ctx: ConsoleCtx, model: BonusesModel, shown: BonusesShown): HtmlPage {
  const { t, money } = ctx.fmt;
  const r = RECORD_TEXTS[ctx.fmt.lang];
  const b = BONUS_TEXTS[ctx.fmt.lang];
  const slug = ctx.tenant.slug;
  const base = `/org/${slug}/bonuses`;
  const manage = ctx.can('manager');
  const { filters } = model;
  const statusWord = (s: string) => r.bonusStatus[s] ?? s;
  const pending = (row: BonusRow) => manage && row.status === 'pending';
  const rows = (model.list?.items ?? []).map((row): ComponentChildren[] => [
    pending(row) ? (
      <input type="checkbox" name="ids" value={row.bonus_id} aria-label={b.select(row.bonus_id)} />
    ) : (
      ''
    ),
    <>
      {row.member_id ? (
        <a href={`/org/${slug}/partners/${row.member_id}`} data-partner-name>
          {row.partner_name}
        </a>
      ) : (
        row.partner_name
      )}{' '}
      <code class="muted">{row.user_id}</code>
    </>,
    <span data-customer>{row.customer_name ?? ''}</span>,
    <span data-amount={String(row.amount_kopecks)}>{money(row.amount_kopecks, row.currency)}</span>,
    <ReviewCell b={b} word={statusWord(row.status)} status={row.status} review={row.review} />,
    pending(row) ? (
      <div class="row-actions">
        <button type="submit" formAction={`${base}/${row.bonus_id}/approve`} data-action="approve">
          {b.approve}
        </button>
        <input
          name={`reason_${row.bonus_id}`}
          placeholder={b.reason}
          maxLength={500}
          aria-label={b.reasonFor(row.bonus_id)}
        />
        <button type="submit" formAction={`${base}/${row.bonus_id}/reject`} data-action="reject">
          {b.reject}
        </button>
      </div>
    ) : (
      (row.reason ?? '')
    ),
    <>
      {`${b.sourceType[row.source_type] ?? row.source_type}${row.tier ? ` · ${row.tier}` : ''}`}
      {row.explanation && (
        <small class="muted" data-explanation>
          <br />
          {row.explanation}
        </small>
      )}
    </>,
    minute(row.created_at),
    <code>{row.bonus_id}</code>,
  ]);
  return consolePage(
    ctx,
    { title: t.bonuses, area: 'bonuses', notice: noticeOf(b, shown), error: errorOf(b, shown) },
    <>
      <TableSection
        id="totals"
        caption={b.totals}
        headers={[t.status, b.count, t.amount]}
        numeric={[1, 2]}
        empty={t.nothing}
        rows={model.totals.map((x) => [
          statusWord(x.status),
          ctx.fmt.int(x.count),
          money(x.amountKopecks, x.currency),
        ])}
      />
      <p>
        <a href={`${base}?status=pending&review=flagged`} data-link="review-queue">
          {b.reviewQueue}
        </a>{' '}
        <span class="muted">{b.reviewQueueHint}</span>
      </p>
      <form class="filters search" method="get" action={base} role="search">
        <label>
          {t.status}{' '}
          <select name="status">
            <option value="">{b.any}</option>
            {BONUS_STATUSES.map((s) => (
              <option value={s} selected={filters.status === s}>
                {statusWord(s)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {b.review}{' '}
          <select name="review">
            <option value="">{b.any}</option>
            {['flagged', 'cleared'].map((s) => (
              <option value={s} selected={filters.review === s}>
                {b.reviewStatus[s]}
              </option>
            ))}
          </select>
        </label>
        <PartnerPeriodFields
          ctx={ctx}
          base={base}
          partnerLabel={b.user}
          userId={filters.user_id}
          from={['created_from', filters.created_from]}
          to={['created_to', filters.created_to]}
        />
      </form>
      <p class="csv">
        <a href={withParams(`/org/${slug}/bonuses.csv`, filters)} download data-link="csv">
          {t.csv}
        </a>{' '}
        <span class="muted">{b.csvHint}</span>
      </p>
      {!manage && <p class="muted">{b.viewerNote}</p>}
      <form method="post" action={`${base}/bulk`} data-form="bonuses">
        <CsrfField value={ctx.csrf} />
        <input type="hidden" name="back" value={backQuery(filters, model.list?.page)} />
        {/* Enter in a reason field submits nothing: the first submit button is a dead one. */}
        <button type="submit" disabled hidden aria-hidden="true" tabIndex={-1} />
        <DataTable
          caption={t.bonuses}
          hideCaption
          headers={[
            '',
            t.partner,
            r.customer,
            t.amount,
            t.status,
            '',
            t.source,
            t.created,
            b.bonus,
          ]}
          numeric={[3]}
          empty={t.nothing}
          rows={rows}
        />
        {manage && rows.length > 0 && (
          <div class="filters">
            <label>
              {b.bulkReason} <input name="bulk_reason" maxLength={500} />
            </label>
            <button type="submit" name="action" value="approve" data-action="bulk-approve">
              {b.approveSelected}
            </button>
            <button type="submit" name="action" value="reject" data-action="bulk-reject">
              {b.rejectSelected}
            </button>
          </div>
        )}
      </form>
      {model.list && (
        <Pager
          ctx={ctx}
          base={base}
          params={filters}
          page={model.list.page}
          totalPages={model.list.totalPages}
        />
      )}
    </>,
  );
}

/**
 * The status, and for a reviewed bonus its review and each signal in words (docs/fraud.md): the
 * stored sentence is English, so a Russian page names the signal in Russian before it.
 */
function ReviewCell(props: {
  b: BonusTexts;
  word: string;
  status: string;
  review: BonusRow['review'];
}) {
  const { b, review } = props;
  return (
    <>
      <span class="badge" data-status={props.status}>
        {props.word}
      </span>
      {review && (
        <>
          {' '}
          <span class="badge" data-review={review.status}>
            {b.reviewStatus[review.status] ?? review.status}
          </span>
          <ul class="signals">
            {review.signals.map((s) => (
              <li>
                <code>{s.code}</code>{' '}
                {b.signals[s.code] ? (
                  <>
                    {b.signals[s.code]}: <span lang="en">{s.detail}</span>
                  </>
                ) : (
                  s.detail
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}
