import { call, explain, type Failure } from '../api';
import type { Ctx } from '../context';
import { h } from '../dom';
import type { TextKey } from '../i18n';
import { head } from '../parts';
import { forgetSession, liveSession, signIn } from '../popup';
import { tell } from '../env';
import type { ReferralLink, ReferralLinkItem, ReferralLinks } from '../types';

/** This page's address without `ref` and fragment: the default target of a website link. */
function pageUrl(): string {
  const u = new URL(location.href);
  u.searchParams.delete('ref');
  u.hash = '';
  return u.href;
}

/**
 * "Get my link": signs the partner in through the popup (once per tab and hour: popup.ts keeps
 * the session), shows the links they already have with their clicks and promo codes, and the
 * link for this widget's target with a Copy button, made on request.
 */
export function referralLink(c: Ctx): void {
  const attr = (n: string) => c.el.getAttribute(n) || undefined;
  const type = attr('data-target-type') || 'website';
  const target = attr('data-target-id') || (type === 'website' ? pageUrl() : undefined);
  const text = attr('data-recommendation-text');
  const promo = attr('data-promo-code');
  /** The link for this widget's target, once made or found among the partner's. */
  let link: ReferralLink | null = null;
  let mine: ReferralLinkItem[] = [];
  let msg: ['error' | 'info', string] | null = null;
  let busy = false;
  let copied = false;

  const sameTarget = (l: ReferralLinkItem) =>
    l.target_type === type &&
    l.target_id === target &&
    (l.promo_code || undefined) === promo &&
    (l.recommendation_text || undefined) === text;

  const others = () => mine.filter((l) => !link || l.short_url !== link.short_url);

  const linkRow = (l: ReferralLinkItem) =>
    h(
      'li',
      { 'data-code': l.code },
      h(
        'div',
        {},
        h('span', { 'data-field': 'link-url' }, l.short_url),
        h('small', {}, l.promo_code ? c.t('promo', { code: l.promo_code }) : l.target_id),
      ),
      h(
        'span',
        { class: 'chip', 'data-field': 'clicks', 'data-clicks': l.clicks_count },
        c.t('clicksN', { n: c.num(l.clicks_count) }),
      ),
    );

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
                { type: 'button', class: 'btn', 'data-action': 'copy', onclick: () => void copy() },
                c.t(copied ? 'copied' : 'copy'),
              ),
            ),
            h(
              'p',
              { class: 'muted', 'data-part': link.reused ? 'reused' : 'created' },
              c.t(link.reused ? 'reused' : 'created'),
            ),
          ]
        : liveSession(c.tenant)
          ? null
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
            c.t(liveSession(c.tenant) ? 'newLink' : 'getLink'),
          ),
      others().length
        ? [
            h('h3', {}, c.t('myLinks')),
            h('ul', { class: 'rows', 'data-list': 'links' }, others().map(linkRow)),
          ]
        : null,
    );
  const say = (state: string, kind: 'error' | 'info' = 'info', key?: TextKey) => {
    msg = key ? [kind, c.t(key)] : null;
    c.state(state);
    paint();
  };

  function start(): void {
    if (liveSession(c.tenant)) return void create();
    const opened = signIn(c.tenant, (outcome) => {
      busy = false;
      if (outcome === 'success') void create();
      else if (outcome === 'denied') say('error', 'error', 'denied');
      else say('idle', 'info', 'cancelled');
    });
    if (!opened) return say('error', 'error', 'popupBlocked');
    busy = true;
    say('waiting', 'info', 'waiting');
  }

  /** A refused token is forgotten and the partner asked to sign in again; true if it was that. */
  function expired(e: Failure): boolean {
    if (e?.status !== 401) return false;
    forgetSession(c.tenant);
    link = null;
    mine = [];
    say('error', 'error', 'expired');
    return true;
  }

  /** The partner's links; this target's among them is shown as the link. */
  async function load(): Promise<void> {
    if (!liveSession(c.tenant)) return say('idle');
    busy = true;
    say('loading', 'info', 'loading');
    try {
      mine = (await call<ReferralLinks>(c, 'data/referral-links')).items;
      const found = mine.find(sameTarget);
      if (found) link = { short_url: found.short_url, reused: true };
      busy = false;
      say(link ? 'ready' : 'idle');
    } catch (err) {
      busy = false;
      if (!expired(err as Failure)) say('idle');
    }
  }

  async function create(): Promise<void> {
    busy = true;
    say('loading', 'info', 'creating');
    const body: Record<string, string | undefined> = { target_type: type, target_id: target };
    if (text) body.recommendation_text = text;
    if (promo) body.promo_code = promo;
    try {
      link = await call<ReferralLink>(c, 'data/referral-link', null, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      mine = (await call<ReferralLinks>(c, 'data/referral-links')).items;
      busy = false;
      say('ready');
    } catch (err) {
      const e = err as Failure;
      busy = false;
      if (expired(e)) return;
      if (e?.code === 'target_not_allowed' || e?.code === 'validation_failed') {
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

  async function copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(link!.short_url);
    } catch {
      const input = c.box.querySelector('input')!;
      input.select();
      document.execCommand('copy');
    }
    copied = true;
    paint();
    setTimeout(() => {
      copied = false;
      paint();
    }, 2000);
  }

  // A sign-in through another widget of the page shows this partner's links here too (not while
  // this widget's own sign-in or link is under way: it loads them itself).
  c.reload = () => (busy ? Promise.resolve() : load());
  void load();
}
