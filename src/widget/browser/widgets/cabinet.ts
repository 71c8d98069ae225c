import { call } from '../api';
import type { Ctx } from '../context';
import { h } from '../dom';
import { kpi, leadList, member, money, reader, txList } from '../parts';
import type { Cabinet } from '../types';

/** Name and role, leads and clicks, the partner's money and next payout, the newest leads and bonuses. */
export function cabinet(c: Ctx): void {
  reader(
    c,
    'cabinet',
    () => call<Cabinet>(c, member(c, 'cabinet')),
    (d) => ({
      nodes: [
        h(
          'p',
          { class: 'bar' },
          h('b', { 'data-field': 'display-name' }, d.user.display_name),
          h('span', { class: 'chip' }, d.user.badge.role_label),
        ),
        money(c, d.balance, [
          kpi(c.t('leadsN'), c.num(d.kpi.leads_count), 'leads'),
          kpi(
            c.t('clicks'),
            d.kpi.clicks_count == null ? '—' : c.num(d.kpi.clicks_count),
            'clicks',
          ),
        ]),
        d.user.claim_required ? h('p', { class: 'note' }, c.t('claim')) : null,
        h('h3', {}, c.t('recentLeads')),
        leadList(c, d.recent_leads, 'noLeads'),
        h('h3', {}, c.t('recentTx')),
        txList(c, d.transactions, 'noTx'),
      ],
      empty: !d.recent_leads.length && !d.transactions.length,
    }),
  );
}
