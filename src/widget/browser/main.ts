/*
 * The entry of widget.js (docs/architecture.md; docs/embedding.md, section 11): finds every
 * `[data-service-widget]` element, now and as the page adds more, and renders each widget in its
 * own shadow root. Bundled by ../widget-build.ts into one ES2020 IIFE.
 */

import { originCheck } from './api';
import { context, type Ctx, type Widget } from './context';
import { h } from './dom';
import { script, tell } from './env';
import { askedLocale, canonical, texts } from './i18n';
import { style } from './styles';
import { needsUser, WIDGETS } from './widgets';

const mounted = new WeakSet<Element>();
const contexts = new Map<Element, Ctx>();

function mount(el: Element | null | undefined): void {
  if (!el || mounted.has(el)) return;
  const name = el.getAttribute('data-service-widget');
  const make = name ? WIDGETS[name] : undefined;
  if (!name || !make) {
    tell('warn', `unknown widget "${name}"; use one of: ${Object.keys(WIDGETS).join(', ')}.`);
    return;
  }
  mounted.add(el);
  const tenant = el.getAttribute('data-tenant') || script?.getAttribute('data-tenant');
  const asked = askedLocale(el);
  // A page that names no locale gets the tenant's, which the origin check tells (else English).
  if (asked || !tenant) begin(el, make, name, tenant, asked, asked || 'en');
  else
    void originCheck(tenant).then((check) =>
      begin(el, make, name, tenant, null, canonical(check && check.locale) || 'en'),
    );
}

/** Renders a mounted widget in `locale`; `asked` is the locale the page named, if any. */
function begin(
  el: Element,
  make: Widget,
  name: string,
  tenant: string | null | undefined,
  asked: string | null,
  locale: string,
): void {
  const root = el.shadowRoot || el.attachShadow({ mode: 'open' });
  root.replaceChildren();
  style(root);
  const box = h('div', { class: 'w', part: 'widget', 'data-widget': name, lang: locale });
  root.append(box);
  const misconfigured = (message: string) => {
    tell('error', message);
    box.setAttribute('data-state', 'error');
    box.replaceChildren(h('p', { class: 'err', 'data-part': 'error' }, texts(locale).errConfig));
  };
  if (!tenant) return misconfigured('no tenant: add data-tenant="<slug>" to the <script> tag.');
  const c = context(el, name, box, tenant, asked, locale);
  if (needsUser(name) && !c.userId) {
    return misconfigured(`the "${name}" widget needs data-user-id (the user's tenant_service_id).`);
  }
  contexts.set(el, c);
  make(c);
}

function scan(root?: ParentNode): void {
  (root || document).querySelectorAll('[data-service-widget]').forEach(mount);
}

function boot(): void {
  // A lead sent through a lead form refreshes the lists that show it.
  window.addEventListener('service-widget:lead', (e) => {
    for (const c of contexts.values()) {
      if (
        ['leads', 'cabinet', 'bonuses'].includes(c.name) &&
        c.tenant === e.detail.tenant &&
        c.box.isConnected
      )
        void c.reload?.();
    }
  });

  // A partner signed in through one widget: the tenant's other widgets read again with the token.
  window.addEventListener('service-widget:signed-in', (e) => {
    for (const c of contexts.values()) {
      if (c.tenant === e.detail.tenant && c.box.isConnected) void c.reload?.();
    }
  });

  window.ServiceWidgets = {
    scan: () => scan(),
    mount,
    reload: (el) => {
      const c = contexts.get(el);
      if (c && c.reload) void c.reload();
    },
  };

  const start = () => {
    scan();
    new MutationObserver((records) => {
      for (const r of records) {
        for (const n of r.addedNodes) {
          if (n.nodeType !== 1) continue;
          const el = n as Element;
          if (el.hasAttribute('data-service-widget')) mount(el);
          scan(el);
        }
      }
    }).observe(document.documentElement, { childList: true, subtree: true });
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
}

// Loaded twice (two script tags): the first copy mounts what the second one's page added.
if (window.ServiceWidgets) window.ServiceWidgets.scan();
else if (script) boot();
