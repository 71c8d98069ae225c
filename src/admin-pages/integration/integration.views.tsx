import type { ComponentChildren } from 'preact';
import { CsrfField } from '../../common/pages/components';
import type { HtmlPage } from '../../common/pages/page';
import { EVENT_TYPES } from '../../events/event-types';
import type { OrgContext } from '../org-page.guard';
import { minute, orgPage, PostButton, ShownOnce, Table } from '../views/layout';

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
  notice?: string;
  error?: string;
  /** A secret shown once: a new tenant key or webhook signing secret. */
  secret?: { id: 'new-key' | 'new-secret'; label: string; value: string };
}

export function integrationPage(ctx: OrgContext, model: IntegrationModel, shown: Shown): HtmlPage {
  const slug = ctx.tenant.slug;
  const base = `/org/${slug}`;
  const owner = ctx.can('owner');
  const disabled = !owner;
  const { endpoint } = model;
  return orgPage(
    ctx,
    { title: 'Integration', area: 'integration', notice: shown.notice, error: shown.error },
    <>
      {shown.secret && <ShownOnce {...shown.secret} />}
      <section>
        <h2>Origins and link domains</h2>
        <form method="post" action={`${base}/integration/settings`} data-form="settings">
          <CsrfField value={ctx.csrf} />
          <label for="allowed_origins">Allowed origins (one per line)</label>
          <textarea id="allowed_origins" name="allowed_origins" disabled={disabled}>
            {ctx.tenant.allowedOrigins.join('\n')}
          </textarea>
          <label for="link_domains">Link domains (one per line)</label>
          <textarea id="link_domains" name="link_domains" disabled={disabled}>
            {ctx.tenant.linkDomains.join('\n')}
          </textarea>
          {owner && (
            <button type="submit" data-action="save-settings">
              Save
            </button>
          )}
        </form>
      </section>
      {model.keys && (
        <section>
          <h2>Tenant keys</h2>
          <Table
            headers={['Name', 'Key', 'Created', '']}
            rows={model.keys.map((k) => [
              k.name ?? '—',
              <code>{k.key_hint}…</code>,
              minute(k.created_at),
              k.revoked_at ? (
                `revoked ${k.revoked_at.slice(0, 10)}`
              ) : (
                <PostButton
                  action={`${base}/integration/keys/${k.key_id}/revoke`}
                  csrf={ctx.csrf}
                  label="Revoke"
                />
              ),
            ])}
          />
          <form method="post" action={`${base}/integration/keys`} data-form="create-key">
            <CsrfField value={ctx.csrf} />
            <label for="key-name">New key name</label>
            <input id="key-name" name="name" maxLength={200} />
            <button type="submit" data-action="create-key">
              Create key
            </button>
          </form>
        </section>
      )}
      <section>
        <h2>Webhook</h2>
        <form method="post" action={`${base}/integration/webhook`} data-form="webhook">
          <CsrfField value={ctx.csrf} />
          <label for="webhook-url">Receiver URL (https)</label>
          <input
            id="webhook-url"
            name="url"
            type="url"
            value={endpoint?.url ?? ''}
            disabled={disabled}
          />
          <fieldset>
            <legend>Events</legend>
            {EVENT_TYPES.map((type) => (
              <label>
                <input
                  type="checkbox"
                  name="events"
                  value={type}
                  checked={endpoint?.events.includes(type)}
                  disabled={disabled}
                />{' '}
                {type}
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
            Enabled
          </label>
          {owner && (
            <button type="submit" data-action="save-webhook">
              Save webhook
            </button>
          )}
        </form>
        {owner && endpoint && (
          <div class="actions">
            <PostButton
              action={`${base}/integration/webhook/secret`}
              csrf={ctx.csrf}
              label="Rotate secret"
            />
            <PostButton
              action={`${base}/integration/webhook/test`}
              csrf={ctx.csrf}
              label="Send test event"
            />
          </div>
        )}
      </section>
      <section>
        <h2>Recent deliveries</h2>
        <Table
          headers={['Event', 'Type', 'Status', 'Attempts', 'Last answer', '']}
          rows={model.deliveries.map((d): ComponentChildren[] => [
            <a href={`${base}/webhook-events/${d.event_id}`}>{d.event_id}</a>,
            d.event_type,
            <span class="badge">{d.status}</span>,
            String(d.attempts),
            String(d.last_status_code ?? '—'),
            d.status === 'dead' && owner ? (
              <PostButton
                action={`${base}/webhook-events/${d.event_id}/replay`}
                csrf={ctx.csrf}
                label="Replay"
              />
            ) : (
              ''
            ),
          ])}
          rowClasses={model.deliveries.map((d) => (d.status === 'dead' ? 'dead' : undefined))}
        />
      </section>
    </>,
  );
}
