import { call } from '../api';
import type { Ctx } from '../context';
import { h } from '../dom';
import { kpi, member, pageSize, pager, reader, txList } from '../parts';
import type { Bonuses } from '../types';

/** The totals (and other currencies' accounts), then the bonuses a page at a time. */
export function bonuses(c: Ctx): void {
  let page = 1;
  const { reload } = reader(
    c,
    'bonuses',
    () => call<Bonuses>(c, member(c, 'bonuses'), { page, page_size: pageSize(c) }),
    (d) => ({
      nodes: [
        h(
          'div',
          { class: 'kpis' },
          kpi(c.t('cleared'), d.totals.cleared_formatted, 'cleared'),
          kpi(c.t('pending'), d.totals.pending_formatted, 'pending'),
        ),
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
        pager(c, d.pagination, (p) => {
          page = p;
          void reload();
        }),
      ],
      empty: d.pagination.total === 0,
    }),
  );
}
