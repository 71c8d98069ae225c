import { type ProgramTier, tierName } from '../tenants/program';

/**
 * The farthest a compressing cascade looks above the referrer for members to take its tiers
 * (docs/money.md §2, "Compression"): past it, the tiers left lapse.
 */
export const MAX_COMPRESSION_WALK = 1000;

export interface ChainMember {
  id: string;
  serviceUserId: string;
  isActive: boolean;
}

export interface CascadeShare {
  memberId: string;
  serviceUserId: string;
  tier: string;
  amountKopecks: number;
  /**
   * Compression (docs/money.md §2): the tier of the nearest member passed over just below this one
   * (their chain position's tier), or null when nobody was.
   */
  compressedFrom: string | null;
}

/** One tier's amount: `floor(amount × percent_bp / 10000)` in exact integers, or the fixed sum. */
export function tierAmount(amountKopecks: number, tier: ProgramTier): number {
  if (tier.percent_bp !== undefined) {
    return Number((BigInt(amountKopecks) * BigInt(tier.percent_bp)) / 10000n);
  }
  return tier.fixed_kopecks;
}

/**
 * What a cascade reads beyond the chain (docs/money.md §2): whether tiers compress, and a member's
 * personal sales over a window of days (only asked for tiers that carry `qualify`).
 */
export interface CascadeRules {
  compression?: boolean;
  personalSales?: (memberId: string, windowDays: number) => number;
}

/** A cascade's shares, and whether a compressing walk ran off the end of the chain it was given. */
export interface CascadeWalk {
  shares: CascadeShare[];
  /** Tiers were left when the chain ended: a longer chain might pay them. */
  ranOut: boolean;
}

/**
 * docs/money.md §5: `chain[0]` is the lead's referrer, `chain[i]` its i-th upline. Tier i pays
 * `chain[i]`; a deactivated member, one who does not meet the tier's `qualify`, or a zero amount
 * creates no bonus and nothing is passed on. The chain may be shorter than the tiers (the network
 * ends). Shares come in chain order.
 *
 * With `compression` (docs/money.md §2) the tiers are handed out in order walking up the chain:
 * each goes to the next member above the last one given a tier who is active and meets that
 * tier's `qualify`; the members passed over are skipped for good, so nobody takes two tiers of one
 * conversion and tier order follows chain order.
 */
export function cascadeWalk(
  amountKopecks: number,
  tiers: readonly ProgramTier[],
  chain: readonly ChainMember[],
  rules: CascadeRules = {},
): CascadeWalk {
  const qualifies = (member: ChainMember, tier: ProgramTier) =>
    member.isActive &&
    (!tier.qualify ||
      (rules.personalSales?.(member.id, tier.qualify.window_days) ?? 0) >=
        tier.qualify.min_personal_sales_kopecks);
  const shares: CascadeShare[] = [];
  const pay = (member: ChainMember, index: number, compressedFrom: string | null = null) => {
    const amount = tierAmount(amountKopecks, tiers[index]);
    if (amount === 0) return;
    shares.push({
      memberId: member.id,
      serviceUserId: member.serviceUserId,
      tier: tierName(index),
      amountKopecks: amount,
      compressedFrom,
    });
  };
  if (!rules.compression) {
    const length = Math.min(tiers.length, chain.length);
    for (let i = 0; i < length; i++) if (qualifies(chain[i], tiers[i])) pay(chain[i], i);
    return { shares, ranOut: false };
  }
  let position = 0;
  for (let i = 0; i < tiers.length; i++) {
    const from = position;
    while (position < chain.length && !qualifies(chain[position], tiers[i])) position++;
    if (position === chain.length) return { shares, ranOut: true };
    pay(chain[position], i, position > from ? tierName(position - 1) : null);
    position++;
  }
  return { shares, ranOut: false };
}

/** The shares of `cascadeWalk` over a chain known to be whole. */
export function cascade(
  amountKopecks: number,
  tiers: readonly ProgramTier[],
  chain: readonly ChainMember[],
  rules: CascadeRules = {},
): CascadeShare[] {
  return cascadeWalk(amountKopecks, tiers, chain, rules).shares;
}

/** Chain position of a tier name (`referrer` 0, `upline_N` N), for ordering stored bonuses. */
export function tierIndex(tier: string): number {
  return tier === 'referrer' ? 0 : Number(tier.replace('upline_', ''));
}
