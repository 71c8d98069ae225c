import { IsIn, IsString, Matches, MaxLength } from 'class-validator';
import { PageQueryDto } from '../../common/http/pagination.dto';
import { Optional } from '../../common/validation/optional';

export const PARTNER_SORTS = ['joined', 'oldest', 'name'] as const;
export type PartnerSort = (typeof PARTNER_SORTS)[number];
/** The partners list's filters, as its CSV link passes them on. */
export const PARTNER_FILTERS = ['q', 'sort'] as const;

/**
 * What a search must hold: three letters or digits in a row, the trigram the search index
 * (ix_members_search, pg_trgm) looks up. A shorter one (`ab`, `a.b`) gives the index no trigram,
 * so it would read every partner of the tenant (seconds on millions), and is refused instead.
 */
export const SEARCH_TRIGRAM = /^\s*$|[\p{L}\p{N}]{3}/u;

/** The partners list: a search and an order, paginated. */
export class ListPartnersQueryDto extends PageQueryDto {
  /**
   * A part of the name, email or external id (case-insensitive) with at least three letters or
   * digits in a row, or a whole `mbr_…` / `usr_…` id. A shorter search is refused (400).
   * @example "petrova"
   */
  @Optional()
  @IsString()
  @MaxLength(200)
  @Matches(SEARCH_TRIGRAM, { message: 'must hold at least 3 letters or digits in a row' })
  q?: string;

  /** `joined` (newest first, the default), `oldest` or `name`. @example "joined" */
  @Optional() @IsIn(PARTNER_SORTS) sort?: PartnerSort;
}
