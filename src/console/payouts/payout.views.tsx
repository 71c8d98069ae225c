import type { ConsoleCtx } from '../org-page';
import { CsrfField } from '../../common/pages/components';
import type { HtmlPage } from '../../common/pages/page';
import type { PayoutResponse } from '../../payouts/dto/payout.response';
import { DataTable, withParams } from '../../pages/layout';
import { consolePage } from '../console-page';
import { PAYOUT_TEXTS } from './payouts.i18n';
import { minute, noticeText, type PayoutNames, PayoutStatus } from './payouts.views';

/*
 * One payout's page, and the payouts section of a partner's page (payouts.views.tsx has the
 * runs and payouts lists these link from).
 */

/** One payout: what it pays, and (for managers, while pending) mark paid / failed / cancel. */
export function payoutPage(
  ctx: ConsoleCtx,
  p: PayoutResponse,
  names: PayoutNames,
  shown: { notice?: string; error?: string },
): HtmlPage {
  const { t: common, money } = ctx.fmt;
  const t = PAYOUT_TEXTS[ctx.fmt.lang];
  const base = `/org/${ctx.tenant.slug}/payouts`;
  const who = names.get(p.user_id);
  return consolePage(
    ctx,
    {
      title: t.payout(p.payout_id),
      area: 'payouts',
      notice: noticeText(t, shown.notice),
      error: shown.error,
    },
    <>
      <dl class="profile">
        <dt>{t.partner}</dt>
        <dd>
          <a href={`/org/${ctx.tenant.slug}/partners/${who?.member_id ?? p.user_id}`}>
            {who?.display_name ?? p.user_id}
          </a>
        </dd>
        <dt>{t.amount}</dt>
        <dd data-amount={String(p.amount_kopecks)}>{money(p.amount_kopecks, p.currency)}</dd>
        <dt>{t.status}</dt>
        <dd>
          <PayoutStatus t={t} status={p.status} />
        </dd>
        <dt>{t.run}</dt>
        <dd>
          <a href={withParams(base, { run: p.run_id })}>
            <code>{p.run_id}</code>
          </a>
        </dd>
        <dt>{t.created}</dt>
        <dd>{minute(p.created_at)}</dd>
        {p.paid_at && (
          <>
            <dt>{t.paidAt}</dt>
            <dd>{minute(p.paid_at)}</dd>
          </>
        )}
        {p.reference && (
          <>
            <dt>{t.reference}</dt>
            <dd data-reference>{p.reference}</dd>
          </>
        )}
        {p.failure_reason && (
          <>
            <dt>{t.reason}</dt>
            <dd data-reason>{p.failure_reason}</dd>
          </>
        )}
      </dl>
      {p.status !== 'pending' ? (
        <p class="muted">{t.notPending}</p>
      ) : ctx.can('manager') ? (
        <div class="payout-actions">
          <form method="post" action={`${base}/${p.payout_id}/paid`} class="actions">
            <CsrfField value={ctx.csrf} />
            <label>
              {t.reference} <input name="reference" required maxLength={200} />
            </label>
            <button type="submit" data-action="paid">
              {t.markPaid}
            </button>
          </form>
          <form method="post" action={`${base}/${p.payout_id}/failed`} class="actions">
            <CsrfField value={ctx.csrf} />
            <label>
              {t.reason} <input name="reason" required maxLength={500} />
            </label>
            <button type="submit" data-action="failed" class="danger">
              {t.markFailed}
            </button>
          </form>
          <form method="post" action={`${base}/${p.payout_id}/cancel`} class="actions">
            <CsrfField value={ctx.csrf} />
            <button type="submit" data-action="cancel" class="danger">
              {t.cancel}
            </button>
          </form>
        </div>
      ) : (
        <p class="muted">{t.viewerNote}</p>
      )}
      <h2>{t.items}</h2>
      <DataTable
        caption={t.items}
        hideCaption
        headers={[t.item, 'ID', t.amount]}
        numeric={[2]}
        empty={common.nothing}
        rows={p.items.map((i) => [
          i.bonus_id ? t.bonus : t.clawback,
          <code>{i.bonus_id ?? i.clawback_id}</code>,
          money(i.amount_kopecks, p.currency),
        ])}
      />
    </>,
  );
}

/** The payouts section of a partner's page: balances per currency and the newest payouts. */
export function PartnerPayouts(props: {
  ctx: ConsoleCtx;
  balances: {
    currency: string;
    available_kopecks: number;
    in_payout_kopecks: number;
    paid_kopecks: number;
  }[];
  payouts: { items: PayoutResponse[]; total: number };
  memberId: string;
  /** Masked (docs/partners.md, "Payout details"); null when the partner entered none. */
  details: { method: string; masked: string } | null;
}) {
  const { ctx } = props;
  const { t: common, money } = ctx.fmt;
  const t = PAYOUT_TEXTS[ctx.fmt.lang];
  const base = `/org/${ctx.tenant.slug}/payouts`;
  return (
    <section aria-labelledby="payouts-h">
      <h2 id="payouts-h">{t.partnerPayouts(props.payouts.total)}</h2>
      <dl class="profile">
        <dt>{t.payoutDetails}</dt>
        <dd data-payout-details={props.details?.method ?? 'none'}>
          {props.details
            ? `${t.payoutMethods[props.details.method] ?? props.details.method}: ${props.details.masked}`
            : t.noPayoutDetails}
        </dd>
      </dl>
      <DataTable
        caption={common.balance}
        hideCaption
        headers={[t.available, t.inPayout, t.paidTotal]}
        numeric={[0, 1, 2]}
        empty={common.nothing}
        rows={props.balances.map((b) => [
          <span data-balance="available" data-value={String(b.available_kopecks)}>
            {money(b.available_kopecks, b.currency)}
          </span>,
          <span data-balance="in_payout" data-value={String(b.in_payout_kopecks)}>
            {money(b.in_payout_kopecks, b.currency)}
          </span>,
          <span data-balance="paid" data-value={String(b.paid_kopecks)}>
            {money(b.paid_kopecks, b.currency)}
          </span>,
        ])}
      />
      {props.payouts.total > props.payouts.items.length && (
        <p>
          <a href={withParams(base, { user: props.memberId })}>{t.allOfPartner}</a>
        </p>
      )}
      {props.payouts.items.length > 0 && (
        <DataTable
          caption={t.payouts}
          hideCaption
          headers={[t.created, t.amount, t.status, `${t.reference} / ${t.reason}`]}
          numeric={[1]}
          empty={common.nothing}
          rows={props.payouts.items.map((p) => [
            <a href={`${base}/${p.payout_id}`}>{minute(p.created_at)}</a>,
            money(p.amount_kopecks, p.currency),
            <PayoutStatus t={t} status={p.status} />,
            p.reference ?? p.failure_reason ?? '',
          ])}
        />
      )}
    </section>
  );
}
