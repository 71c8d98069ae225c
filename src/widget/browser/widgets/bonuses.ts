import { call } from '../api';
import type { Ctx } from '../context';
import { h } from '../dom';
import { member, money, pageSize, pager, reader, txList } from '../parts';
import type { Bonuses, Payouts } from '../types';

/**
 * The partner's money in the tenant currency (available, in payout, paid out, pending: each sum
 * once, as the API computes it) with the next payout, other currencies' accounts, the bonuses a
 * page at a time, and the five newest payouts.
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
        money(c, d.balance),
        others(c, d),
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

/** The accounts in currencies other than the tenant's: the same four sums, one row each. */
function others(c: Ctx, d: Bonuses) {
  const rest = d.accounts.filter((a) => a.currency !== d.totals.currency);
  if (!rest.length) return null;
  const sum = (label: string, value: string, metric: string) =>
    h('span', {}, h('small', {}, label), h('span', { class: 'amt', 'data-metric': metric }, value));
  return [
    h('h3', {}, c.t('accounts')),
    h(
      'ul',
      { class: 'rows', 'data-list': 'accounts' },
      rest.map((a) =>
        h(
          'li',
          { 'data-currency': a.currency },
          h('b', {}, a.currency),
          h(
            'div',
            { class: 'sums' },
            sum(c.t('avail'), a.available_formatted, 'available'),
            sum(c.t('inPayout'), a.in_payout_formatted, 'in_payout'),
            sum(c.t('paidOut'), a.paid_formatted, 'paid'),
            sum(c.t('pending'), a.pending_formatted, 'pending'),
          ),
        ),
      ),
    ),
  ];
}
