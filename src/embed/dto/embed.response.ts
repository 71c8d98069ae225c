import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { BonusRuleResponse } from '../../bonuses/dto/bonus.response';
import { PaginationResponse } from '../../common/http/pagination.dto';

export class EmbedBadgeResponse {
  /**
   * The member's role: Russian for a `ru` locale (`ru-RU`, `ru-KZ`, …), English for any other.
   * @example "Партнёр"
   */
  role_label: string;
}

export class EmbedUserResponse {
  /** @example "mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ id_surrogate: string;
  /** @example "Maria Ivanova" */ display_name: string;
  badge: EmbedBadgeResponse;
  /** True until the person has signed in through the popup once. @example true */
  claim_required: boolean;
}

export class EmbedTenantResponse {
  /** @example "acme" */ slug: string;
  /** @example "Acme Shop" */ display_name: string;
}

export class EmbedKpiResponse {
  /** @example 12 */ leads_count: number;
  /**
   * Bonuses approved and not yet paid, whether or not a pending payout holds them (so it
   * overlaps `balance.available_kopecks` and `balance.in_payout_kopecks`; show `balance`).
   * @example 150000
   */
  cleared_kopecks: number;
  /** @example 37500 */ pending_kopecks: number;
  /**
   * Exactly what `Intl.NumberFormat(locale, {style: 'currency', currency, minimumFractionDigits:
   * 2, maximumFractionDigits: 2})` prints for `?locale=` (else the tenant's locale) and the
   * tenant's currency: `1 500,00 ₽` (ru-RU), `$1,500.00` (en-US), `1.500,00 €` (de-DE).
   * @example "1 500,00 ₽"
   */
  cleared_formatted: string;
  /** As `cleared_formatted`. @example "375,00 ₽" */ pending_formatted: string;
  /** Clicks on the member's short links. @example 40 */ clicks_count: number;
}

export class EmbedNextPayoutResponse {
  /** The tenant's `payouts.schedule`: `manual`, `weekly:<1-7>` or `monthly:<1-28>`. @example "weekly:1" */
  schedule: string;
  /**
   * The UTC day (`YYYY-MM-DD`) of the schedule's next run, whose payouts are made at its 00:00
   * UTC; never today (today's run is behind). Null for `manual`: the program runs payouts when
   * it chooses. @example "2026-12-14"
   */
  date: string | null;
  /** `date` in the answer's locale (`Intl.DateTimeFormat`, long, UTC). @example "14 декабря 2026 г." */
  date_formatted: string | null;
  /** The tenant's `payouts.minimum_kopecks`: the smallest payable balance a run pays. @example 100000 */
  minimum_kopecks: number;
  /** @example "1 000,00 ₽" */ minimum_formatted: string;
  /**
   * What a run on `date` (now, for `manual`) would pay the partner from what is known now:
   * approved bonuses approved at least `hold_days` before it and not in a payout, plus open
   * clawbacks (docs/payouts.md §3). @example 65000
   */
  payable_kopecks: number;
  /** @example "650,00 ₽" */ payable_formatted: string;
  /**
   * How much `payable_kopecks` still lacks to reach the minimum: `max(0, minimum − payable)`;
   * 0 means the next run pays the partner. @example 35000
   */
  remaining_kopecks: number;
  /** @example "350,00 ₽" */ remaining_formatted: string;
}

/**
 * The partner's money in the tenant's currency, each sum once (docs/payouts.md §1): approved and
 * not in a payout (`available`, negative after a clawback), in payouts not yet paid, paid out,
 * and bonuses still pending (not yet approved).
 */
export class EmbedBalanceResponse {
  /** @example "RUB" */ currency: string;
  /** Approved bonuses not yet in a payout, plus clawbacks not yet netted. @example 65000 */
  available_kopecks: number;
  /** In payouts sent and not yet paid. @example 150000 */ in_payout_kopecks: number;
  /** Paid out in all. @example 300000 */ paid_kopecks: number;
  /** Bonuses awaiting approval. @example 37500 */ pending_kopecks: number;
  /** Formatted as every `*_formatted` amount. @example "650,00 ₽" */ available_formatted: string;
  /** @example "1 500,00 ₽" */ in_payout_formatted: string;
  /** @example "3 000,00 ₽" */ paid_formatted: string;
  /** @example "375,00 ₽" */ pending_formatted: string;
  next_payout: EmbedNextPayoutResponse;
}

export class EmbedLeadItemResponse {
  /** @example "lead_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ id: string;
  /** @example "new" */ status: string;
  /** Russian for a `ru` locale, English for any other. @example "Новый" */
  status_human: string;
  /** @example "Ivan Petrov" */ contact_name: string;
  /** `Intl.RelativeTimeFormat` in the answer's locale. @example "5 минут назад" */
  relative_time: string;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
}

export class EmbedTransactionResponse {
  /** @example "bns_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ bonus_id: string;
  /** @example "approved" */ status: string;
  /** Russian for a `ru` locale, English for any other. @example "Начислен" */
  status_human: string;
  /** @example 125000 */ amount_kopecks: number;
  /** `Intl.NumberFormat` of the answer's locale in the bonus's currency. @example "1 250,00 ₽" */
  amount_formatted: string;
  /** @example "RUB" */ currency: string;
  /** @example "conversion" */ source_type: string;
  /** @example "cnv_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ source_id: string;
  /** Null for lead and manual bonuses. @example "referrer" */ tier: string | null;
  /** What paid a conversion bonus (docs/money.md §2, "Versions"); null for other bonuses. */
  rule: BonusRuleResponse | null;
  /**
   * The rule in a sentence of the tenant's locale, written with the bonus.
   * @example "10 % от 12 500,00 ₽"
   */
  explanation: string | null;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
  /** `Intl.RelativeTimeFormat` in the answer's locale. @example "2 часа назад" */
  relative_time: string;
}

export class EmbedCabinetResponse {
  user: EmbedUserResponse;
  tenant: EmbedTenantResponse;
  kpi: EmbedKpiResponse;
  /** Available, in payout, paid and pending, and the next payout (the tenant's currency). */
  balance: EmbedBalanceResponse;
  recent_leads: EmbedLeadItemResponse[];
  transactions: EmbedTransactionResponse[];
}

export class EmbedTotalsResponse {
  /** Approved and not yet paid, in a pending payout or not (see `balance`). @example 150000 */
  cleared_kopecks: number;
  /** @example 37500 */ pending_kopecks: number;
  /** @example "1 500,00 ₽" */ cleared_formatted: string;
  /** @example "375,00 ₽" */ pending_formatted: string;
  /** @example "RUB" */ currency: string;
}

export class EmbedAccountResponse {
  /** @example "RUB" */ currency: string;
  /** @example 150000 */ cleared_kopecks: number;
  /** @example 37500 */ pending_kopecks: number;
  /** @example "1 500,00 ₽" */ cleared_formatted: string;
  /** @example "375,00 ₽" */ pending_formatted: string;
  /** docs/payouts.md: approved and not yet in a payout, minus clawbacks. @example 150000 */
  available_kopecks: number;
  /** In payouts not yet paid. @example 0 */ in_payout_kopecks: number;
  /** Paid out in all. @example 300000 */ paid_kopecks: number;
  /** @example "1 500,00 ₽" */ available_formatted: string;
  /** @example "0,00 ₽" */ in_payout_formatted: string;
  /** @example "3 000,00 ₽" */ paid_formatted: string;
}

export class EmbedBonusesResponse {
  user: EmbedUserResponse;
  tenant: EmbedTenantResponse;
  totals: EmbedTotalsResponse;
  /** Available, in payout, paid and pending, and the next payout (the tenant's currency). */
  balance: EmbedBalanceResponse;
  accounts: EmbedAccountResponse[];
  transactions: EmbedTransactionResponse[];
  pagination: PaginationResponse;
}

export class EmbedLeadFiltersResponse {
  /** @example "all" */ status: string;
}

export class EmbedLeadsResponse {
  user: EmbedUserResponse;
  tenant: EmbedTenantResponse;
  leads: EmbedLeadItemResponse[];
  filters: EmbedLeadFiltersResponse;
  pagination: PaginationResponse;
}

export class EmbedTreeNodeResponse {
  /** @example "mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ user_id: string;
  /** @example "Maria Ivanova" */ display_name: string;
  /** 0 for the root. @example 1 */ depth: number;
  /** Null for the root. @example "mbr_01JD0Z5T1X7J2K3L4M5N6P7Q8R" */ parent_user_id: string | null;
}

export class EmbedTreeResponse {
  user: EmbedUserResponse;
  tenant: EmbedTenantResponse;
  root: EmbedTreeNodeResponse;
  /** levels[0] = [root]; levels[n] the nodes at depth n. */
  // Spelt out: the OpenAPI plugin reads `T[][]` as an array of `{ required: true, … }`.
  @ApiProperty({
    type: 'array',
    items: { type: 'array', items: { $ref: getSchemaPath(EmbedTreeNodeResponse) } },
  })
  levels: EmbedTreeNodeResponse[][];
  /** Every descendant at any depth. @example 1250 */ total_downline: number;
  /** True when some node lies deeper than max_depth. @example true */ hit_depth_cap: boolean;
  /** @example 3 */ max_depth: number;
  /** Present (true) when the 1000-node cut applied. @example true */
  truncated?: boolean;
}

export class EmbedPartnerResponse {
  /** @example "mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ user_id: string;
  /** @example "Ivan Petrov" */ display_name: string;
  /** @example "partner" */ partnership_role: string;
  /** @example "2026-11-21T09:30:00.000Z" */ joined_at: string;
  /** @example true */ is_active: boolean;
}

export class EmbedPartnersResponse {
  user: EmbedUserResponse;
  tenant: EmbedTenantResponse;
  partners: EmbedPartnerResponse[];
  pagination: PaginationResponse;
}
