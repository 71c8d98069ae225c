import { HttpCode, Param, Post } from '@nestjs/common';
import { PageQuery } from '../../common/http/single-query-values.pipe';
import { FormBody } from '../../common/pages/form';
import { type HtmlPage, Redirect, withQuery } from '../../common/pages/page';
import { TenantCredentialsService } from '../../tenants/tenant-credentials.service';
import { TenantsService } from '../../tenants/tenants.service';
import { OrgDocs } from '../org-areas.openapi';
import { Org, OrgAction, type ConsoleCtx, OrgPagesController, OrgView } from '../org-page';
import { CreateKeyForm, SettingsForm } from './integration.forms';
import { IntegrationModelReader } from './integration.model';
import { integrationPage, type Shown } from './integration.views';

/**
 * The integration area, a console page (docs/console.md): origins and link domains, tenant keys
 * (owners only), the webhook and its recent deliveries, in the page's language.
 */
@OrgPagesController('integration')
export class IntegrationPagesController {
  constructor(
    private readonly model: IntegrationModelReader,
    private readonly tenants: TenantsService,
    private readonly credentials: TenantCredentialsService,
  ) {}

  @OrgView()
  @OrgDocs.integration()
  page(@Org() ctx: ConsoleCtx, @PageQuery() query: Record<string, string>): Promise<HtmlPage> {
    return this.show(ctx, { notice: query.notice, error: query.error });
  }

  @Post('settings')
  @HttpCode(303)
  @OrgAction('owner', 'integration')
  @OrgDocs.saveSettings()
  async saveSettings(@Org() ctx: ConsoleCtx, @FormBody() form: SettingsForm): Promise<Redirect> {
    await this.tenants.update(ctx.tenant, form, ctx.actor);
    return back(ctx, { notice: 'Settings saved.' });
  }

  @Post('keys')
  @HttpCode(200)
  @OrgAction('owner', 'integration')
  @OrgDocs.createKey()
  async createKey(@Org() ctx: ConsoleCtx, @FormBody() form: CreateKeyForm): Promise<HtmlPage> {
    const key = await this.credentials.createKey(ctx.tenant.id, form.name, ctx.actor);
    return this.show(ctx, {
      notice: 'Key created.',
      secret: { id: 'new-key', kind: 'key', name: key.name ?? key.key_id, value: key.tenant_key },
    });
  }

  @Post('keys/:key_id/revoke')
  @HttpCode(303)
  @OrgAction('owner', 'integration')
  @OrgDocs.revokeKey()
  async revokeKey(@Org() ctx: ConsoleCtx, @Param('key_id') keyId: string): Promise<Redirect> {
    await this.credentials.revokeKey(ctx.tenant.id, keyId, ctx.actor);
    return back(ctx, { notice: 'Key revoked.' });
  }

  /** The integration page, after a post that shows something once (a new key or secret). */
  async show(ctx: ConsoleCtx, shown: Shown): Promise<HtmlPage> {
    return integrationPage(ctx, await this.model.read(ctx), shown);
  }
}

/** Post/redirect/get: back to the integration page with the outcome. */
export function back(ctx: ConsoleCtx, message: { notice?: string; error?: string }): Redirect {
  return new Redirect(withQuery(`/org/${ctx.tenant.slug}/integration`, message));
}
