import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { PageQueryDto } from '../../common/http/pagination.dto';

export const EMBED_LOCALES = ['ru', 'en'] as const;
export const LEAD_FILTERS = ['all', 'new', 'processed', 'converted', 'rejected'] as const;
export const MAX_TREE_DEPTH = 20;

/** Every Embed Data API read: the tenant slug and an optional UI locale. */
export class EmbedQueryDto {
  /** The tenant slug (required; checked with the Origin). @example "acme" */
  @IsString() tenant: string;

  /** Overrides the tenant's locale for human strings. @example "en" */
  @IsOptional() @IsIn(EMBED_LOCALES) locale?: (typeof EMBED_LOCALES)[number];
}

export class EmbedPageQueryDto extends PageQueryDto {
  /** @example "acme" */
  @IsString() tenant: string;

  /** @example "en" */
  @IsOptional() @IsIn(EMBED_LOCALES) locale?: (typeof EMBED_LOCALES)[number];
}

export class EmbedLeadsQueryDto extends EmbedPageQueryDto {
  /** `all` (default) or one lead status. @example "all" */
  @IsOptional() @IsIn(LEAD_FILTERS) status: (typeof LEAD_FILTERS)[number] = 'all';
}

export class EmbedTreeQueryDto extends EmbedQueryDto {
  /** Levels below the root, 1–20. @example 3 */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(MAX_TREE_DEPTH) max_depth: number = 3;
}
