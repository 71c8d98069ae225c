import type { HtmlPage } from '../../common/pages/page';
import type { WebhookEventDetailResponse } from '../../webhooks/dto/webhook.response';
import type { OrgContext } from '../org-page.guard';
import { orgPage, PostButton, Table } from '../views/layout';

/** One webhook event: its status, body and attempts, with a replay for owners. */
export function webhookEventPage(
  ctx: OrgContext,
  eventId: string,
  detail: WebhookEventDetailResponse,
  shown: { notice?: string; error?: string },
): HtmlPage {
  return orgPage(
    ctx,
    { title: `Event ${eventId}`, area: 'integration', notice: shown.notice, error: shown.error },
    <>
      <div class="actions">
        Status: <span class="badge">{detail.status}</span>{' '}
        {detail.status !== 'pending' && ctx.can('owner') && (
          <PostButton
            action={`/org/${ctx.tenant.slug}/webhook-events/${eventId}/replay`}
            csrf={ctx.csrf}
            label="Replay"
          />
        )}
      </div>
      <pre class="table">{JSON.stringify(detail.event, null, 2)}</pre>
      <h2>Attempts</h2>
      <Table
        headers={['#', 'At', 'Status', 'Duration', 'Error', 'Answer']}
        rows={detail.attempts.map((a) => [
          `${a.attempt}${a.replay ? ' (replay)' : ''}`,
          a.at,
          String(a.status_code ?? '—'),
          a.duration_ms === null ? a.state.replace('_', ' ') : `${a.duration_ms} ms`,
          a.error ?? '',
          <code>{(a.response_body ?? '').slice(0, 300)}</code>,
        ])}
      />
    </>,
  );
}
