import { Injectable } from '@nestjs/common';
import { TenantCredentialsService } from '../../tenants/tenant-credentials.service';
import { WebhooksService } from '../../webhooks/webhooks.service';
import type { OrgContext } from '../org-page';
import type { IntegrationModel } from './integration.views';

/** Reads what the integration page shows, through the same services as the Admin API. */
@Injectable()
export class IntegrationModelReader {
  constructor(
    private readonly credentials: TenantCredentialsService,
    private readonly webhooks: WebhooksService,
  ) {}

  async read(ctx: OrgContext): Promise<IntegrationModel> {
    // Tenant keys are owner-only, as in the Admin API (GET …/keys): not even read for others.
    const [keys, endpoint, deliveries] = await Promise.all([
      ctx.can('owner') ? this.credentials.listKeys(ctx.tenant.id) : undefined,
      this.webhooks.get(ctx.tenant.id).catch(() => undefined),
      this.webhooks.listEvents(ctx.tenant.id, { page: 1, page_size: 20 }),
    ]);
    return { keys: keys?.items, endpoint, deliveries: deliveries.items };
  }
}
