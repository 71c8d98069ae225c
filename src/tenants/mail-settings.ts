import { ApiProperty } from '@nestjs/swagger';
import {
  registerDecorator,
  IsInt,
  IsObject,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';
import { Optional } from '../common/validation/optional';

/** docs/notifications.md, "Branding": what a tenant's partner mail looks like. */
export interface Branding {
  from_name: string | null;
  reply_to: string | null;
  accent_color: string;
  logo_url: string | null;
}

/** docs/notifications.md, "Tuning": the digest's hour and each type's subject and intro. */
export interface MailSettings {
  digest_hour_utc: number;
  templates: Record<string, { subject?: string; intro?: string }>;
}

export const DEFAULT_BRANDING: Branding = Object.freeze({
  from_name: null,
  reply_to: null,
  accent_color: '#2563EB',
  logo_url: null,
});

export const DEFAULT_DIGEST_HOUR_UTC = 8;

export function withBrandingDefaults(input: Partial<Branding> | null | undefined): Branding {
  return { ...DEFAULT_BRANDING, ...definedOnly(input ?? {}) };
}

export function withMailDefaults(input: Partial<MailSettings> | null | undefined): MailSettings {
  return {
    digest_hour_utc: input?.digest_hour_utc ?? DEFAULT_DIGEST_HOUR_UTC,
    templates: input?.templates ?? {},
  };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** A display name or subject line: one line, so no header can be injected through it. */
const ONE_LINE = /^[^\r\n]*$/;

/** The tenant's `branding`; what is left out keeps its value (or default), `null` clears. */
export class BrandingDto {
  /** The sender's display name (default: the tenant's display name). @example "Acme partners" */
  @Nullable()
  @IsString()
  @Length(1, 200)
  @Matches(ONE_LINE, { message: 'must not contain CR or LF' })
  from_name?: string | null;

  /** Where partners' replies go. @example "partners@acme.example" */
  @Nullable()
  @IsString()
  @Length(3, 254)
  @Matches(/^[^\s@<>",;]+@[^\s@<>",;]+\.[^\s@<>",;]+$/, { message: 'must be an email address' })
  reply_to?: string | null;

  /** Buttons and links, `#RRGGBB` (default `#2563EB`). @example "#0F766E" */
  @Optional()
  @IsString()
  @Matches(/^#[0-9A-Fa-f]{6}$/, { message: 'must be a colour #RRGGBB' })
  accent_color?: string;

  /** An https image shown atop each mail. @example "https://acme.example/logo.png" */
  @Nullable()
  @IsString()
  @Length(9, 2000)
  @Matches(/^https:\/\/[^\s"'<>\\]+$/, { message: 'must be an https URL' })
  logo_url?: string | null;
}

/** `notifications` on the tenant: the digest hour and per-type subject and intro overrides. */
export class MailSettingsDto {
  /** The hour (UTC, 0–23) of the daily digest (default 8). @example 8 */
  @Optional() @IsInt() @Min(0) @Max(23) digest_hour_utc?: number;

  /**
   * Per mail type (or `digest`): a `subject` and an `intro` replacing the defaults; `{name}` in
   * them is the partner's name. One line each, at most 200 and 1000 characters.
   */
  @ApiProperty({
    required: false,
    type: Object,
    additionalProperties: {
      type: 'object',
      properties: { subject: { type: 'string' }, intro: { type: 'string' } },
    },
    example: { 'payout.paid': { subject: 'Acme paid you', intro: 'Thank you, {name}!' } },
  })
  @Optional()
  @IsObject()
  @IsMailTemplates()
  templates?: Record<string, { subject?: string; intro?: string }>;
}

/**
 * The types `notifications.templates` may name: the partner mail types (NOTIFICATION_TYPES of
 * notifications/, which imports tenants/, so the list is written here; mail-settings.spec.ts
 * checks that the two agree) and `digest`.
 */
export const TEMPLATE_TYPES: readonly string[] = [
  'bonus.pending',
  'bonus.approved',
  'payout.paid',
  'partner.approved',
  'partner.rejected',
  'downline.joined',
  'bounty.reached',
  'digest',
];

/** May be left out, or `null` (clears the field); anything else is validated. */
function Nullable(): PropertyDecorator {
  return (target, key) => {
    ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null)(
      target,
      key,
    );
    ApiProperty({ required: false, nullable: true })(target, key);
  };
}

/** The first fault of a `templates` object, if any. */
export function mailTemplatesError(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'must be an object';
  for (const [type, template] of Object.entries(value as Record<string, unknown>)) {
    if (!TEMPLATE_TYPES.includes(type))
      return `key "${type}" must be one of ${TEMPLATE_TYPES.join(', ')}`;
    if (typeof template !== 'object' || template === null || Array.isArray(template))
      return `"${type}" must be an object with subject and/or intro`;
    for (const [field, text] of Object.entries(template as Record<string, unknown>)) {
      const max = field === 'subject' ? 200 : field === 'intro' ? 1000 : 0;
      if (!max) return `"${type}.${field}" is not subject or intro`;
      if (typeof text !== 'string' || !text.length || text.length > max)
        return `"${type}.${field}" must be a string of 1–${max} characters`;
      if (!ONE_LINE.test(text)) return `"${type}.${field}" must not contain CR or LF`;
    }
  }
  return undefined;
}

function IsMailTemplates(): PropertyDecorator {
  return (object, propertyName) =>
    registerDecorator({
      name: 'isMailTemplates',
      target: object.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) => mailTemplatesError(value) === undefined,
        defaultMessage: (args) => mailTemplatesError(args?.value) ?? 'is invalid',
      },
    });
}
