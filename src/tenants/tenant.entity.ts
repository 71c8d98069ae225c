import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { PayoutSettings } from './payout-settings';
import type { FraudSettingsInput } from './fraud-settings';
import type { Program } from './program';
import type { RetentionSettings } from './retention-settings';
import type { Branding, MailSettings } from './mail-settings';

/** How the Embed Data reads of a tenant are gated (docs/embedding.md §3). */
export const EMBED_AUTH_MODES = ['origin', 'token'] as const;
export type EmbedAuth = (typeof EMBED_AUTH_MODES)[number];

@Entity({ name: 'tenants' })
export class TenantEntity {
  /** `org_…`: the tenant is the organisation. */
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', unique: true }) slug: string;
  @Column({ type: 'text', name: 'display_name' }) displayName: string;
  @Column({ type: 'text', array: true, name: 'allowed_origins', default: () => "'{}'" })
  allowedOrigins: string[];
  @Column({ type: 'char', length: 3, default: 'RUB' }) currency: string;
  @Column({ type: 'text', default: 'ru-RU' }) locale: string;
  /** docs/payouts.md: minimum, schedule and hold days of payout runs. */
  @Column({ type: 'jsonb', default: () => `'{}'` }) payouts?: PayoutSettings;
  @Column({ type: 'text', array: true, name: 'link_domains', default: () => "'{}'" })
  linkDomains: string[];
  @Column({ type: 'jsonb', name: 'link_templates', default: () => "'{}'" })
  linkTemplates: Record<string, string>;
  @Column({ type: 'jsonb' }) program: Program;
  /** The `prv_…` of `program` (docs/money.md §2, "Versions"). */
  @Column({ type: 'text', name: 'program_version_id', nullable: true })
  programVersionId?: string | null;
  /** docs/fraud.md: how long a click-stamped ref credits its partner. */
  @Column({ type: 'integer', name: 'attribution_window_days', default: 90 })
  attributionWindowDays: number;
  /** docs/fraud.md: the risk-signal settings as given (defaults filled in when read). */
  @Column({ type: 'jsonb', default: () => "'{}'" }) fraud: FraudSettingsInput;
  /**
   * docs/embedding.md §3: `origin`, the Embed Data reads are gated by Origin alone; `token`, each
   * also needs the popup JWT of the member it reads.
   */
  @Column({ type: 'text', name: 'embed_auth', default: 'origin' }) embedAuth: EmbedAuth;
  /** docs/privacy.md, "Retention": days client data and events are kept (defaults filled in). */
  @Column({ type: 'jsonb', default: () => `'{"client_data_days": 90, "events_days": 30}'` })
  retention?: RetentionSettings;
  /** docs/notifications.md: how partner mail looks (as given; defaults filled in when read). */
  @Column({ type: 'jsonb', default: () => "'{}'" }) branding?: Partial<Branding>;
  /** docs/notifications.md: the digest hour and per-type subject and intro overrides. */
  @Column({ type: 'jsonb', default: () => "'{}'" }) notifications?: Partial<MailSettings>;
  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'updated_at', default: () => 'now()' }) updatedAt: Date;
}
