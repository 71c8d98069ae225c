import { type ProgramTier, tierName } from '../tenants/program';

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
}

/** One tier's amount: `floor(amount × percent_bp / 10000)` in exact integers, or the fixed sum. */
export function tierAmount(amountKopecks: number, tier: ProgramTier): number {
  if (tier.percent_bp !== undefined) {
    return Number((BigInt(amountKopecks) * BigInt(tier.percent_bp)) / 10000n);
  }
  return tier.fixed_kopecks;
}

/**
 * docs/money.md §5: `chain[0]` is the lead's referrer, `chain[i]` its i-th upline. Tier i pays
 * `chain[i]`; a deactivated member or a zero amount creates no bonus and nothing is passed on.
 * The chain may be shorter than the tiers (the network ends). Shares come in chain order.
 */
export function cascade(
  amountKopecks: number,
  tiers: readonly ProgramTier[],
  chain: readonly ChainMember[],
): CascadeShare[] {
  const shares: CascadeShare[] = [];
  const length = Math.min(tiers.length, chain.length);
  for (let i = 0; i < length; i++) {
    const member = chain[i];
    const amount = tierAmount(amountKopecks, tiers[i]);
    if (!member.isActive || amount === 0) continue;
    shares.push({
      memberId: member.id,
      serviceUserId: member.serviceUserId,
      tier: tierName(i),
      amountKopecks: amount,
    });
  }
  return shares;
}

/** Chain position of a tier name (`referrer` 0, `upline_N` N), for ordering stored bonuses. */
export function tierIndex(tier: string): number {
  return tier === 'referrer' ? 0 : Number(tier.replace('upline_', ''));
}
