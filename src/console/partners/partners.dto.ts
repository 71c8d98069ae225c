import { IsIn, IsString, MaxLength } from 'class-validator';
import { PageQueryDto } from '../../common/http/pagination.dto';
import { Optional } from '../../common/validation/optional';

export const PARTNER_SORTS = ['joined', 'oldest', 'name'] as const;
export type PartnerSort = (typeof PARTNER_SORTS)[number];
/** The partners list's filters, as its CSV link passes them on. */
export const PARTNER_FILTERS = ['q', 'sort'] as const;

/** The partners list: a search and an order, paginated. */
export class ListPartnersQueryDto extends PageQueryDto {
  /**
   * A part of the name, email or external id (case-insensitive), or a whole `mbr_…` / `usr_…` id.
   * @example "petrova"
   */
  @Optional() @IsString() @MaxLength(200) q?: string;

  /** `joined` (newest first, the default), `oldest` or `name`. @example "joined" */
  @Optional() @IsIn(PARTNER_SORTS) sort?: PartnerSort;
}
