import type { FieldError } from '../common/errors/domain-error';

/**
 * docs/money.md §2, "Qualification": an upline takes the tier only if the conversions they referred
 * themselves (not reversed, in the conversion's currency) in the last `window_days` UTC days sum
 * to at least `min_personal_sales_kopecks`.
 */
export interface TierQualification {
  min_personal_sales_kopecks: number;
  window_days: number;
}

/**
 * A tier pays a share of the conversion (`percent_bp`, basis points) or a fixed amount; an upline
 * tier may ask its member to qualify.
 */
export type ProgramTier = { tier: string; qualify?: TierQualification } & (
  { percent_bp: number; fixed_kopecks?: never } | { fixed_kopecks: number; percent_bp?: never }
);

/** The longest qualification window, in days. */
export const MAX_WINDOW_DAYS = 3650;

/**
 * One phase of a phased program (docs/money.md §2, "Phases"): it pays its tiers for `months`
 * calendar months or for `conversions` conversions of the lead; a last phase with neither lasts
 * for ever.
 */
export interface ProgramPhase {
  months?: number;
  conversions?: number;
  tiers: ProgramTier[];
}

/**
 * The commission plan of docs/money.md §2, stored as the API shows it: `tiers` (one phase for ever)
 * or `phases`, never both.
 */
export type Program = {
  lead_bonus_kopecks: number;
  grace_period_hours: number;
  /**
   * docs/money.md §2, "Compression": tiers go up the chain to the next active, qualified member
   * instead of lapsing. Stored only when true.
   */
  compression?: boolean;
} & ({ tiers: ProgramTier[]; phases?: never } | { phases: ProgramPhase[]; tiers?: never });

export const MAX_PHASES = 12;

export const MAX_UPLINE_TIERS = 20;

export const DEFAULT_PROGRAM: Program = Object.freeze({
  lead_bonus_kopecks: 0,
  tiers: [
    { tier: 'referrer', percent_bp: 1000 },
    { tier: 'upline_1', percent_bp: 300 },
  ],
  grace_period_hours: 336,
});

/** The phases a program pays by: a program of `tiers` alone is one phase for ever. */
export function programPhases(program: Program): readonly ProgramPhase[] {
  return program.phases ?? [{ tiers: program.tiers }];
}

/** The most tiers any phase pays: how far up the chain a conversion may need to look. */
export function maxTierCount(program: Program): number {
  return Math.max(...programPhases(program).map((phase) => phase.tiers.length));
}

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
    if (tier.qualify !== undefined && tier.qualify !== null && index === 0) {
      errors.push({
        field: `${at}.qualify`,
        message: 'is for upline tiers only (the referrer of a conversion made the sale)',
      });
    }
  });
  if (percentSum > 10000) {
    errors.push({ field, message: 'percent_bp of all tiers must add up to at most 10000 (100 %)' });
  }
  return errors;
}

/**
 * The rules of docs/money.md §2, "Phases": at least one and at most 12; every phase but the last
 * has exactly one of `months` and `conversions`, the last at most one; each phase's tiers obey
 * `tierErrors`.
 */
export function phaseErrors(
  phases: readonly Partial<ProgramPhase>[],
  field = 'program.phases',
): FieldError[] {
  const errors: FieldError[] = [];
  if (phases.length === 0) errors.push({ field, message: 'must have at least one phase' });
  if (phases.length > MAX_PHASES) {
    errors.push({ field, message: `must have at most ${MAX_PHASES} phases` });
  }
  phases.forEach((phase, index) => {
    const at = `${field}.${index}`;
    if (typeof phase !== 'object' || phase === null) {
      errors.push({ field: at, message: 'must be an object' });
      return;
    }
    const limits = (['months', 'conversions'] as const).filter(
      (key) => phase[key] !== undefined && phase[key] !== null,
    );
    if (limits.length > 1) {
      errors.push({ field: at, message: 'must have at most one of months and conversions' });
    } else if (limits.length === 0 && index < phases.length - 1) {
      errors.push({
        field: at,
        message: 'must have months or conversions (only the last phase may last for ever)',
      });
    }
    for (const key of limits) {
      const value = phase[key];
      if (!Number.isInteger(value) || value! < 1 || value! > 100_000) {
        errors.push({ field: `${at}.${key}`, message: 'must be a whole number from 1 to 100000' });
      }
    }
    if (!Array.isArray(phase.tiers)) {
      errors.push({ field: `${at}.tiers`, message: 'must be an array' });
    } else {
      errors.push(...tierErrors(phase.tiers, `${at}.tiers`));
    }
  });
  return errors;
}

type TierInput = {
  tier: string;
  percent_bp?: number;
  fixed_kopecks?: number;
  qualify?: TierQualification;
};

/** A program as a caller may send it: every field optional; `tiers` or `phases`, not both. */
export interface ProgramInput {
  lead_bonus_kopecks?: number;
  tiers?: TierInput[];
  phases?: { months?: number; conversions?: number; tiers: TierInput[] }[];
  grace_period_hours?: number;
  compression?: boolean;
}

const toTiers = (tiers: readonly TierInput[]): ProgramTier[] =>
  tiers.map((t) => {
    const qualify = t.qualify
      ? {
          qualify: {
            min_personal_sales_kopecks: t.qualify.min_personal_sales_kopecks,
            window_days: t.qualify.window_days,
          },
        }
      : {};
    return t.percent_bp !== undefined && t.percent_bp !== null
      ? { tier: t.tier, percent_bp: t.percent_bp, ...qualify }
      : { tier: t.tier, fixed_kopecks: t.fixed_kopecks!, ...qualify };
  });

/** Whether paying by `tiers` reads personal sales or may walk past the tiers' own positions. */
export function needsQualification(program: Program, tiers: readonly ProgramTier[]): boolean {
  return program.compression === true || tiers.some((t) => t.qualify);
}

/** A complete program from what a caller sent: omitted fields take docs/money.md §2's defaults. */
export function withProgramDefaults(input?: ProgramInput): Program {
  const lead_bonus_kopecks = input?.lead_bonus_kopecks ?? DEFAULT_PROGRAM.lead_bonus_kopecks;
  const grace_period_hours = input?.grace_period_hours ?? DEFAULT_PROGRAM.grace_period_hours;
  const compression = input?.compression === true ? { compression: true } : {};
  if (input?.phases) {
    const phases = input.phases.map((phase) => ({
      ...(phase.months != null ? { months: phase.months } : {}),
      ...(phase.conversions != null ? { conversions: phase.conversions } : {}),
      tiers: toTiers(phase.tiers),
    }));
    return { lead_bonus_kopecks, phases, grace_period_hours, ...compression };
  }
  const tiers = toTiers(input?.tiers ?? DEFAULT_PROGRAM.tiers!);
  return { lead_bonus_kopecks, tiers, grace_period_hours, ...compression };
}
