import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsObject,
  IsString,
  Length,
  Matches,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { ProgramDto } from './program.dto';
import { IsExactOrigin, IsHostName, IsLinkTemplates } from './tenant-validators';

/** Optional, but `null` is validated (and refused) rather than taken as absent. */
const Optional = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

export const TENANT_LOCALES = ['ru-RU', 'en'] as const;

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

  /** ISO 4217 code of the tenant's main currency. @example "RUB" */
  @Optional()
  @Matches(/^[A-Z]{3}$/, { message: 'must be an ISO 4217 code such as RUB' })
  currency?: string;

  /** Locale of human-readable strings. @example "ru-RU" */
  @Optional() @IsIn(TENANT_LOCALES) locale?: string;

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
}
