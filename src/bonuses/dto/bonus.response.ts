import { PaginationResponse } from '../../common/http/pagination.dto';

/** A bonus as staff see it: the API's bonus fields plus status, tier and created_at. */
export class BonusResponse {
  /** @example "bns_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ bonus_id: string;
  /** The service user id of the partner. @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ user_id: string;
  /** May be negative for a manual adjustment. @example 1500 */ amount_kopecks: number;
  /** @example "RUB" */ currency: string;
  /** `lead`, `conversion` or `manual`. @example "conversion" */ source_type: string;
  /** @example "cnv_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ source_id: string;
  /** `pending`, `approved`, `paid`, `rejected` or `reversed`. @example "pending" */ status: string;
  /** `referrer`, `upline_N`; null for lead and manual bonuses. @example "referrer" */ tier:
    string | null;
  /** @example null */ approved_at: string | null;
  /** @example null */ rejected_at: string | null;
  /** @example null */ reversed_at: string | null;
  /** @example null */ reason: string | null;
  /** When the grace period ends. @example "2026-12-05T09:30:00.000Z" */ due_at: string;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
}

export class BonusListResponse {
  items: BonusResponse[];
  pagination: PaginationResponse;
}
