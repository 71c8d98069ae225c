import { PaginationResponse } from '../../common/http/pagination.dto';

/** A conversion as the console lists it: the order, its partner and customer, its commission. */
export class ConversionRowResponse {
  /** @example "cnv_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ conversion_id: string;
  /** @example "lead_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ lead_id: string;
  /** @example "order-1042" */ external_order_id: string;
  /** @example 1250000 */ amount_kopecks: number;
  /** @example "RUB" */ currency: string;
  /** `registered` or `reversed`. @example "registered" */ status: string;
  /** @example null */ reversed_at: string | null;
  /** @example null */ reverse_reason: string | null;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
  /** The lead's referrer (surrogate id). @example "mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  user_id: string;
  /** @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ service_user_id: string;
  /** The referrer's name, else email, else external id. @example "Anna Petrova" */
  partner_name: string;
  /** The lead's contact name. @example "Ivan Ivanov" */ customer_name: string;
  /** Its bonuses neither rejected nor reversed, every tier. @example 162500 */
  commission_kopecks: number;
}

export class ConversionListResponse {
  items: ConversionRowResponse[];
  pagination: PaginationResponse;
}

/** A bonus of the conversion's cascade: who earns it, at which tier, and where it stands. */
export class ConversionBonusResponse {
  /** @example "bns_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ bonus_id: string;
  /** `referrer`, `upline_1`… @example "referrer" */ tier: string | null;
  /** @example "mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ user_id: string;
  /** @example "Anna Petrova" */ partner_name: string;
  /** @example 125000 */ amount_kopecks: number;
  /** @example "RUB" */ currency: string;
  /** `pending`, `approved`, `paid`, `rejected` or `reversed`. @example "pending" */ status: string;
  /** @example null */ reason: string | null;
}

/** A conversion with its cascade, as its console page shows it. */
export class ConversionDetailResponse {
  conversion: ConversionRowResponse;
  /** Its bonuses, referrer first, then up the chain. */
  bonuses: ConversionBonusResponse[];
}
