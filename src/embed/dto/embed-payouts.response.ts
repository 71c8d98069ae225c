import { PaginationResponse } from '../../common/http/pagination.dto';
import { EmbedTenantResponse, EmbedUserResponse } from './embed.response';

export class EmbedPayoutItemResponse {
  /** @example "pay_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ payout_id: string;
  /** `pending`, `paid`, `failed` or `canceled`. @example "paid" */ status: string;
  /** In the answer's locale. @example "Выплачено" */ status_human: string;
  /** @example 150000 */ amount_kopecks: number;
  /** @example "1 500,00 ₽" */ amount_formatted: string;
  /** @example "RUB" */ currency: string;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
  /** @example "2026-11-22T09:30:00.000Z" */ paid_at: string | null;
  /** `Intl.RelativeTimeFormat` in the answer's locale. @example "2 дня назад" */
  relative_time: string;
}

export class EmbedPayoutsResponse {
  user: EmbedUserResponse;
  tenant: EmbedTenantResponse;
  payouts: EmbedPayoutItemResponse[];
  pagination: PaginationResponse;
}
