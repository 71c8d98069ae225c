/** Building blocks the widgets share: heading, KPI tiles, lists, pager and the read cycle. */

import { explain, type Failure, needsSignIn } from './api';
import type { Ctx } from './context';
import { h, int, type Child } from './dom';
import type { TextKey } from './i18n';
import { forgetSession, signIn } from './popup';
import type { LeadItem, Money, Pagination, Transaction } from './types';

export const head = (c: Ctx, key: TextKey): HTMLDivElement =>
  h(
    'div',
    { class: 'head' },
    h('h2', { part: 'title' }, c.el.getAttribute('data-title') || c.t(key)),
  );

export const kpi = (label: string, value: string, part: string): HTMLDivElement =>
  h(
    'div',
    { class: 'kpi', part: 'kpi', 'data-kpi': part },
    h('span', {}, label),
    h('b', {}, value),
  );

/**
 * `key`'s sentence with each `{name}` replaced by `nodes[name]` (an element the tests can find),
 * the rest as text.
 */
export function sentence(c: Ctx, key: TextKey, nodes: Record<string, Node>): Child[] {
  const keep = Object.fromEntries(Object.keys(nodes).map((k) => [k, `{${k}}`]));
  return c
    .t(key, keep)
    .split(/\{(\w+)\}/)
    .map((part, i) => (i % 2 ? nodes[part] : part))
    .filter((part) => part !== '');
}

/**
 * The partner's money, each sum once, as the API computes it (`balance`): available, in payout,
 * paid out and pending, every amount in `[data-metric]`; then the next payout: its date by the
 * program's schedule (or that the program pays on request) and what is still missing to the
 * minimum (or that the minimum is reached). `more` tiles (the cabinet's leads and clicks) follow
 * the four in the same grid.
 */
export function money(c: Ctx, b: Money, more: HTMLElement[] = []): HTMLElement[] {
  const tile = (label: string, value: string, metric: string, kind: string) =>
    h(
      'div',
      { class: `kpi ${kind}`, part: 'kpi', 'data-kpi': metric.replace('_', '-') },
      h('span', {}, label),
      h('b', { 'data-metric': metric }, value),
    );
  const n = b.next_payout;
  const when = n.date_formatted
    ? sentence(c, 'nextOn', {
        d: h('b', { 'data-metric': 'next_payout_date', 'data-date': n.date }, n.date_formatted),
      })
    : [c.t('nextManual')];
  const toMin =
    n.remaining_kopecks > 0
      ? sentence(c, 'toMinimum', {
          r: h('b', { 'data-metric': 'to_minimum' }, n.remaining_formatted),
          m: h('span', { 'data-metric': 'minimum' }, n.minimum_formatted),
        })
      : sentence(c, 'minimumReached', {
          m: h('span', { 'data-metric': 'minimum' }, n.minimum_formatted),
          p: h('b', { 'data-metric': 'payable' }, n.payable_formatted),
        });
  return [
    h(
      'div',
      { class: 'kpis money', 'data-list': 'balance' },
      tile(
        c.t('avail'),
        b.available_formatted,
        'available',
        b.available_kopecks < 0 ? 'main neg' : 'main',
      ),
      tile(c.t('inPayout'), b.in_payout_formatted, 'in_payout', ''),
      tile(c.t('paidOut'), b.paid_formatted, 'paid', ''),
      tile(c.t('pending'), b.pending_formatted, 'pending', ''),
      more,
    ),
    h(
      'p',
      { class: 'next', 'data-part': 'next-payout', 'data-schedule': n.schedule },
      h('span', {}, when),
      h('span', { class: 'muted' }, toMin),
    ),
  ];
}

export const empty = (c: Ctx, key: TextKey): HTMLParagraphElement =>
  h('p', { class: 'muted', 'data-part': 'empty' }, c.t(key));

export function leadList(c: Ctx, leads: LeadItem[], none: TextKey): HTMLElement {
  if (!leads.length) return empty(c, none);
  return h(
    'ul',
    { class: 'rows', 'data-list': 'leads' },
    leads.map((l) =>
      h(
        'li',
        { 'data-lead-id': l.id, 'data-status': l.status },
        h(
          'div',
          {},
          h('span', { 'data-field': 'name' }, l.contact_name),
          h('small', {}, l.relative_time),
        ),
        h('span', { class: `chip ${l.status}` }, l.status_human),
      ),
    ),
  );
}

/**
 * What a bonus was for: a lead, a manual bonus, a bounty reached, or an order of the partner's own
 * or of line n.
 */
function txLabel(c: Ctx, t: Transaction): string {
  if (t.source_type === 'lead') return c.t('t_lead');
  if (t.source_type === 'manual') return c.t('t_manual');
  if (t.source_type === 'bounty') return c.t('t_bounty');
  const m = /^upline_(\d+)$/.exec(t.tier || '');
  return m ? c.t('t_upline', { n: c.num(Number(m[1]) + 1) }) : c.t('t_referrer');
}

export function txList(c: Ctx, txs: Transaction[], none: TextKey): HTMLElement {
  if (!txs.length) return empty(c, none);
  return h(
    'ul',
    { class: 'rows', 'data-list': 'transactions' },
    txs.map((t) =>
      h(
        'li',
        { 'data-bonus-id': t.bonus_id, 'data-status': t.status },
        h('div', {}, h('span', {}, txLabel(c, t)), h('small', {}, t.relative_time)),
        h(
          'div',
          { class: 'end' },
          h('span', { class: 'amt' }, t.amount_formatted),
          h('span', { class: `chip ${t.status}` }, t.status_human),
        ),
      ),
    ),
  );
}

export function pager(c: Ctx, p: Pagination, go: (page: number) => void): HTMLDivElement | null {
  if (p.total_pages <= 1) return null;
  return h(
    'div',
    { class: 'pager', part: 'pager' },
    h(
      'button',
      {
        type: 'button',
        class: 'btn',
        'data-action': 'prev',
        disabled: p.page <= 1,
        onclick: () => go(p.page - 1),
      },
      c.t('prev'),
    ),
    h(
      'span',
      { class: 'muted', 'data-part': 'page' },
      c.t('page', { p: c.num(p.page), n: c.num(p.total_pages) }),
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'btn',
        'data-action': 'next',
        disabled: p.page >= p.total_pages,
        onclick: () => go(p.page + 1),
      },
      c.t('next'),
    ),
  );
}

/** What a read widget shows for its data, and whether that counts as empty. */
export interface View {
  nodes: Child;
  empty: boolean;
}

/**
 * A read widget: loading, then ready or empty, or an error with a retry button. `view(data)`
 * returns `{nodes, empty}`. `reload` (also `c.reload`) fetches again, `repaint` redraws the last
 * data.
 */
export function reader<T>(
  c: Ctx,
  title: TextKey,
  load: () => Promise<T>,
  view: (data: T) => View,
): { reload: () => Promise<void>; repaint: () => void } {
  let last: T | null = null;
  let seq = 0;
  const paint = () => {
    const v = view(last as T);
    c.state(v.empty ? 'empty' : 'ready');
    c.show(head(c, title), v.nodes);
  };
  const reload = async (): Promise<void> => {
    const mine = ++seq;
    c.state('loading');
    c.box.setAttribute('aria-busy', 'true');
    if (!last)
      c.show(head(c, title), h('p', { class: 'muted', 'data-part': 'loading' }, c.t('loading')));
    try {
      const data = await load();
      if (mine !== seq) return;
      last = data;
      paint();
    } catch (err) {
      if (mine !== seq) return;
      const e = err as Failure;
      last = null;
      if (needsSignIn(e)) return askToSignIn(c, title, e, reload);
      c.state('error');
      c.show(
        head(c, title),
        h(
          'p',
          {
            class: 'err',
            role: 'alert',
            'data-part': 'error',
            'data-code': (e && e.code) || 'error',
          },
          explain(c, e),
        ),
        e && (e.code === 'network' || !e.status || e.status >= 500)
          ? h(
              'button',
              {
                type: 'button',
                class: 'btn',
                'data-action': 'retry',
                onclick: () => void reload(),
              },
              c.t('retry'),
            )
          : null,
      );
    } finally {
      if (mine === seq) c.box.removeAttribute('aria-busy');
    }
  };
  c.reload = reload;
  void reload();
  return { reload, repaint: paint };
}

/**
 * A read that needs the partner's own sign-in (`embed_auth: token`): a button that opens the popup
 * (in the click, so no pop-up blocker stops it); on success every widget of the tenant reads again
 * (main.ts hears `service-widget:signed-in`). A refused or stale token is forgotten first.
 */
function askToSignIn(c: Ctx, title: TextKey, e: Failure, reload: () => Promise<void>): void {
  if (e && e.status === 401) forgetSession(c.tenant);
  const other = e && e.status === 403;
  let note: TextKey = other
    ? 'otherPartner'
    : e && e.code === 'token_expired'
      ? 'expired'
      : 'signInToSee';
  const paint = () => {
    c.state('sign-in');
    c.show(
      head(c, title),
      h('p', { class: 'muted', 'data-part': 'sign-in', role: 'status' }, c.t(note)),
      h(
        'button',
        { type: 'button', class: 'btn primary', 'data-action': 'sign-in', onclick: start },
        c.t('signIn'),
      ),
    );
  };
  function start(): void {
    const opened = signIn(c.tenant, (outcome) => {
      if (outcome === 'success') return void reload();
      note = outcome === 'denied' ? 'denied' : 'cancelled';
      paint();
    });
    note = opened ? 'waiting' : 'popupBlocked';
    paint();
  }
  paint();
}

/** The path of a read of the widget's member (read widgets are mounted only with a user id). */
export const member = (c: Ctx, what: string): string =>
  `data/${what}/${encodeURIComponent(c.userId!)}`;

/** `data-page-size`: 1–100, default 10. */
export const pageSize = (c: Ctx): number => int(c.el.getAttribute('data-page-size'), 1, 100, 10);
