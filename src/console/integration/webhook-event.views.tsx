import type { ConsoleCtx } from '../org-page';
import type { HtmlPage } from '../../common/pages/page';
import { DataTable } from '../../pages/layout';
import { consolePage } from '../console-page';
import type { WebhookEventDetailResponse } from '../../webhooks/dto/webhook.response';
import { PostButton } from '../../pages/forms';
import { INTEGRATION_TEXTS, sayOutcome } from './integration.i18n';
import { deliveryStatus } from './integration.views';

/** One webhook event: its status, body and attempts, with a replay for owners. */
export function webhookEventPage(
  ctx: ConsoleCtx,
  eventId: string,
  detail: WebhookEventDetailResponse,
  shown: { notice?: string; error?: string },
): HtmlPage {
  const { t } = ctx.fmt;
  const x = INTEGRATION_TEXTS[ctx.fmt.lang];
  return consolePage(
    ctx,
    {
      title: x.eventTitle(eventId),
      area: 'integration',
      notice: sayOutcome(x, shown.notice),
      error: sayOutcome(x, shown.error),
    },
    <>
      <div class="actions">
        {t.status}: <span class="badge">{deliveryStatus(x, detail.status)}</span>{' '}
        {detail.status !== 'pending' && ctx.can('owner') && (
          <PostButton
            action={`/org/${ctx.tenant.slug}/webhook-events/${eventId}/replay`}
            csrf={ctx.csrf}
            label={x.replay}
          />
        )}
      </div>
      <pre class="table" tabIndex={0} role="region" aria-label={x.eventBody}>
        {JSON.stringify(detail.event, null, 2)}
      </pre>
      <h2 id="attempts-h">{x.attempts}</h2>
      <DataTable
        caption={x.attempts}
        hideCaption
        headers={['#', x.at, t.status, x.duration, x.error, x.answer]}
        empty={t.nothing}
        rows={detail.attempts.map((a) => [
          `${a.attempt}${a.replay ? x.replayMark : ''}`,
          a.at,
          String(a.status_code ?? '—'),
          a.duration_ms === null
            ? (x.attemptState[a.state] ?? a.state.replace('_', ' '))
            : `${a.duration_ms} ${x.ms}`,
          a.error ?? '',
          <code>{(a.response_body ?? '').slice(0, 300)}</code>,
        ])}
      />
    </>,
  );
}
