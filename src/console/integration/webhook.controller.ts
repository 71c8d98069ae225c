import { HttpCode, Param, Post } from '@nestjs/common';
import { PageQuery } from '../../common/http/single-query-values.pipe';
import { FormBody } from '../../common/pages/form';
import { type HtmlPage, Redirect, withQuery } from '../../common/pages/page';
import { WebhooksService } from '../../webhooks/webhooks.service';
import { OrgDocs } from '../org-areas.openapi';
import { Org, OrgAction, type ConsoleCtx, OrgPagesController, OrgView } from '../org-page';
import { back } from './integration.controller';
import { WebhookForm } from './integration.forms';
import { IntegrationModelReader } from './integration.model';
import { integrationPage } from './integration.views';
import { webhookEventPage } from './webhook-event.views';

/**
 * The integration area's webhook: the endpoint, its signing secret, a test event, and each
 * event's deliveries with a replay.
 */
@OrgPagesController()
export class WebhookPagesController {
  constructor(
    private readonly model: IntegrationModelReader,
    private readonly webhooks: WebhooksService,
  ) {}

  @Post('integration/webhook')
  @HttpCode(200)
  @OrgAction('owner', 'integration')
  @OrgDocs.saveWebhook()
  async saveWebhook(@Org() ctx: ConsoleCtx, @FormBody() form: WebhookForm): Promise<HtmlPage> {
    const saved = await this.webhooks.put(ctx.tenant.id, form, ctx.actor);
    return integrationPage(ctx, await this.model.read(ctx), {
      notice: 'Webhook saved.',
      secret: saved.secret ? { id: 'new-secret', kind: 'secret', value: saved.secret } : undefined,
    });
  }

  @Post('integration/webhook/secret')
  @HttpCode(200)
  @OrgAction('owner', 'integration')
  @OrgDocs.rotateSecret()
  async rotateSecret(@Org() ctx: ConsoleCtx): Promise<HtmlPage> {
    const { secret } = await this.webhooks.rotateSecret(ctx.tenant.id, ctx.actor);
    return integrationPage(ctx, await this.model.read(ctx), {
      notice: 'Secret rotated; the previous one keeps signing for 24 hours.',
      secret: { id: 'new-secret', kind: 'rotated', value: secret },
    });
  }

  @Post('integration/webhook/test')
  @HttpCode(303)
  @OrgAction('owner', 'integration')
  @OrgDocs.testWebhook()
  async testWebhook(@Org() ctx: ConsoleCtx): Promise<Redirect> {
    const result = await this.webhooks.test(ctx.tenant.id, ctx.actor);
    return back(
      ctx,
      result.delivered
        ? { notice: `Test event ${result.event_id} delivered (HTTP ${result.status_code}).` }
        : {
            error: `Test event ${result.event_id} was not delivered (${result.status_code ?? 'no answer'}).`,
          },
    );
  }

  @OrgView('webhook-events/:event_id')
  @OrgDocs.eventDetail()
  async eventDetail(
    @Org() ctx: ConsoleCtx,
    @Param('event_id') eventId: string,
    @PageQuery() query: Record<string, string>,
  ): Promise<HtmlPage> {
    const detail = await this.webhooks.eventDetail(ctx.tenant.id, eventId);
    return webhookEventPage(ctx, eventId, detail, {
      notice: query.notice,
      error: query.error,
    });
  }

  @Post('webhook-events/:event_id/replay')
  @HttpCode(303)
  @OrgAction('owner', 'webhook-events/:event_id')
  @OrgDocs.replay()
  async replay(@Org() ctx: ConsoleCtx, @Param('event_id') eventId: string): Promise<Redirect> {
    await this.webhooks.replay(ctx.tenant.id, eventId, ctx.actor);
    return new Redirect(
      withQuery(`/org/${ctx.tenant.slug}/webhook-events/${encodeURIComponent(eventId)}`, {
        notice: 'Replay queued: one fresh attempt.',
      }),
    );
  }
}
