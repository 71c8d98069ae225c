import { call } from '../api';
import type { Ctx } from '../context';
import { h, int } from '../dom';
import { empty, member, reader } from '../parts';
import type { Tree, TreeNode } from '../types';

/**
 * The network from the partner down: first line open, every node with referrals expandable, how
 * many levels are shown and, when the depth cap cut the tree, "Show deeper" (3 more, up to 20).
 */
export function referralTree(c: Ctx): void {
  let depth = int(c.el.getAttribute('data-max-depth'), 1, 20, 3);
  const open = new Set<string>();
  let all = false;
  const { reload, repaint } = reader(
    c,
    'tree',
    () => call<Tree>(c, member(c, 'referral-tree'), { max_depth: depth }),
    (d) => {
      const kids = new Map<string | null, TreeNode[]>();
      for (const level of d.levels.slice(1)) {
        for (const n of level) {
          let siblings = kids.get(n.parent_user_id);
          if (!siblings) kids.set(n.parent_user_id, (siblings = []));
          siblings.push(n);
        }
      }
      const isOpen = (n: TreeNode) => all || n.depth === 0 || open.has(n.user_id);
      const node = (n: TreeNode): HTMLLIElement => {
        const ch = kids.get(n.user_id) || [];
        const o = ch.length > 0 && isOpen(n);
        return h(
          'li',
          {
            'data-user-id': n.user_id,
            'data-depth': n.depth,
            'aria-expanded': ch.length ? String(o) : null,
          },
          h(
            'div',
            { class: 'node' },
            ch.length && n.depth > 0
              ? h(
                  'button',
                  {
                    type: 'button',
                    class: 'tog',
                    'data-action': 'toggle',
                    'aria-label': n.display_name,
                    onclick: () => {
                      if (o) {
                        open.delete(n.user_id);
                        all = false;
                      } else open.add(n.user_id);
                      repaint();
                    },
                  },
                  o ? '▾' : '▸',
                )
              : h('span', { class: 'tog' }, n.depth === 0 ? '●' : '·'),
            h('span', { 'data-field': 'name' }, n.display_name),
            ch.length ? h('small', {}, ` · ${c.num(ch.length)}`) : null,
          ),
          o ? h('ul', {}, ch.map(node)) : null,
        );
      };
      const shown = d.levels.length - 1;
      return {
        nodes: [
          h(
            'div',
            { class: 'bar' },
            h('span', { 'data-part': 'downline' }, c.t('downline', { n: c.num(d.total_downline) })),
            d.total_downline
              ? h(
                  'button',
                  {
                    type: 'button',
                    class: 'btn',
                    'data-action': all ? 'collapse' : 'expand',
                    onclick: () => {
                      all = !all;
                      open.clear();
                      repaint();
                    },
                  },
                  c.t(all ? 'collapseAll' : 'expandAll'),
                )
              : null,
          ),
          d.total_downline
            ? h('ul', { class: 'tree', part: 'tree' }, node(d.root))
            : empty(c, 'noTree'),
          h(
            'p',
            { class: 'muted', 'data-part': 'depth' },
            c.t('levels', { n: c.num(Math.min(shown, d.max_depth)) }),
            ' ',
            d.hit_depth_cap
              ? h('span', { 'data-part': 'depth-cap' }, c.t('cap', { n: c.num(d.max_depth) }))
              : null,
          ),
          d.hit_depth_cap && depth < 20
            ? h(
                'button',
                {
                  type: 'button',
                  class: 'btn',
                  'data-action': 'deeper',
                  onclick: () => {
                    depth = Math.min(20, depth + 3);
                    void reload();
                  },
                },
                c.t('deeper'),
              )
            : null,
          d.truncated ? h('p', { class: 'note' }, c.t('truncated')) : null,
        ],
        empty: d.total_downline === 0,
      };
    },
  );
}
