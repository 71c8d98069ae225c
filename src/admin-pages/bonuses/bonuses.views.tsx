import type { ComponentChildren } from 'preact';
import { CsrfField } from '../../common/pages/components';
import { type HtmlPage, withQuery } from '../../common/pages/page';
import { BONUS_STATUSES } from '../../bonuses/bonus.entity';
import type { OrgContext } from '../org-page.guard';
import { minute, orgPage, Pager, Table } from '../views/layout';

export interface BonusRow {
  bonus_id: string;
  user_id: string;
  /** The partner's surrogate id, name and the customer (BonusNamesReader). */
  member_id: string | null;
  partner_name: string | null;
  customer_name: string | null;
  amount_kopecks: number;
  /** Formatted in the tenant's locale. */
  amount: string;
  status: string;
  source: string;
  created_at: string;
  reason: string | null;
  /** docs/fraud.md: the signals that hold a bonus for review, or null. */
  review: { status: string; signals: { code: string; detail: string }[] } | null;
}

export interface BonusesModel {
  totals: { status: string; count: number; amount: string }[];
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

/** Totals by status, the filtered list, and approval or rejection for managers. */
export function bonusesPage(
  ctx: OrgContext,
  model: BonusesModel,
  shown: { notice?: string; error?: string },
): HtmlPage {
  const base = `/org/${ctx.tenant.slug}/bonuses`;
  const manage = ctx.can('manager');
  const { filters } = model;
  const pending = (b: BonusRow) => manage && b.status === 'pending';
  const rows = (model.list?.items ?? []).map((b): ComponentChildren[] => [
    pending(b) ? (
      <input type="checkbox" name="ids" value={b.bonus_id} aria-label={`Select ${b.bonus_id}`} />
    ) : (
      ''
    ),
    <>
      {b.member_id ? (
        <a href={`/org/${ctx.tenant.slug}/partners/${b.member_id}`} data-partner-name>
          {b.partner_name}
        </a>
      ) : (
        b.partner_name
      )}{' '}
      <code class="muted">{b.user_id}</code>
    </>,
    <span data-customer>{b.customer_name ?? ''}</span>,
    <span data-amount={String(b.amount_kopecks)}>{b.amount}</span>,
    <ReviewCell status={b.status} review={b.review} />,
    pending(b) ? (
      <div class="row-actions">
        <button type="submit" formAction={`${base}/${b.bonus_id}/approve`} data-action="approve">
          Approve
        </button>
        <input
          name={`reason_${b.bonus_id}`}
          placeholder="Reason"
          maxLength={500}
          aria-label={`Reason for ${b.bonus_id}`}
        />
        <button type="submit" formAction={`${base}/${b.bonus_id}/reject`} data-action="reject">
          Reject
        </button>
      </div>
    ) : (
      (b.reason ?? '')
    ),
    b.source,
    minute(b.created_at),
    <code>{b.bonus_id}</code>,
  ]);
  return orgPage(
    ctx,
    { title: 'Bonuses', area: 'bonuses', ...shown },
    <>
      <section>
        <h2>Totals</h2>
        <Table
          headers={['Status', 'Count', 'Amount']}
          rows={model.totals.map((t) => [t.status, String(t.count), t.amount])}
        />
      </section>
      <p>
        <a href={`${base}?status=pending&review=flagged`} data-link="review-queue">
          Review queue
        </a>{' '}
        <span class="muted">
          pending bonuses a risk signal holds back; the grace period never approves them
        </span>
      </p>
      <form class="filters" method="get" action={base}>
        <label>
          Status{' '}
          <select name="status">
            <option value="">any</option>
            {BONUS_STATUSES.map((s) => (
              <option selected={filters.status === s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Review{' '}
          <select name="review">
            <option value="">any</option>
            {['flagged', 'cleared'].map((r) => (
              <option selected={filters.review === r}>{r}</option>
            ))}
          </select>
        </label>
        <label>
          User <input name="user_id" value={filters.user_id ?? ''} placeholder="usr_…" />
        </label>
        <label>
          From <input type="date" name="created_from" value={filters.created_from ?? ''} />
        </label>
        <label>
          To <input type="date" name="created_to" value={filters.created_to ?? ''} />
        </label>
        <button type="submit">Filter</button>
      </form>
      <p>
        <a
          href={withQuery(`/org/${ctx.tenant.slug}/bonuses.csv`, filters)}
          download
          data-link="csv"
        >
          Download CSV
        </a>{' '}
        <span class="muted">the bonuses these filters keep</span>
      </p>
      <form method="post" action={`${base}/bulk`} data-form="bonuses">
        <CsrfField value={ctx.csrf} />
        {/* Enter in a reason field submits nothing: the first submit button is a dead one. */}
        <button type="submit" disabled hidden aria-hidden="true" tabIndex={-1} />
        <Table
          headers={[
            '',
            'Partner',
            'Customer',
            'Amount',
            'Status',
            '',
            'Source',
            'Created',
            'Bonus',
          ]}
          rows={rows}
        />
        {manage && (
          <div class="filters">
            <label>
              Reason for rejection <input name="bulk_reason" maxLength={500} />
            </label>
            <button type="submit" name="action" value="approve" data-action="bulk-approve">
              Approve selected
            </button>
            <button type="submit" name="action" value="reject" data-action="bulk-reject">
              Reject selected
            </button>
          </div>
        )}
      </form>
      {model.list && (
        <Pager
          base={base}
          params={filters}
          page={model.list.page}
          totalPages={model.list.totalPages}
        />
      )}
    </>,
  );
}

/** The status, and for a reviewed bonus its review and each signal in words (docs/fraud.md). */
function ReviewCell({ status, review }: { status: string; review: BonusRow['review'] }) {
  return (
    <>
      <span class="badge">{status}</span>
      {review && (
        <>
          {' '}
          <span class="badge" data-review={review.status}>
            {review.status}
          </span>
          <ul class="signals">
            {review.signals.map((s) => (
              <li>
                <code>{s.code}</code> {s.detail}
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}
