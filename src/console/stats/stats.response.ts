/** The period's totals (docs/console.md). Money in the tenant's currency, in kopecks. */
export class StatsTotalsResponse {
  /** Clicks on the partners' short links. @example 1520 */ clicks: number;
  /** Members who joined. @example 42 */ new_partners: number;
  /** @example 130 */ leads: number;
  /** Every registered conversion, reversed or not. @example 37 */ conversions: number;
  /** Amount of the conversions not reversed. @example 18500000 */ revenue_kopecks: number;
  /** Bonuses created in the period and pending now. @example 120000 */
  commission_pending_kopecks: number;
  /** Bonuses created in the period and approved now. @example 950000 */
  commission_approved_kopecks: number;
  /** Bonuses created in the period and paid now. @example 0 */
  commission_paid_kopecks: number;
}

/** One UTC day of the period (every day is listed, zeros included). */
export class StatsDayResponse {
  /** @example "2026-11-25" */ date: string;
  /** @example 51 */ clicks: number;
  /** @example 2 */ new_partners: number;
  /** @example 4 */ leads: number;
  /** @example 1 */ conversions: number;
  /** @example 500000 */ revenue_kopecks: number;
  /** Bonuses created that day, neither rejected nor reversed now. @example 65000 */
  commission_kopecks: number;
}

export class StatsFunnelResponse {
  /** @example 1520 */ clicks: number;
  /** Leads created in the period. @example 130 */ leads: number;
  /** Of those, the ones converted now. @example 31 */ converted_leads: number;
}

export class StatsTopPartnerResponse {
  /** The member's surrogate id. @example "mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ user_id: string;
  /** Full name, else email, else external id. @example "Anna Petrova" */ display_name: string;
  /** Bonuses created in the period, neither rejected nor reversed. @example 250000 */
  commission_kopecks: number;
}

export class StatsResponse {
  /** @example "2026-10-27" */ from: string;
  /** @example "2026-11-25" */ to: string;
  /** The currency of the money fields: the tenant's. @example "RUB" */ currency: string;
  totals: StatsTotalsResponse;
  series: StatsDayResponse[];
  funnel: StatsFunnelResponse;
  top_partners: StatsTopPartnerResponse[];
}
