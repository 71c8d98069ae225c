import { call, explain, type Failure } from '../api';
import type { Ctx } from '../context';
import { h } from '../dom';
import type { TextKey } from '../i18n';
import { head } from '../parts';
import { forgetSession, liveSession, signIn, token } from '../popup';
import { tell } from '../env';
import type { ReferralLink } from '../types';

/** This page's address without `ref` and fragment: the default target of a website link. */
function pageUrl(): string {
  const u = new URL(location.href);
  u.searchParams.delete('ref');
  u.hash = '';
  return u.href;
}

/**
 * "Get my link": signs the partner in through the popup (once per page and hour), creates the
 * link and shows its `short_url` with a Copy button.
 */
export function referralLink(c: Ctx): void {
  const attr = (n: string) => c.el.getAttribute(n) || undefined;
  const type = attr('data-target-type') || 'website';
  const target = attr('data-target-id') || (type === 'website' ? pageUrl() : undefined);
  let link: ReferralLink | null = null;
  let msg: ['error' | 'info', string] | null = null;
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
  const say = (state: string, kind: 'error' | 'info' = 'info', key?: TextKey) => {
    msg = key ? [kind, c.t(key)] : null;
    c.state(state);
    paint();
  };

  function start(): void {
    if (liveSession()) return void create();
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

  async function create(): Promise<void> {
    busy = true;
    say('loading', 'info', 'creating');
    const body: Record<string, string | undefined> = { target_type: type, target_id: target };
    if (attr('data-recommendation-text'))
      body.recommendation_text = attr('data-recommendation-text');
    if (attr('data-promo-code')) body.promo_code = attr('data-promo-code');
    try {
      link = await call<ReferralLink>(c, 'data/referral-link', null, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${token()}`,
        },
        body: JSON.stringify(body),
      });
      busy = false;
      say('ready');
    } catch (err) {
      const e = err as Failure;
      busy = false;
      if (e?.status === 401) {
        forgetSession();
        return say('error', 'error', 'expired');
      }
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

  say('idle');
}
