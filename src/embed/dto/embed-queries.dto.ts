import { Type } from 'class-transformer';
import { IsIn, IsInt, IsString, Max, Min } from 'class-validator';
import { PageQueryDto } from '../../common/http/pagination.dto';
import { Optional } from '../../common/validation/optional';
import { IsIntlLocale, ToCanonicalLocale } from '../../common/i18n/validators';

export const LEAD_FILTERS = ['all', 'new', 'processed', 'converted', 'rejected'] as const;
export const MAX_TREE_DEPTH = 20;

/** Every Embed Data API read: the tenant slug and an optional UI locale. */
export class EmbedQueryDto {
  /** The tenant slug (required; checked with the Origin). @example "acme" */
  @IsString() tenant: string;

  /**
   * Overrides the tenant's locale: any BCP 47 tag `Intl` supports (`en-US`, `de-DE`, `kk-KZ`,
   * …; at most 64 characters; invalid: 400). The `*_formatted` amounts and `relative_time` are
   * exactly what `Intl` prints for it; `status_human` and `role_label` are Russian for `ru` and
   * its regional forms (`ru-KZ`), English for every other language.
   * @example "en-US"
   */
  @Optional() @ToCanonicalLocale() @IsIntlLocale() locale?: string;
}

export class EmbedPageQueryDto extends PageQueryDto {
  /** @example "acme" */
  @IsString() tenant: string;

  /**
   * Overrides the tenant's locale: any BCP 47 tag `Intl` supports (see the cabinet's `locale`).
   * @example "en-US"
   */
  @Optional() @ToCanonicalLocale() @IsIntlLocale() locale?: string;
}

export class EmbedLeadsQueryDto extends EmbedPageQueryDto {
  /** `all` (default) or one lead status. @example "all" */
  @Optional() @IsIn(LEAD_FILTERS) status: (typeof LEAD_FILTERS)[number] = 'all';
}

export class EmbedTreeQueryDto extends EmbedQueryDto {
  /** Levels below the root, 1–20. @example 3 */
  @Optional() @Type(() => Number) @IsInt() @Min(1) @Max(MAX_TREE_DEPTH) max_depth: number = 3;
}
