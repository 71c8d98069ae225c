import type { ConsoleCtx } from '../org-page';
import type { ComponentChildren } from 'preact';
import { CsrfField } from '../../common/pages/components';
import type { HtmlPage } from '../../common/pages/page';
import { EVENT_TYPES } from '../../outbox/event-types';
import { EMBED_AUTH_MODES } from '../../tenants/tenant.entity';
import { DataTable } from '../../pages/layout';
import { consolePage } from '../console-page';
import { PostButton } from '../../pages/forms';
import { minute } from '../org-page.views';
import { INTEGRATION_TEXTS, type IntegrationTexts, sayOutcome } from './integration.i18n';

/** Copy buttons of secrets shown once: they appear only when JavaScript runs. */
export const COPY_SCRIPT = `document.querySelectorAll('[data-copy]').forEach(function (b) {
  b.hidden = false;
  b.addEventListener('click', function () {
    navigator.clipboard.writeText(document.getElementById(b.getAttribute('data-copy')).textContent);
    b.textContent = b.getAttribute('data-copied');
  });
});`;

/** What the integration page shows; keys only for owners (as the Admin API lists them). */
export interface IntegrationModel {
  keys?: {
    key_id: string;
    name: string | null;
    key_hint: string;
    created_at: string;
    revoked_at: string | null;
  }[];
  endpoint?: { url: string; events: string[]; enabled: boolean };
  deliveries: {
    event_id: string;
    event_type: string;
    status: string;
    attempts: number;
    last_status_code: number | null;
  }[];
}

export interface Shown {
  /** In English (the controllers'); the page says it in its language (sayOutcome). */
  notice?: string;
  error?: string;
  /** A secret shown once: a new tenant key (`name`: its name or id) or webhook signing secret. */
  secret?: {
    id: 'new-key' | 'new-secret';
    kind: 'key' | 'secret' | 'rotated';
    name?: string;
    value: string;
  };
}

/** A secret shown once, with a copy button that appears when JavaScript is on. */
function ShownOnce(props: { x: IntegrationTexts; secret: NonNullable<Shown['secret']> }) {
  const { x, secret } = props;
  return (
    <>
      <p>
        <strong>{x.secretLabel[secret.kind](secret.name ?? '')}</strong> {x.shownOnce}
      </p>
      <p class="secret" id={secret.id}>
        {secret.value}
      </p>
      <button type="button" data-copy={secret.id} data-copied={x.copied} hidden>
        {x.copy}
      </button>
    </>
  );
}

/** A delivery's status (`pending`, `delivered`, `dead`) in the page's words. */
export const deliveryStatus = (x: IntegrationTexts, status: string) =>
  x.deliveryStatus[status] ?? status;

export function integrationPage(
  shownAt: ConsoleCtx,
  model: IntegrationModel,
  shown: Shown,
): HtmlPage {
  // Shown after a post too (a new key or secret): the language switch leads to the page itself.
  const ctx = { ...shownAt, url: new URL(`/org/${shownAt.tenant.slug}/integration`, 'http://x') };
  const { t } = ctx.fmt;
  const x = INTEGRATION_TEXTS[ctx.fmt.lang];
  const slug = ctx.tenant.slug;
  const base = `/org/${slug}`;
  const owner = ctx.can('owner');
  const disabled = !owner;
  const { endpoint } = model;
  return consolePage(
    ctx,
    {
      title: t.integration,
      area: 'integration',
      notice: sayOutcome(x, shown.notice),
      error: sayOutcome(x, shown.error),
      script: COPY_SCRIPT,
    },
    <div class="integration">
      {shown.secret && <ShownOnce x={x} secret={shown.secret} />}
      <section aria-labelledby="origins-h">
        <h2 id="origins-h">{x.origins}</h2>
        <form method="post" action={`${base}/integration/settings`} data-form="settings">
          <CsrfField value={ctx.csrf} />
          <label for="allowed_origins">{x.allowedOrigins}</label>
          <textarea id="allowed_origins" name="allowed_origins" disabled={disabled}>
            {ctx.tenant.allowedOrigins.join('\n')}
          </textarea>
          <label for="link_domains">{x.linkDomains}</label>
          <textarea id="link_domains" name="link_domains" disabled={disabled}>
            {ctx.tenant.linkDomains.join('\n')}
          </textarea>
          <label for="embed_auth">{x.embedAuth}</label>
          <select
            id="embed_auth"
            name="embed_auth"
            disabled={disabled}
            aria-describedby="embed_auth-hint"
          >
            {EMBED_AUTH_MODES.map((mode) => (
              <option value={mode} selected={ctx.tenant.embedAuth === mode}>
                {x.embedAuthModes[mode]}
              </option>
            ))}
          </select>
          <p id="embed_auth-hint" class="muted">
            {x.embedAuthHint}
          </p>
          {owner && (
            <button type="submit" data-action="save-settings">
              {x.save}
            </button>
          )}
        </form>
      </section>
      {model.keys && (
        <section aria-labelledby="keys-h">
          <h2 id="keys-h">{x.tenantKeys}</h2>
          <DataTable
            caption={x.tenantKeys}
            hideCaption
            headers={[x.name, x.key, t.created, x.actions]}
            empty={t.nothing}
            rows={model.keys.map((k) => [
              k.name ?? '—',
              <code>{k.key_hint}…</code>,
              minute(k.created_at),
              k.revoked_at ? (
                x.revoked(k.revoked_at.slice(0, 10))
              ) : (
                <PostButton
                  action={`${base}/integration/keys/${k.key_id}/revoke`}
                  csrf={ctx.csrf}
                  label={x.revoke}
                />
              ),
            ])}
          />
          <form method="post" action={`${base}/integration/keys`} data-form="create-key">
            <CsrfField value={ctx.csrf} />
            <label for="key-name">{x.newKeyName}</label>
            <input id="key-name" name="name" maxLength={200} />
            <button type="submit" data-action="create-key">
              {x.createKey}
            </button>
          </form>
        </section>
      )}
      <section aria-labelledby="webhook-h">
        <h2 id="webhook-h">{x.webhook}</h2>
        <form method="post" action={`${base}/integration/webhook`} data-form="webhook">
          <CsrfField value={ctx.csrf} />
          <label for="webhook-url">{x.receiverUrl}</label>
          <input
            id="webhook-url"
            name="url"
            type="url"
            value={endpoint?.url ?? ''}
            disabled={disabled}
          />
          <fieldset class="events">
            <legend>{x.events}</legend>
            {EVENT_TYPES.map((type) => (
              <label>
                <input
                  type="checkbox"
                  name="events"
                  value={type}
                  checked={endpoint?.events.includes(type)}
                  disabled={disabled}
                />{' '}
                <code>{type}</code>
              </label>
            ))}
          </fieldset>
          <label>
            <input
              type="checkbox"
              name="enabled"
              checked={!endpoint || endpoint.enabled}
              disabled={disabled}
            />{' '}
            {x.enabled}
          </label>
          {owner && (
            <button type="submit" data-action="save-webhook">
              {x.saveWebhook}
            </button>
          )}
        </form>
        {owner && endpoint && (
          <div class="actions">
            <PostButton
              action={`${base}/integration/webhook/secret`}
              csrf={ctx.csrf}
              label={x.rotateSecret}
            />
            <PostButton
              action={`${base}/integration/webhook/test`}
              csrf={ctx.csrf}
              label={x.sendTest}
            />
          </div>
        )}
      </section>
      <section aria-labelledby="deliveries-h">
        <h2 id="deliveries-h">{x.recentDeliveries}</h2>
        <DataTable
          caption={x.recentDeliveries}
          hideCaption
          headers={[x.event, x.type, t.status, x.attemptsCount, x.lastAnswer, x.actions]}
          numeric={[3, 4]}
          empty={t.nothing}
          rows={model.deliveries.map((d): ComponentChildren[] => [
            <a href={`${base}/webhook-events/${d.event_id}`}>{d.event_id}</a>,
            <code>{d.event_type}</code>,
            <span class="badge">{deliveryStatus(x, d.status)}</span>,
            ctx.fmt.int(d.attempts),
            String(d.last_status_code ?? '—'),
            d.status === 'dead' && owner ? (
              <PostButton
                action={`${base}/webhook-events/${d.event_id}/replay`}
                csrf={ctx.csrf}
                label={x.replay}
              />
            ) : (
              ''
            ),
          ])}
          rowClasses={model.deliveries.map((d) => (d.status === 'dead' ? 'dead' : undefined))}
        />
      </section>
    </div>,
  );
}
