import { PaginationResponse } from '../../common/http/pagination.dto';

export class PayoutItemResponse {
  /** An approved bonus the payout pays (absent for a clawback). @example "bns_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  bonus_id?: string;
  /** A clawback the payout nets (absent for a bonus). @example "clw_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  clawback_id?: string;
  /** Negative for a clawback. @example 150000 */ amount_kopecks: number;
}

export class PayoutResponse {
  /** @example "pay_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ payout_id: string;
  /** @example "run_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ run_id: string;
  /** The partner's service user id. @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ user_id: string;
  /** @example "RUB" */ currency: string;
  /** The sum of its items. @example 150000 */ amount_kopecks: number;
  /** `pending`, `paid`, `failed` or `canceled`. @example "pending" */ status: string;
  items: PayoutItemResponse[];
  /** Set when marked paid. @example null */ reference: string | null;
  /** Set when marked failed. @example null */ failure_reason: string | null;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
  /** @example null */ paid_at: string | null;
}

export class PayoutListResponse {
  items: PayoutResponse[];
  pagination: PaginationResponse;
}

export class PayoutRunResponse {
  /** @example "run_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ run_id: string;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
  /** @example 12 */ payouts_count: number;
  /** Sum over every currency's payouts. @example 1800000 */ total_kopecks: number;
  /** Per currency. @example {"RUB": 1800000} */ currency_totals: Record<string, number>;
}

export class PayoutRunStatusCountsResponse {
  /** @example 3 */ pending: number;
  /** @example 8 */ paid: number;
  /** @example 1 */ failed: number;
  /** @example 0 */ canceled: number;
}

export class PayoutRunListItemResponse extends PayoutRunResponse {
  /** `staff`, `platform`, `tenant` or `schedule`. @example "staff" */ trigger: string;
  /** How many of the run's payouts are in each status now. */
  status_counts: PayoutRunStatusCountsResponse;
}

export class PayoutRunListResponse {
  items: PayoutRunListItemResponse[];
  pagination: PaginationResponse;
}

export class SettleRunResponse {
  /** @example "run_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ run_id: string;
  /** Payouts marked paid by this upload. @example 12 */ paid_count: number;
}
