import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { Optional } from '../validation/optional';

export const MAX_PAGE_SIZE = 100;
/** Beyond any list; keeps the offset an exact integer that PostgreSQL's bigint takes. */
export const MAX_PAGE = 1_000_000_000;

/**
 * `page` and `page_size`, bounded as README.md "API overview" says; extend it for list queries
 * with filters.
 */
export class PageQueryDto {
  /** 1-based page number. @example 1 */
  @Optional() @Type(() => Number) @IsInt() @Min(1) @Max(MAX_PAGE) page: number = 1;

  /** Items per page, at most 100. @example 20 */
  @Optional() @Type(() => Number) @IsInt() @Min(1) @Max(MAX_PAGE_SIZE) page_size: number = 20;
}

export class PaginationResponse {
  /** @example 1 */ page: number;
  /** @example 20 */ page_size: number;
  /** @example 42 */ total: number;
  /** @example 3 */ total_pages: number;
}

export function pagination(query: PageQueryDto, total: number): PaginationResponse {
  return {
    page: query.page,
    page_size: query.page_size,
    total,
    total_pages: Math.ceil(total / query.page_size),
  };
}

/**
 * The rows to skip. The DTO already refuses a page over MAX_PAGE; callers that build the query
 * themselves (the admin pages take any integer as a filter) are held to it here, so no list ever
 * asks PostgreSQL for an offset it cannot take (`1e308` was an `OFFSET Infinity`, a 500).
 */
export function offsetOf(query: PageQueryDto): number {
  return (Math.min(Math.max(query.page, 1), MAX_PAGE) - 1) * query.page_size;
}
