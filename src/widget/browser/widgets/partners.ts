import { call } from '../api';
import type { Ctx } from '../context';
import { h } from '../dom';
import type { TextKey } from '../i18n';
import { empty, member, pageSize, pager, reader } from '../parts';
import type { Partners } from '../types';

/** The first line, newest first: name, role, since when; deactivated members marked inactive. */
export function partners(c: Ctx): void {
  let page = 1;
  const date = new Intl.DateTimeFormat(c.locale, { dateStyle: 'medium' });
  const { reload } = reader(
    c,
    'partners',
    () => call<Partners>(c, member(c, 'partners'), { page, page_size: pageSize(c) }),
    (d) => ({
      nodes: [
        d.partners.length
          ? h(
              'ul',
              { class: 'rows', 'data-list': 'partners' },
              d.partners.map((p) =>
                h(
                  'li',
                  { 'data-user-id': p.user_id, class: p.is_active ? null : 'off' },
                  h(
                    'div',
                    {},
                    h('span', { 'data-field': 'name' }, p.display_name),
                    h('small', {}, c.t('since', { d: date.format(new Date(p.joined_at)) })),
                  ),
                  h(
                    'div',
                    { class: 'end' },
                    p.is_active
                      ? null
                      : h(
                          'span',
                          { class: 'chip rejected', 'data-part': 'inactive' },
                          c.t('inactive'),
                        ),
                    h(
                      'span',
                      { class: 'chip' },
                      c.t(`r_${p.partnership_role}` as TextKey) || p.partnership_role,
                    ),
                  ),
                ),
              ),
            )
          : empty(c, 'noPartners'),
        pager(c, d.pagination, (p) => {
          page = p;
          void reload();
        }),
      ],
      empty: d.pagination.total === 0,
    }),
  );
}
