import { PayoutResponse } from '../../payouts/dto/payout.response';
import { PaginationResponse } from '../../common/http/pagination.dto';

/** A partner (member) as the console lists them. */
export class PartnerResponse {
  /** The surrogate id. @example "mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ user_id: string;
  /** @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ service_user_id: string;
  /** @example "crm-1042" */ external_id: string;
  /** @example "Anna Petrova" */ full_name: string | null;
  /** @example "anna@example.org" */ email: string | null;
  /** `partner`, `ambassador` or `leader`. @example "partner" */ role: string;
  /** @example true */ is_active: boolean;
  /** docs/privacy.md: the partner's personal data was erased (a tombstone). @example false */
  erased: boolean;
  /** The referrer's surrogate id. @example null */ referrer_user_id: string | null;
  /** @example 0 */ depth: number;
  /** Members below at any depth. @example 12 */ downline_count: number;
  /** @example 4 */ leads_count: number;
  /** @example 120 */ clicks_count: number;
  /** The partner's group (docs/partners.md). @example "grp_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  group_id: string;
  /** @example "2026-11-21T09:30:00.000Z" */ joined_at: string;
}

export class PartnerListResponse {
  items: PartnerResponse[];
  pagination: PaginationResponse;
}

export class UplineEntryResponse {
  /** @example "mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ user_id: string;
  /** @example "Boris Smirnov" */ display_name: string;
  /** @example 0 */ depth: number;
  /** @example true */ is_active: boolean;
}

export class PartnerLinkResponse {
  /** @example "dl_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ deeplink_id: string;
  /** @example "aB3dE5fG" */ code: string;
  /** @example "website" */ target_type: string;
  /** @example "https://shop.example/catalog" */ target_id: string;
  /** @example 31 */ clicks_count: number;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
}

export class PartnerLeadResponse {
  /** @example "lead_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ lead_id: string;
  /** @example "Client" */ contact_name: string;
  /** @example "new" */ status: string;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
}

export class PartnerBonusResponse {
  /** @example "bns_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ bonus_id: string;
  /** @example 15000 */ amount_kopecks: number;
  /** @example "RUB" */ currency: string;
  /** @example "pending" */ status: string;
  /** @example "conversion" */ source_type: string;
  /** @example "referrer" */ tier: string | null;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
}

export class PartnerBalanceResponse {
  /** @example "RUB" */ currency: string;
  /** Pending bonuses. @example 15000 */ pending_kopecks: number;
  /** Approved bonuses. @example 90000 */ approved_kopecks: number;
}

export class PartnerFirstLineResponse {
  /** The newest 50 direct referrals. */ items: PartnerResponse[];
  /** @example 3 */ total: number;
}

export class PartnerLeadsResponse {
  /** The newest 20. */ items: PartnerLeadResponse[];
  /** @example 4 */ total: number;
}

export class PartnerBonusesResponse {
  /** The newest 20. */ items: PartnerBonusResponse[];
  /** @example 7 */ total: number;
}

export class PartnerPayoutBalanceResponse {
  /** @example "RUB" */ currency: string;
  /** Approved, not yet in a payout, plus clawbacks not netted. @example 50000 */
  available_kopecks: number;
  /** In pending payouts. @example 150000 */ in_payout_kopecks: number;
  /** In paid payouts, in all. @example 200000 */ paid_kopecks: number;
}

export class PartnerPayoutsResponse {
  /** The newest 5. */ items: PayoutResponse[];
  /** @example 2 */ total: number;
}

/** How the partner asked to be paid, masked (docs/partners.md, "Payout details"). */
export class PartnerPayoutDetailsResponse {
  /** `bank_account` or `paypal`. @example "bank_account" */ method: string;
  /**
   * The last 4 of the IBAN or account (`•••• 1234`), or the PayPal email's first character and
   * domain (`j•••@example.com`). @example "•••• 3000"
   */
  masked: string;
}

/** A partner's page as data: profile, upline chain, first line, links, leads, bonuses, balance. */
export class PartnerDetailResponse {
  user: PartnerResponse;
  /** From the direct referrer up to the root (at most 50). */ upline: UplineEntryResponse[];
  first_line: PartnerFirstLineResponse;
  /** The newest 50 short links. */ links: PartnerLinkResponse[];
  leads: PartnerLeadsResponse;
  bonuses: PartnerBonusesResponse;
  balances: PartnerBalanceResponse[];
  /** The payout ledger's balances per currency (docs/payouts.md). */
  payout_balances: PartnerPayoutBalanceResponse[];
  payouts: PartnerPayoutsResponse;
  /** Entered by the partner in the partner portal, masked; null when they have entered none. */
  payout_details: PartnerPayoutDetailsResponse | null;
}
