import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { IsCurrencyCode, IsIntlLocale, ToCanonicalLocale } from '../../common/i18n/validators';
import { PayoutSettingsDto } from '../payout-settings';
import { FraudSettingsDto } from '../fraud-settings';
import { RetentionSettingsDto } from '../retention-settings';
import { BrandingDto, MailSettingsDto } from '../mail-settings';
import { EMBED_AUTH_MODES, type EmbedAuth } from '../tenant.entity';
import { ProgramDto } from './program.dto';
import { IsExactOrigin, IsHostName, IsLinkTemplates } from './tenant-validators';

/** Optional, but `null` is validated (and refused) rather than taken as absent. */
const Optional = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

export class CreateTenantDto {
  /** Lower-case letters, digits and hyphens; used in URLs and widget snippets. @example "acme" */
  @Matches(/^[a-z0-9][a-z0-9-]{1,62}$/, {
    message: 'must be 2–63 lower-case letters, digits or hyphens, starting with a letter or digit',
  })
  slug: string;

  /** @example "Acme Shop" */
  @IsString() @Length(1, 200) display_name: string;

  /** Exact origins allowed to embed the widgets. @example ["https://acme.example"] */
  @IsArray() @ArrayMaxSize(50) @IsExactOrigin({ each: true }) allowed_origins: string[];

  /**
   * The tenant's main currency (default `RUB`): any ISO 4217 code `Intl` knows
   * (`Intl.supportedValuesOf('currency')`), in upper case. The widgets' totals are in it.
   * @example "RUB"
   */
  @Optional() @IsCurrencyCode() currency?: string;

  /**
   * Locale of the widgets' amounts, relative times and labels (default `ru-RU`): any BCP 47 tag
   * `Intl` supports (`en-US`, `de-DE`, `kk-KZ`, …; at most 64 characters), stored in canonical
   * form (`en-us` → `en-US`). Amounts and relative times are exactly what `Intl` prints for it;
   * labels are Russian for `ru` and its regional forms, English for every other language.
   * @example "ru-RU"
   */
  @Optional() @ToCanonicalLocale() @IsIntlLocale() locale?: string;

  /** docs/payouts.md: `minimum_kopecks`, `schedule`, `hold_days`; what is left out is kept. */
  @Optional() @ValidateNested() @Type(() => PayoutSettingsDto) payouts?: PayoutSettingsDto;

  /** Extra hosts allowed as website link targets. @example ["shop.acme.example"] */
  @Optional() @IsArray() @ArrayMaxSize(50) @IsHostName({ each: true }) link_domains?: string[];

  /** Where links of non-website target types lead; `{id}` is replaced by the target id. */
  @ApiProperty({
    required: false,
    type: Object,
    additionalProperties: { type: 'string' },
    example: { offer: 'https://acme.example/offers/{id}' },
  })
  @Optional()
  @IsObject()
  @IsLinkTemplates()
  link_templates?: Record<string, string>;

  @Optional() @ValidateNested() @Type(() => ProgramDto) program?: ProgramDto;

  /** docs/fraud.md: days a click-stamped ref credits its partner (default 90). @example 90 */
  @Optional() @IsInt() @Min(1) @Max(3650) attribution_window_days?: number;

  /** docs/fraud.md: risk-signal switches and thresholds; what is left out takes its default. */
  @Optional() @IsObject() @ValidateNested() @Type(() => FraudSettingsDto) fraud?: FraudSettingsDto;

  /**
   * docs/embedding.md §3: `origin` (default), the widgets' reads are admitted by their Origin;
   * `token`, each read also needs the popup JWT of the member it reads, so a partner's cabinet is
   * shown to that partner only (widget.js signs them in first).
   * @example "origin"
   */
  @ApiProperty({ required: false, enum: EMBED_AUTH_MODES, example: 'origin' })
  @Optional()
  @IsIn(EMBED_AUTH_MODES)
  embed_auth?: EmbedAuth;

  /**
   * docs/privacy.md, "Retention": `client_data_days` (default 90), after which client IPs and
   * user agents are cleared, and `events_days` (default 30); what is left out is kept.
   */
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => RetentionSettingsDto)
  retention?: RetentionSettingsDto;

  /**
   * docs/notifications.md: partner mail's sender name, reply-to, accent colour and logo; what is
   * left out keeps its value, `null` clears a field.
   */
  @Optional() @IsObject() @ValidateNested() @Type(() => BrandingDto) branding?: BrandingDto;

  /** docs/notifications.md: the digest hour (UTC) and per-type subject and intro overrides. */
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => MailSettingsDto)
  notifications?: MailSettingsDto;
}
