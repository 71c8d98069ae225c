import { ApiProperty } from '@nestjs/swagger';
import { PayoutSettingsResponse } from '../payout-settings';
import { FraudSettingsResponse } from '../fraud-settings';
import { RetentionSettingsResponse } from '../retention-settings';
import { EMBED_AUTH_MODES, type EmbedAuth } from '../tenant.entity';
import { ProgramPhaseDto, ProgramTierDto } from './program.dto';

/** A program as stored: `tiers`, or `phases` when it pays by phases (docs/money.md §2). */
export class ProgramResponse {
  /** @example 0 */ lead_bonus_kopecks: number;
  tiers?: ProgramTierDto[];
  phases?: ProgramPhaseDto[];
  /** @example 336 */ grace_period_hours: number;
  /** Present (true) when the program compresses (docs/money.md §2). */
  compression?: boolean;
}

export class BrandingResponse {
  /** null: the tenant's display name. @example "Acme partners" */ from_name: string | null;
  /** @example "partners@acme.example" */ reply_to: string | null;
  /** @example "#2563EB" */ accent_color: string;
  /** @example "https://acme.example/logo.png" */ logo_url: string | null;
}

export class MailSettingsResponse {
  /** @example 8 */ digest_hour_utc: number;
  @ApiProperty({
    type: Object,
    additionalProperties: {
      type: 'object',
      properties: { subject: { type: 'string' }, intro: { type: 'string' } },
    },
    example: { 'payout.paid': { subject: 'Acme paid you' } },
  })
  templates: Record<string, { subject?: string; intro?: string }>;
}

export class TenantResponse {
  /** @example "org_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ org_id: string;
  /** @example "acme" */ slug: string;
  /** @example "Acme Shop" */ display_name: string;
  /** @example ["https://acme.example"] */ allowed_origins: string[];
  /** ISO 4217. @example "RUB" */ currency: string;
  /** A canonical BCP 47 tag (`ru-RU`, `en-US`, `de-DE`, …). @example "ru-RU" */ locale: string;
  /** docs/payouts.md: the payout settings, defaults filled in. */
  payouts: PayoutSettingsResponse;
  /** @example ["shop.acme.example"] */ link_domains: string[];
  @ApiProperty({
    type: Object,
    additionalProperties: { type: 'string' },
    example: { offer: 'https://acme.example/offers/{id}' },
  })
  link_templates: Record<string, string>;
  program: ProgramResponse;
  /** docs/fraud.md: days a click-stamped ref credits its partner. @example 90 */
  attribution_window_days: number;
  /** docs/fraud.md: the risk-signal switches and thresholds, every signal present. */
  fraud: FraudSettingsResponse;
  /** docs/embedding.md §3: how the widgets' reads are gated. */
  @ApiProperty({ enum: EMBED_AUTH_MODES, example: 'origin' })
  embed_auth: EmbedAuth;
  /** docs/privacy.md, "Retention": days client data and events are kept. */
  retention: RetentionSettingsResponse;
  /** docs/notifications.md: partner mail's branding, defaults filled in. */
  branding: BrandingResponse;
  /** docs/notifications.md: the digest hour (UTC) and per-type overrides. */
  notifications: MailSettingsResponse;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
  /** @example "2026-11-21T09:30:00.000Z" */ updated_at: string;
}

export class CreatedTenantResponse extends TenantResponse {
  /** The first Federation API key. Shown only in this response. @example "tk_9sQm…" */
  tenant_key: string;
}
