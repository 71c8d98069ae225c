import { call } from '../api';
import type { Ctx } from '../context';
import { h } from '../dom';
import { kpi, member, pageSize, pager, reader, txList } from '../parts';
import type { Bonuses, Payouts } from '../types';

/**
 * The totals, the tenant currency's balances (to be paid, in payout, paid out), other currencies'
 * accounts, the bonuses a page at a time, and the five newest payouts.
 */
export function bonuses(c: Ctx): void {
  let page = 1;
  const { reload } = reader(
    c,
    'bonuses',
    () =>
      Promise.all([
        call<Bonuses>(c, member(c, 'bonuses'), { page, page_size: pageSize(c) }),
        call<Payouts>(c, member(c, 'payouts'), { page: 1, page_size: 5 }),
      ]),
    ([d, p]) => ({
      nodes: [
        h(
          'div',
          { class: 'kpis' },
          kpi(c.t('cleared'), d.totals.cleared_formatted, 'cleared'),
          kpi(c.t('pending'), d.totals.pending_formatted, 'pending'),
        ),
        balances(c, d),
        d.accounts.some((a) => a.currency !== d.totals.currency)
          ? [
              h('h3', {}, c.t('accounts')),
              h(
                'ul',
                { class: 'rows', 'data-list': 'accounts' },
                d.accounts
                  .filter((a) => a.currency !== d.totals.currency)
                  .map((a) =>
                    h(
                      'li',
                      {},
                      h('span', {}, a.currency),
                      h(
                        'span',
                        { class: 'amt' },
                        `${a.cleared_formatted} · ${a.pending_formatted}`,
                      ),
                    ),
                  ),
              ),
            ]
          : null,
        h('h3', {}, c.t('tx')),
        txList(c, d.transactions, 'noTx'),
        pager(c, d.pagination, (n) => {
          page = n;
          void reload();
        }),
        h('h3', {}, c.t('payouts')),
        p.payouts.length
          ? h(
              'ul',
              { class: 'rows', 'data-list': 'payouts' },
              p.payouts.map((x) =>
                h(
                  'li',
                  { 'data-payout-id': x.payout_id, 'data-status': x.status },
                  h('div', {}, h('span', {}, x.status_human), h('small', {}, x.relative_time)),
                  h('span', { class: 'amt' }, x.amount_formatted),
                ),
              ),
            )
          : h('p', { class: 'muted' }, c.t('noPayouts')),
      ],
      empty: d.pagination.total === 0,
    }),
  );
}

/** The tenant currency's ledger balances, when the partner has any money in it. */
function balances(c: Ctx, d: Bonuses) {
  const own = d.accounts.find((a) => a.currency === d.totals.currency);
  return own
    ? h(
        'div',
        { class: 'kpis', 'data-list': 'balances' },
        kpi(c.t('avail'), own.available_formatted, 'available'),
        kpi(c.t('inPayout'), own.in_payout_formatted, 'in-payout'),
        kpi(c.t('paidOut'), own.paid_formatted, 'paid'),
      )
    : null;
}
