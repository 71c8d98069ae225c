import { BonusRuleResponse } from '../../bonuses/dto/bonus.response';

export class CascadedBonusResponse {
  /** @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ user_id: string;
  /** @example 125000 */ amount_kopecks: number;
  /** `referrer`, `upline_1`, … @example "referrer" */ tier: string;
  /** What pays the bonus (docs/money.md §2, "Versions"); null on bonuses from before versions. */
  rule: BonusRuleResponse | null;
  /** The rule in a sentence of the tenant's locale. @example "10 % of 12,500.00 ₽" */
  explanation: string | null;
}

export class RegisteredBonusResponse extends CascadedBonusResponse {
  /** @example "bns_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ bonus_id: string;
}

export class ConversionResponse {
  /** @example "cnv_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ conversion_id: string;
  cascaded_bonuses: RegisteredBonusResponse[];
  /**
   * The lead created for the order, when it was registered by `promo_code` or `signed_ref`.
   * @example "lead_01JD0Z6V2Y8K3M4N5P6Q7R8S9T"
   */
  lead_id?: string;
  /**
   * Present when the conversion pays nothing because the lead is past its program's last phase
   * (docs/money.md §2, "Phases").
   * @example "No bonuses: the program's last phase (phase 2, 12 month(s)) has ended for this lead."
   */
  reward_note?: string;
}

export class ConversionPreviewResponse {
  /** @example "lead_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ lead_id: string;
  /** @example 1250000 */ amount_kopecks: number;
  /** @example "RUB" */ currency: string;
  cascaded_bonuses: CascadedBonusResponse[];
  /** As on the register answer: why this conversion would pay nothing. */
  reward_note?: string;
}

export class WrittenOffBonusResponse {
  /** @example "bns_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ bonus_id: string;
  /** @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ user_id: string;
  /** @example 125000 */ amount_kopecks: number;
  /** Present (true) when the bonus was paid or held by a pending payout: a clawback nets it. */
  clawback?: true;
}

export class ReversalResponse {
  /** @example "cnv_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ conversion_id: string;
  /** @example "reversed" */ status: string;
  /** @example "2026-11-22T09:30:00.000Z" */ reversed_at: string;
  /** @example "refund" */ reason: string;
  written_off: WrittenOffBonusResponse[];
}
