/*! Referral service widgets (SPEC 8). Plain ES2020, no dependencies. MIT licence. */
(() => {
  'use strict';
  const W = window;
  const D = document;
  if (W.ServiceWidgets) return W.ServiceWidgets.scan();

  const script = D.currentScript || D.querySelector('script[data-tenant][src*="/embed/v1/widget"]');
  if (!script || !script.src) return;
  const SRC = new URL(script.src, location.href);
  /** The service's address: the script's URL without `/embed/v1/widget….js`. */
  const BASE = SRC.origin + SRC.pathname.replace(/\/embed\/v1\/[^/]*$/, '');
  const ORIGIN = SRC.origin;
  const TAG = '[service widget]';
  const mounted = new WeakSet();
  const told = new Set();
  /** The popup's bearer token: kept in this closure only, never in storage or cookies. */
  let session = null;

  // ---------------------------------------------------------------------------------------------
  // Texts

  const L = {
    ru: {
      loading: 'Загрузка…',
      retry: 'Повторить',
      prev: '← Назад',
      next: 'Вперёд →',
      page: 'Страница {p} из {n}',
      err: 'Не удалось загрузить данные.',
      errNet: 'Сервис недоступен. Проверьте соединение и попробуйте ещё раз.',
      errOrigin: 'Виджет не подключён для этого сайта.',
      errUser: 'Участник программы не найден.',
      errTenant: 'Партнёрская программа не найдена.',
      errConfig: 'Виджет настроен неверно.',
      cabinet: 'Кабинет партнёра',
      leadsN: 'Лиды',
      clicks: 'Переходы',
      cleared: 'Доступно',
      pending: 'В ожидании',
      recentLeads: 'Последние лиды',
      recentTx: 'Последние начисления',
      noLeads: 'Лидов пока нет.',
      noTx: 'Начислений пока нет.',
      claim: 'Войдите через «Получить ссылку», чтобы подтвердить профиль.',
      bonuses: 'Бонусы',
      tx: 'Начисления',
      accounts: 'Счета в других валютах',
      leads: 'Лиды',
      status: 'Статус',
      all: 'Все',
      s_new: 'Новый',
      s_processed: 'В работе',
      s_converted: 'Конвертирован',
      s_rejected: 'Отклонён',
      tree: 'Моя сеть',
      downline: 'Всего в сети: {n}',
      levels: 'Показано уровней: {n}.',
      cap: 'Глубже {n}-го уровня есть ещё участники.',
      deeper: 'Показать глубже',
      expandAll: 'Развернуть всё',
      collapseAll: 'Свернуть',
      truncated: 'Показаны первые 1000 участников.',
      noTree: 'В вашей сети пока никого нет.',
      partners: 'Мои партнёры',
      noPartners: 'Партнёров пока нет.',
      inactive: 'неактивен',
      since: 'с {d}',
      r_partner: 'Партнёр',
      r_ambassador: 'Амбассадор',
      r_leader: 'Лидер',
      link: 'Моя ссылка',
      linkHint: 'Войдите, чтобы получить короткую ссылку для приглашений.',
      getLink: 'Получить ссылку',
      waiting: 'Завершите вход во всплывающем окне…',
      creating: 'Создаём ссылку…',
      copy: 'Копировать',
      copied: 'Скопировано',
      reused: 'Это ваша ссылка, созданная ранее.',
      created: 'Ссылка создана.',
      popupBlocked:
        'Браузер заблокировал окно входа. Разрешите всплывающие окна и попробуйте снова.',
      cancelled: 'Вход отменён.',
      denied: 'Доступ не разрешён.',
      expired: 'Сессия истекла, войдите снова.',
      badTarget: 'На эту страницу нельзя сделать ссылку.',
      form: 'Оставить заявку',
      name: 'Имя',
      email: 'Email',
      phone: 'Телефон',
      send: 'Отправить',
      sent: 'Спасибо! Заявка отправлена.',
      again: 'Отправить ещё одну',
      noRef: 'Форма работает, когда вы пришли по ссылке партнёра.',
      badRef: 'Ссылка партнёра недействительна.',
      needName: 'Укажите имя.',
      needContact: 'Укажите email или телефон.',
      limited: 'Слишком много заявок. Попробуйте позже.',
      t_lead: 'За лид',
      t_manual: 'Ручное начисление',
      t_referrer: 'Заказ — личная продажа',
      t_upline: 'Заказ — {n}-я линия',
    },
    en: {
      loading: 'Loading…',
      retry: 'Retry',
      prev: '← Previous',
      next: 'Next →',
      page: 'Page {p} of {n}',
      err: 'Could not load the data.',
      errNet: 'The service is unreachable. Check the connection and try again.',
      errOrigin: 'This widget is not enabled for this site.',
      errUser: 'Partner not found.',
      errTenant: 'Partner program not found.',
      errConfig: 'This widget is not set up correctly.',
      cabinet: 'Partner cabinet',
      leadsN: 'Leads',
      clicks: 'Clicks',
      cleared: 'Available',
      pending: 'Pending',
      recentLeads: 'Recent leads',
      recentTx: 'Recent bonuses',
      noLeads: 'No leads yet.',
      noTx: 'No bonuses yet.',
      claim: 'Sign in through “Get my link” to confirm your profile.',
      bonuses: 'Bonuses',
      tx: 'Transactions',
      accounts: 'Accounts in other currencies',
      leads: 'Leads',
      status: 'Status',
      all: 'All',
      s_new: 'New',
      s_processed: 'In progress',
      s_converted: 'Converted',
      s_rejected: 'Rejected',
      tree: 'My network',
      downline: 'In your network: {n}',
      levels: 'Levels shown: {n}.',
      cap: 'There are members deeper than level {n}.',
      deeper: 'Show deeper',
      expandAll: 'Expand all',
      collapseAll: 'Collapse',
      truncated: 'Showing the first 1000 members.',
      noTree: 'Nobody in your network yet.',
      partners: 'My partners',
      noPartners: 'No partners yet.',
      inactive: 'inactive',
      since: 'since {d}',
      r_partner: 'Partner',
      r_ambassador: 'Ambassador',
      r_leader: 'Leader',
      link: 'My link',
      linkHint: 'Sign in to get your short link for invitations.',
      getLink: 'Get my link',
      waiting: 'Finish signing in in the pop-up window…',
      creating: 'Creating the link…',
      copy: 'Copy',
      copied: 'Copied',
      reused: 'This is the link you created before.',
      created: 'Link created.',
      popupBlocked: 'The browser blocked the sign-in window. Allow pop-ups and try again.',
      cancelled: 'Sign-in was cancelled.',
      denied: 'Access was not allowed.',
      expired: 'Your session has expired; sign in again.',
      badTarget: 'A link to this page cannot be made.',
      form: 'Leave a request',
      name: 'Name',
      email: 'Email',
      phone: 'Phone',
      send: 'Send',
      sent: 'Thank you! Your request has been sent.',
      again: 'Send another',
      noRef: 'This form works when you arrive through a partner’s link.',
      badRef: 'The partner’s link is not valid.',
      needName: 'Enter your name.',
      needContact: 'Enter an email or a phone number.',
      limited: 'Too many requests. Try again later.',
      t_lead: 'For a lead',
      t_manual: 'Manual bonus',
      t_referrer: 'Order — your sale',
      t_upline: 'Order — line {n}',
    },
  };

  // ---------------------------------------------------------------------------------------------
  // Styles: one constructed sheet shared by every shadow root (a nonce'd <style> where
  // constructed sheets are missing). Host pages theme the widgets through --sw-* properties.

  const CSS = `
:host{all:initial;display:block}
:host([hidden]){display:none}
*,*::before,*::after{box-sizing:border-box}
.w{all:initial;display:block;--a:var(--sw-accent,#2f5bea);--m:var(--sw-muted,#667085);--b:var(--sw-border,#e4e7ec);--s:var(--sw-surface,#f6f7fb);--r:var(--sw-radius,12px);
font-family:var(--sw-font,system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif);font-size:var(--sw-font-size,14px);line-height:1.45;
color:var(--sw-text,#1d2330);background:var(--sw-bg,#fff);border:1px solid var(--b);border-radius:var(--r);padding:var(--sw-padding,16px);text-align:start}
.w[aria-busy=true]>:not(.head){opacity:.55;transition:opacity .2s}
h2{font-size:1.15em;font-weight:600;margin:0 0 12px}
h3{font-size:.95em;font-weight:600;margin:16px 0 4px;color:var(--m)}
p{margin:8px 0}
.muted,small{color:var(--m)}
.kpis{display:grid;grid-template-columns:repeat(auto-fit,minmax(110px,1fr));gap:8px}
.kpi{background:var(--s);border-radius:calc(var(--r) - 4px);padding:10px 12px}
.kpi b{display:block;font-size:1.3em;font-variant-numeric:tabular-nums;white-space:nowrap}
.kpi span{color:var(--m);font-size:.85em}
ul{list-style:none;margin:0;padding:0}
.rows>li{display:flex;justify-content:space-between;align-items:center;gap:12px;padding:8px 0;border-bottom:1px solid var(--b)}
.rows>li:last-child{border-bottom:0}
.rows small{display:block;font-size:.85em}
.amt{font-variant-numeric:tabular-nums;font-weight:600;white-space:nowrap}
.end{display:flex;align-items:center;gap:8px;flex-shrink:0}
.chip{display:inline-block;font-size:.8em;padding:2px 8px;border-radius:999px;white-space:nowrap;color:var(--m);background:color-mix(in srgb,currentColor 12%,transparent)}
.new{color:var(--a)}.processed,.pending{color:var(--sw-warning,#b54708)}.converted,.approved{color:var(--sw-success,#067647)}
.rejected,.reversed,.err{color:var(--sw-danger,#b42318)}
.btn{font:inherit;cursor:pointer;border:1px solid var(--b);background:var(--sw-bg,#fff);color:inherit;border-radius:8px;padding:6px 12px;margin:0}
.btn.primary{background:var(--a);color:var(--sw-accent-text,#fff);border-color:transparent;padding:8px 16px}
.btn:disabled{opacity:.5;cursor:default}
:focus-visible{outline:2px solid var(--a);outline-offset:2px}
.pager{display:flex;align-items:center;justify-content:space-between;gap:8px;margin-top:12px}
.bar{display:flex;flex-wrap:wrap;align-items:center;gap:8px;margin-bottom:8px}
input,select{font:inherit;color:inherit;background:var(--sw-bg,#fff);border:1px solid var(--b);border-radius:8px;padding:6px 10px;margin:0}
label{display:block;margin:10px 0 4px;font-size:.9em}
form input{width:100%}
form .btn{margin-top:14px}
.link{display:flex;gap:8px;margin:8px 0}
.link input{flex:1;min-width:0;font-family:ui-monospace,Menlo,Consolas,monospace}
.note{background:var(--s);border-radius:8px;padding:8px 12px;font-size:.9em}
.tree ul{padding-inline-start:14px;margin-inline-start:10px;border-inline-start:1px dashed var(--b)}
.node{display:flex;align-items:center;gap:4px;padding:2px 0}
.tog{width:22px;height:22px;flex-shrink:0;padding:0;border:0;background:none;color:var(--m);cursor:pointer;font:inherit}
.off{opacity:.6}
`;
  let sheet = null;
  function style(root) {
    try {
      if (!sheet) {
        sheet = new CSSStyleSheet();
        sheet.replaceSync(CSS);
      }
      root.adoptedStyleSheets = [sheet];
    } catch {
      const el = D.createElement('style');
      if (script.nonce) el.nonce = script.nonce;
      el.textContent = CSS;
      root.append(el);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers

  /** DOM from data: text always goes in as text nodes, never as HTML. */
  function h(tag, props, ...kids) {
    const e = D.createElement(tag);
    let value;
    for (const k in props || {}) {
      const v = props[k];
      if (v == null || v === false) continue;
      if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else if (k === 'value') value = v;
      else e.setAttribute(k, v === true ? '' : String(v));
    }
    e.append(
      ...kids
        .flat(3)
        .filter((c) => c != null && c !== false)
        .map((c) => (c instanceof Node ? c : String(c))),
    );
    if (value !== undefined) e.value = value;
    return e;
  }
  const fill = (s, vars) => s.replace(/\{(\w+)\}/g, (_, k) => (vars && k in vars ? vars[k] : ''));
  const int = (v, min, max, dflt) => {
    const n = Number(v);
    return Number.isInteger(n) && n >= min && n <= max ? n : dflt;
  };
  /** Says something to the tenant's developer in the console, once per page and message. */
  function tell(level, message) {
    if (told.has(message)) return;
    told.add(message);
    console[level](`${TAG} ${message}`);
  }

  class ApiError extends Error {
    constructor(status, code, detail, errors) {
      super(detail || code || `HTTP ${status}`);
      Object.assign(this, { status, code, detail, errors });
    }
  }

  function url(c, path, params) {
    const u = new URL(`${BASE}/embed/v1/${path}`);
    u.searchParams.set('tenant', c.tenant);
    if (c.asked) u.searchParams.set('locale', c.asked);
    for (const k in params || {}) if (params[k] != null) u.searchParams.set(k, params[k]);
    return u.href;
  }

  async function call(c, path, params, init) {
    let res;
    try {
      res = await fetch(url(c, path, params), {
        credentials: 'omit',
        ...init,
        headers: { Accept: 'application/json', ...(init && init.headers) },
      });
    } catch {
      throw await unreachable(c);
    }
    let body = null;
    try {
      body = await res.json();
    } catch {
      // not JSON
    }
    if (!res.ok)
      throw new ApiError(res.status, body && body.code, body && body.detail, body && body.errors);
    return body;
  }

  const checks = {};
  /** The origin check of a tenant, asked once per page (again after an outage); null if down. */
  function originCheck(tenant) {
    checks[tenant] =
      checks[tenant] ||
      fetch(`${BASE}/embed/v1/widget/origin-check?tenant=${encodeURIComponent(tenant)}`, {
        credentials: 'omit',
      })
        .then((r) => r.json())
        .catch(() => null);
    return checks[tenant];
  }

  /**
   * A refused origin gets a 403 whose CORS headers the browser will not let a script read, so a
   * failed fetch looks like a network error. The origin check (readable from anywhere) tells a
   * refusal from an outage.
   */
  async function unreachable(c) {
    const check = await originCheck(c.tenant);
    if (!check) delete checks[c.tenant]; // an outage: ask again next time
    if (check && !check.allowed) {
      return new ApiError(check.code === 'tenant_not_found' ? 404 : 403, check.code, check.detail);
    }
    return new ApiError(0, 'network', 'unreachable');
  }

  /** The user-facing text for an error, and the developer's console line where one helps. */
  function explain(c, e) {
    const code = e && e.code;
    if (code === 'origin_not_allowed') {
      tell(
        'error',
        `403 origin_not_allowed: ${e.detail || ''} Add "${location.origin}" to the allowed_origins of ` +
          `tenant "${c.tenant}" (Admin API: PATCH ${BASE}/admin/v1/tenants/${c.tenant}, or the ` +
          `integration page ${BASE}/org/${c.tenant}/integration). Until then every request from this ` +
          'page is refused.',
      );
      return c.t('errOrigin');
    }
    if (code === 'tenant_not_found') {
      tell(
        'error',
        `404 tenant_not_found: no tenant "${c.tenant}". Check data-tenant on the <script> tag.`,
      );
      return c.t('errTenant');
    }
    if (code === 'user_not_found') {
      tell(
        'error',
        `404 user_not_found: data-user-id="${c.userId}" is not a member of tenant "${c.tenant}". ` +
          'Pass the tenant_service_id that POST /federation/v1/users/upsert returned for the user.',
      );
      return c.t('errUser');
    }
    if (code === 'validation_failed') {
      tell(
        'error',
        `400 validation_failed on the "${c.name}" widget: ${JSON.stringify(e.errors || e.detail)}`,
      );
      return c.t('errConfig');
    }
    if (code === 'network') return c.t('errNet');
    return c.t('err');
  }

  // ---------------------------------------------------------------------------------------------
  // Building blocks

  const head = (c, key) =>
    h(
      'div',
      { class: 'head' },
      h('h2', { part: 'title' }, c.el.getAttribute('data-title') || c.t(key)),
    );
  const kpi = (label, value, part) =>
    h(
      'div',
      { class: 'kpi', part: 'kpi', 'data-kpi': part },
      h('b', {}, value),
      h('span', {}, label),
    );
  const empty = (c, key) => h('p', { class: 'muted', 'data-part': 'empty' }, c.t(key));

  function leadList(c, leads, none) {
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

  function txLabel(c, t) {
    if (t.source_type === 'lead') return c.t('t_lead');
    if (t.source_type === 'manual') return c.t('t_manual');
    const m = /^upline_(\d+)$/.exec(t.tier || '');
    return m ? c.t('t_upline', { n: c.num(Number(m[1]) + 1) }) : c.t('t_referrer');
  }

  function txList(c, txs, none) {
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

  function pager(c, p, go) {
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

  /**
   * A read widget: loading, then ready or empty, or an error with a retry button. `view(data)`
   * returns `{nodes, empty}`; `c.reload()` fetches again, `c.repaint()` redraws the last data.
   */
  function reader(c, title, load, view) {
    let last = null;
    let seq = 0;
    const paint = () => {
      const v = view(last);
      c.state(v.empty ? 'empty' : 'ready');
      c.show(head(c, title), v.nodes);
    };
    c.repaint = paint;
    c.reload = async () => {
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
      } catch (e) {
        if (mine !== seq) return;
        last = null;
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
                { type: 'button', class: 'btn', 'data-action': 'retry', onclick: () => c.reload() },
                c.t('retry'),
              )
            : null,
        );
      } finally {
        if (mine === seq) c.box.removeAttribute('aria-busy');
      }
    };
    c.reload();
  }

  const member = (c, what) => `data/${what}/${encodeURIComponent(c.userId)}`;
  const pageSize = (c) => int(c.el.getAttribute('data-page-size'), 1, 100, 10);

  // ---------------------------------------------------------------------------------------------
  // The widgets

  const WIDGETS = {
    cabinet(c) {
      reader(
        c,
        'cabinet',
        () => call(c, member(c, 'cabinet')),
        (d) => ({
          nodes: [
            h(
              'p',
              { class: 'bar' },
              h('b', { 'data-field': 'display-name' }, d.user.display_name),
              h('span', { class: 'chip' }, d.user.badge.role_label),
            ),
            h(
              'div',
              { class: 'kpis' },
              kpi(c.t('leadsN'), c.num(d.kpi.leads_count), 'leads'),
              kpi(
                c.t('clicks'),
                d.kpi.clicks_count == null ? '—' : c.num(d.kpi.clicks_count),
                'clicks',
              ),
              kpi(c.t('cleared'), d.kpi.cleared_formatted, 'cleared'),
              kpi(c.t('pending'), d.kpi.pending_formatted, 'pending'),
            ),
            d.user.claim_required ? h('p', { class: 'note' }, c.t('claim')) : null,
            h('h3', {}, c.t('recentLeads')),
            leadList(c, d.recent_leads, 'noLeads'),
            h('h3', {}, c.t('recentTx')),
            txList(c, d.transactions, 'noTx'),
          ],
          empty: !d.recent_leads.length && !d.transactions.length,
        }),
      );
    },

    bonuses(c) {
      let page = 1;
      reader(
        c,
        'bonuses',
        () => call(c, member(c, 'bonuses'), { page, page_size: pageSize(c) }),
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
              c.reload();
            }),
          ],
          empty: d.pagination.total === 0,
        }),
      );
    },

    leads(c) {
      let page = 1;
      let status = c.el.getAttribute('data-status') || 'all';
      const statuses = ['all', 'new', 'processed', 'converted', 'rejected'];
      if (!statuses.includes(status)) status = 'all';
      reader(
        c,
        'leads',
        () => call(c, member(c, 'leads'), { status, page, page_size: pageSize(c) }),
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
                      status = e.target.value;
                      page = 1;
                      c.reload();
                    },
                  },
                  statuses.map((s) =>
                    h('option', { value: s }, c.t(s === 'all' ? 'all' : `s_${s}`)),
                  ),
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
              c.reload();
            }),
          ],
          empty: d.pagination.total === 0,
        }),
      );
    },

    'referral-tree'(c) {
      let depth = int(c.el.getAttribute('data-max-depth'), 1, 20, 3);
      const open = new Set();
      let all = false;
      reader(
        c,
        'tree',
        () => call(c, member(c, 'referral-tree'), { max_depth: depth }),
        (d) => {
          const kids = new Map();
          for (const level of d.levels.slice(1)) {
            for (const n of level) {
              if (!kids.has(n.parent_user_id)) kids.set(n.parent_user_id, []);
              kids.get(n.parent_user_id).push(n);
            }
          }
          const isOpen = (n) => all || n.depth === 0 || open.has(n.user_id);
          const node = (n) => {
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
                          c.repaint();
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
                h(
                  'span',
                  { 'data-part': 'downline' },
                  c.t('downline', { n: c.num(d.total_downline) }),
                ),
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
                          c.repaint();
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
                        c.reload();
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
    },

    partners(c) {
      let page = 1;
      const date = new Intl.DateTimeFormat(c.locale, { dateStyle: 'medium' });
      reader(
        c,
        'partners',
        () => call(c, member(c, 'partners'), { page, page_size: pageSize(c) }),
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
                          c.t(`r_${p.partnership_role}`) || p.partnership_role,
                        ),
                      ),
                    ),
                  ),
                )
              : empty(c, 'noPartners'),
            pager(c, d.pagination, (p) => {
              page = p;
              c.reload();
            }),
          ],
          empty: d.pagination.total === 0,
        }),
      );
    },

    'referral-link'(c) {
      const attr = (n) => c.el.getAttribute(n) || undefined;
      const type = attr('data-target-type') || 'website';
      const target = attr('data-target-id') || (type === 'website' ? pageUrl() : undefined);
      let link = null;
      let msg = null;
      let busy = false;
      let copied = false;

      const paint = () =>
        c.show(
          head(c, 'link'),
          link
            ? [
                h(
                  'div',
                  { class: 'link' },
                  h('input', {
                    readonly: true,
                    value: link.short_url,
                    'data-field': 'short-url',
                    'aria-label': c.t('link'),
                  }),
                  h(
                    'button',
                    { type: 'button', class: 'btn', 'data-action': 'copy', onclick: copy },
                    c.t(copied ? 'copied' : 'copy'),
                  ),
                ),
                h(
                  'p',
                  { class: 'muted', 'data-part': link.reused ? 'reused' : 'created' },
                  c.t(link.reused ? 'reused' : 'created'),
                ),
              ]
            : h('p', { class: 'muted' }, c.t('linkHint')),
          msg
            ? h(
                'p',
                {
                  class: msg[0] === 'error' ? 'err' : 'muted',
                  role: 'status',
                  'data-part': 'message',
                },
                msg[1],
              )
            : null,
          link
            ? null
            : h(
                'button',
                {
                  type: 'button',
                  class: 'btn primary',
                  part: 'button',
                  'data-action': 'get-link',
                  disabled: busy,
                  onclick: start,
                },
                c.t('getLink'),
              ),
        );
      const say = (state, kind, key) => {
        msg = key ? [kind, c.t(key)] : null;
        c.state(state);
        paint();
      };

      function start() {
        if (session && session.expiresAt - 60000 > Date.now()) return create();
        const state = [...crypto.getRandomValues(new Uint8Array(16))]
          .map((b) => b.toString(16).padStart(2, '0'))
          .join('');
        const q = new URLSearchParams({
          client_id: c.tenant,
          response_type: 'code',
          scope: 'profile:read',
          state,
          popup: '1',
        });
        const popup = W.open(
          `${BASE}/oauth/authorize?${q}`,
          'service_sign_in',
          'popup,width=480,height=640',
        );
        if (!popup) return say('error', 'error', 'popupBlocked');
        busy = true;
        say('waiting', 'info', 'waiting');
        let finished = false;
        const finish = (then) => {
          if (finished) return;
          finished = true;
          W.removeEventListener('message', onMessage);
          clearInterval(timer);
          busy = false;
          then();
        };
        const onMessage = (e) => {
          // Only the service's own popup, answering this very request, is heard.
          if (e.origin !== ORIGIN || e.source !== popup) return;
          const d = e.data;
          if (!d || typeof d !== 'object' || d.state !== state) return;
          if (d.type === 'service:auth-success' && typeof d.token === 'string') {
            finish(() => {
              session = {
                token: d.token,
                userId: d.user_id,
                expiresAt: Number(d.expires_at) || Date.now() + 3e6,
              };
              create();
            });
          } else if (d.type === 'service:auth-error') {
            finish(() => say('error', 'error', 'denied'));
          }
        };
        W.addEventListener('message', onMessage);
        const timer = setInterval(() => {
          if (popup.closed) setTimeout(() => finish(() => say('idle', 'info', 'cancelled')), 400);
        }, 500);
      }

      async function create() {
        busy = true;
        say('loading', 'info', 'creating');
        const body = { target_type: type, target_id: target };
        if (attr('data-recommendation-text'))
          body.recommendation_text = attr('data-recommendation-text');
        if (attr('data-promo-code')) body.promo_code = attr('data-promo-code');
        try {
          link = await call(c, 'data/referral-link', null, {
            method: 'POST',
            headers: {
              'Content-Type': 'application/json',
              Authorization: `Bearer ${session.token}`,
            },
            body: JSON.stringify(body),
          });
          busy = false;
          say('ready');
        } catch (e) {
          busy = false;
          if (e.status === 401) {
            session = null;
            return say('error', 'error', 'expired');
          }
          if (e.code === 'target_not_allowed' || e.code === 'validation_failed') {
            tell(
              'error',
              `${e.status} ${e.code}: the link target ${type} "${target}" was refused. Set data-target-type ` +
                'and data-target-id, or add this host to the link_domains of the tenant.',
            );
            return say('error', 'error', 'badTarget');
          }
          msg = ['error', explain(c, e)];
          c.state('error');
          paint();
        }
      }

      async function copy() {
        try {
          await navigator.clipboard.writeText(link.short_url);
        } catch {
          const input = c.box.querySelector('input');
          input.select();
          D.execCommand('copy');
        }
        copied = true;
        paint();
        setTimeout(() => {
          copied = false;
          paint();
        }, 2000);
      }

      say('idle');
    },

    'lead-form'(c) {
      const ref = new URLSearchParams(location.search).get('ref');
      if (!ref) {
        c.state('empty');
        return c.show(
          head(c, 'form'),
          h('p', { class: 'muted', 'data-part': 'no-ref' }, c.t('noRef')),
        );
      }
      let values = { name: '', email: '', phone: '' };
      const field = (name, type, auto, err) => [
        h('label', { for: `f-${name}` }, c.t(name)),
        h('input', {
          id: `f-${name}`,
          name,
          type,
          autocomplete: auto,
          value: values[name],
          maxlength: name === 'phone' ? 32 : 200,
          'aria-invalid': err ? 'true' : null,
        }),
      ];
      const form = (errors, note) => {
        c.show(
          head(c, 'form'),
          h(
            'form',
            {
              'data-form': 'lead',
              novalidate: true,
              onsubmit: submit,
              oninput: (e) => {
                const note = e.currentTarget.querySelector('[data-part=error]');
                if (note) note.remove();
              },
            },
            field('name', 'text', 'name', errors.name),
            field('email', 'email', 'email', errors.contact),
            field('phone', 'tel', 'tel', errors.contact),
            note ? h('p', { class: 'err', role: 'alert', 'data-part': 'error' }, note) : null,
            h(
              'button',
              { type: 'submit', class: 'btn primary', part: 'button', 'data-action': 'submit' },
              c.t('send'),
            ),
          ),
        );
      };
      async function submit(e) {
        e.preventDefault();
        const f = e.target.elements;
        values = {
          name: f.name.value.trim(),
          email: f.email.value.trim(),
          phone: f.phone.value.trim(),
        };
        if (!values.name) return form({ name: 1 }, c.t('needName'));
        if (!values.email && !values.phone) return form({ contact: 1 }, c.t('needContact'));
        e.target.querySelector('button').disabled = true;
        c.state('loading');
        const contact = { name: values.name };
        if (values.email) contact.email = values.email;
        if (values.phone) contact.phone = values.phone;
        const body = { ref, contact };
        if (c.el.getAttribute('data-offer-id')) body.offer_id = c.el.getAttribute('data-offer-id');
        try {
          const lead = await call(c, 'data/leads', null, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify(body),
          });
          c.state('sent');
          c.show(
            head(c, 'form'),
            h('p', { role: 'status', 'data-part': 'sent' }, c.t('sent')),
            h(
              'button',
              {
                type: 'button',
                class: 'btn',
                'data-action': 'again',
                onclick: () => {
                  values = { name: '', email: '', phone: '' };
                  c.state('ready');
                  form({});
                },
              },
              c.t('again'),
            ),
          );
          W.dispatchEvent(
            new CustomEvent('service-widget:lead', {
              detail: { tenant: c.tenant, lead_id: lead.lead_id },
            }),
          );
        } catch (err) {
          c.state('error');
          if (err.code === 'invalid_ref') return form({}, c.t('badRef'));
          if (err.code === 'rate_limited') return form({}, c.t('limited'));
          if (err.code === 'validation_failed') {
            const bad = (err.errors || []).map((x) => x.field);
            return form(
              {
                name: bad.includes('contact.name'),
                contact: bad.some((x) => /email|phone/.test(x)),
              },
              (err.errors || []).map((x) => `${x.field}: ${x.message}`).join('; ') || c.t('err'),
            );
          }
          form({}, explain(c, err));
        }
      }
      c.state('ready');
      form({});
    },
  };

  /** This page's address without `ref` and fragment: the default target of a website link. */
  function pageUrl() {
    const u = new URL(location.href);
    u.searchParams.delete('ref');
    u.hash = '';
    return u.href;
  }

  /** The canonical form of a BCP 47 tag this browser's Intl supports, else null (as the API). */
  function canonical(tag) {
    if (!tag || tag.length > 64) return null;
    try {
      const [c] = Intl.getCanonicalLocales(tag);
      return c && Intl.NumberFormat.supportedLocalesOf(c).length === 1 ? c : null;
    } catch {
      return null;
    }
  }

  /** The locale the page asks for: `data-locale` of the element or the script, else `lang`. */
  function askedLocale(el) {
    const near = el.closest('[lang]');
    return (
      canonical(el.getAttribute('data-locale')) ||
      canonical(script.getAttribute('data-locale')) ||
      canonical(near && near.getAttribute('lang')) ||
      canonical(D.documentElement.lang)
    );
  }

  /** Texts exist in Russian (for `ru` and its regional forms) and English (everything else). */
  const language = (locale) => (/^ru(-|$)/.test(locale) ? 'ru' : 'en');

  // ---------------------------------------------------------------------------------------------
  // Mounting

  const contexts = new Map();

  function mount(el) {
    if (!el || mounted.has(el)) return;
    const name = el.getAttribute('data-service-widget');
    const make = WIDGETS[name];
    if (!make) {
      tell('warn', `unknown widget "${name}"; use one of: ${Object.keys(WIDGETS).join(', ')}.`);
      return;
    }
    mounted.add(el);
    const tenant = el.getAttribute('data-tenant') || script.getAttribute('data-tenant');
    const asked = askedLocale(el);
    // A page that names no locale gets the tenant's, which the origin check tells (else English).
    if (asked || !tenant) begin(el, make, name, tenant, asked, asked || 'en');
    else
      originCheck(tenant).then((check) =>
        begin(el, make, name, tenant, null, canonical(check && check.locale) || 'en'),
      );
  }

  /** Renders a mounted widget in `locale`; `asked` is the locale the page named, if any. */
  function begin(el, make, name, tenant, asked, locale) {
    const root = el.shadowRoot || el.attachShadow({ mode: 'open' });
    root.replaceChildren();
    style(root);
    const box = h('div', { class: 'w', part: 'widget', 'data-widget': name, lang: locale });
    root.append(box);
    const texts = L[language(locale)];
    const numbers = new Intl.NumberFormat(locale);
    const c = {
      el,
      name,
      box,
      /** The locale of this widget's texts, dates and numbers; `asked` also goes to the API. */
      locale,
      asked,
      tenant,
      userId: el.getAttribute('data-user-id'),
      t: (k, vars) => fill(texts[k] || '', vars),
      num: (n) => (typeof n === 'number' ? numbers.format(n) : n),
      state: (s) => box.setAttribute('data-state', s),
      show: (...nodes) =>
        box.replaceChildren(...nodes.flat(3).filter((n) => n != null && n !== false)),
    };
    if (!c.tenant) {
      tell('error', 'no tenant: add data-tenant="<slug>" to the <script> tag.');
      c.state('error');
      return c.show(h('p', { class: 'err', 'data-part': 'error' }, c.t('errConfig')));
    }
    const needsUser = name !== 'referral-link' && name !== 'lead-form';
    if (needsUser && !c.userId) {
      tell('error', `the "${name}" widget needs data-user-id (the user's tenant_service_id).`);
      c.state('error');
      return c.show(h('p', { class: 'err', 'data-part': 'error' }, c.t('errConfig')));
    }
    contexts.set(el, c);
    make(c);
  }

  function scan(root) {
    (root || D).querySelectorAll('[data-service-widget]').forEach(mount);
  }

  // A lead sent through a lead form refreshes the lists that show it.
  W.addEventListener('service-widget:lead', (e) => {
    for (const c of contexts.values()) {
      if (
        ['leads', 'cabinet', 'bonuses'].includes(c.name) &&
        c.tenant === e.detail.tenant &&
        c.box.isConnected
      )
        c.reload();
    }
  });

  W.ServiceWidgets = {
    scan: () => scan(),
    mount,
    reload: (el) => {
      const c = contexts.get(el);
      if (c && c.reload) c.reload();
    },
  };

  const start = () => {
    scan();
    new MutationObserver((records) => {
      for (const r of records) {
        for (const n of r.addedNodes) {
          if (n.nodeType !== 1) continue;
          if (n.hasAttribute('data-service-widget')) mount(n);
          scan(n);
        }
      }
    }).observe(D.documentElement, { childList: true, subtree: true });
  };
  if (D.readyState === 'loading') D.addEventListener('DOMContentLoaded', start);
  else start();
})();
