import type { FieldError } from '../common/errors/domain-error';

/** A tier pays a share of the conversion (`percent_bp`, basis points) or a fixed amount. */
export type ProgramTier =
  | { tier: string; percent_bp: number; fixed_kopecks?: never }
  | { tier: string; fixed_kopecks: number; percent_bp?: never };

/** The commission plan of docs/money.md §2, stored as the API shows it. */
export interface Program {
  lead_bonus_kopecks: number;
  tiers: ProgramTier[];
  grace_period_hours: number;
}

export const MAX_UPLINE_TIERS = 20;

export const DEFAULT_PROGRAM: Program = Object.freeze({
  lead_bonus_kopecks: 0,
  tiers: [
    { tier: 'referrer', percent_bp: 1000 },
    { tier: 'upline_1', percent_bp: 300 },
  ],
  grace_period_hours: 336,
});

/** The name of the tier at chain position `index` (0 is the lead's referrer). */
export function tierName(index: number): string {
  return index === 0 ? 'referrer' : `upline_${index}`;
}

/**
 * The rules of docs/money.md §2 that types alone cannot say: `referrer` first, then
 * `upline_1…upline_N` in order with N ≤ 20, exactly one of `percent_bp`/`fixed_kopecks` per tier,
 * and percentages that together pay out at most the whole amount.
 */
export function tierErrors(
  tiers: readonly Partial<ProgramTier>[],
  field = 'program.tiers',
): FieldError[] {
  const errors: FieldError[] = [];
  if (tiers.length === 0) errors.push({ field, message: 'must have at least the referrer tier' });
  if (tiers.length > MAX_UPLINE_TIERS + 1) {
    errors.push({ field, message: `must have at most ${MAX_UPLINE_TIERS + 1} tiers` });
  }
  let percentSum = 0;
  tiers.forEach((tier, index) => {
    const at = `${field}.${index}`;
    if (typeof tier !== 'object' || tier === null) {
      errors.push({ field: at, message: 'must be an object' });
      return;
    }
    if (tier.tier !== tierName(index)) {
      errors.push({
        field: `${at}.tier`,
        message: `must be "${tierName(index)}" (tiers go in chain order)`,
      });
    }
    const hasPercent = tier.percent_bp !== undefined && tier.percent_bp !== null;
    const hasFixed = tier.fixed_kopecks !== undefined && tier.fixed_kopecks !== null;
    if (hasPercent === hasFixed) {
      errors.push({ field: at, message: 'must have exactly one of percent_bp and fixed_kopecks' });
    }
    if (hasPercent) percentSum += tier.percent_bp ?? 0;
  });
  if (percentSum > 10000) {
    errors.push({ field, message: 'percent_bp of all tiers must add up to at most 10000 (100 %)' });
  }
  return errors;
}

/** A program as a caller may send it: every field optional. */
export interface ProgramInput {
  lead_bonus_kopecks?: number;
  tiers?: { tier: string; percent_bp?: number; fixed_kopecks?: number }[];
  grace_period_hours?: number;
}

/** A complete program from what a caller sent: omitted fields take docs/money.md §2's defaults. */
export function withProgramDefaults(input?: ProgramInput): Program {
  return {
    lead_bonus_kopecks: input?.lead_bonus_kopecks ?? DEFAULT_PROGRAM.lead_bonus_kopecks,
    tiers: (input?.tiers ?? (DEFAULT_PROGRAM.tiers as ProgramInput['tiers'])!).map((t) =>
      t.percent_bp !== undefined && t.percent_bp !== null
        ? { tier: t.tier, percent_bp: t.percent_bp }
        : { tier: t.tier, fixed_kopecks: t.fixed_kopecks! },
    ),
    grace_period_hours: input?.grace_period_hours ?? DEFAULT_PROGRAM.grace_period_hours,
  };
}
