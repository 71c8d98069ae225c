import { call } from '../api';
import type { Ctx } from '../context';
import { h } from '../dom';
import { leadList, member, pageSize, pager, reader } from '../parts';
import type { Leads } from '../types';

const STATUSES = ['all', 'new', 'processed', 'converted', 'rejected'] as const;

/** A status filter, the number of matching leads and the leads a page at a time. */
export function leads(c: Ctx): void {
  let page = 1;
  let status = c.el.getAttribute('data-status') || 'all';
  if (!(STATUSES as readonly string[]).includes(status)) status = 'all';
  const { reload } = reader(
    c,
    'leads',
    () => call<Leads>(c, member(c, 'leads'), { status, page, page_size: pageSize(c) }),
    (d) => ({
      nodes: [
        h(
          'div',
          { class: 'bar' },
          h(
            'label',
            {},
            `${c.t('status')} `,
            h(
              'select',
              {
                name: 'status',
                value: status,
                onchange: (e) => {
                  status = (e.target as HTMLSelectElement).value;
                  page = 1;
                  void reload();
                },
              },
              STATUSES.map((s) => h('option', { value: s }, c.t(s === 'all' ? 'all' : `s_${s}`))),
            ),
          ),
          h(
            'span',
            { class: 'muted', 'data-part': 'total' },
            `${c.t('leadsN')}: ${c.num(d.pagination.total)}`,
          ),
        ),
        leadList(c, d.leads, 'noLeads'),
        pager(c, d.pagination, (p) => {
          page = p;
          void reload();
        }),
      ],
      empty: d.pagination.total === 0,
    }),
  );
}
