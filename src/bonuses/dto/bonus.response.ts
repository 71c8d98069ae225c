import { PaginationResponse } from '../../common/http/pagination.dto';

export class RiskSignalResponse {
  /** `self_referral`, `duplicate_customer`, `ip_burst`, `disposable_email`, `fast_conversion` or `amount_outlier`. @example "ip_burst" */
  code: string;
  /** A sentence for the staff who review. @example "11 leads for this partner came from IP 203.0.113.7 within an hour (more than 10)." */
  detail: string;
}

export class BonusReviewResponse {
  /** `flagged` (waiting for staff) or `cleared` (approved by staff). @example "flagged" */
  status: 'flagged' | 'cleared';
  signals: RiskSignalResponse[];
}

/** docs/money.md §2, "Versions": the rule that paid a conversion bonus. */
export class BonusRuleResponse {
  /** The program version in force when the conversion was registered. @example "prv_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  program_version_id: string | null;
  /** The phase that paid, 1-based (1 for a program of `tiers` alone). @example 1 */ phase: number;
  /** @example "upline_1" */ tier: string;
  /**
   * With compression: the tier (chain position) of the nearest member passed over below the one
   * paid; null when nobody was. @example null
   */
  compressed_from: string | null;
}

/** A bonus as staff see it: the API's bonus fields plus status, tier and created_at. */
export class BonusResponse {
  /** @example "bns_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ bonus_id: string;
  /** The service user id of the partner. @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ user_id: string;
  /** May be negative for a manual adjustment. @example 1500 */ amount_kopecks: number;
  /** @example "RUB" */ currency: string;
  /** `lead`, `conversion`, `manual` or `bounty`. @example "conversion" */ source_type: string;
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
  /**
   * docs/fraud.md: `{status: "flagged" | "cleared", signals: [{code, detail}]}` when a risk signal
   * fired on the bonus's lead or conversion; null otherwise. A flagged bonus waits for staff.
   */
  review: BonusReviewResponse | null;
  /** What paid a conversion bonus; null for lead, manual and bounty bonuses. */
  rule: BonusRuleResponse | null;
  /**
   * The rule in a sentence of the tenant's locale; null where `rule` is.
   * @example "10 % of 1,000.00 ₽, month 2 of phase 1 (12 months)"
   */
  explanation: string | null;
}

export class BonusListResponse {
  items: BonusResponse[];
  pagination: PaginationResponse;
}
