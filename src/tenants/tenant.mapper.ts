import { withFraudDefaults } from './fraud-settings';
import { withPayoutDefaults } from './payout-settings';
import { withRetentionDefaults } from './retention-settings';
import { withBrandingDefaults, withMailDefaults } from './mail-settings';
import type { TenantResponse } from './dto/tenant.response';
import type { TenantEntity } from './tenant.entity';

export function toTenantResponse(tenant: TenantEntity): TenantResponse {
  return {
    org_id: tenant.id,
    slug: tenant.slug,
    display_name: tenant.displayName,
    allowed_origins: tenant.allowedOrigins,
    currency: tenant.currency,
    locale: tenant.locale,
    payouts: withPayoutDefaults(tenant.payouts),
    link_domains: tenant.linkDomains,
    link_templates: tenant.linkTemplates,
    program: tenant.program,
    attribution_window_days: tenant.attributionWindowDays,
    fraud: withFraudDefaults(tenant.fraud),
    embed_auth: tenant.embedAuth,
    retention: withRetentionDefaults(tenant.retention),
    branding: withBrandingDefaults(tenant.branding),
    notifications: withMailDefaults(tenant.notifications),
    created_at: tenant.createdAt.toISOString(),
    updated_at: tenant.updatedAt.toISOString(),
  };
}
