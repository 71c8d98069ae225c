import type { BonusEntity } from '../bonuses/bonus.entity';
import { ruleResponse } from '../bonuses/bonuses.service';
import { tierIndex } from './cascade';
import type { ConversionEntity } from './conversion.entity';
import type { ConversionResponse } from './dto/conversion.response';

/** Bonuses in chain order (referrer first), whatever order the database returned them in. */
export function byTier<T extends BonusEntity>(bonuses: T[]): T[] {
  return [...bonuses].sort((a, b) => tierIndex(a.tier!) - tierIndex(b.tier!));
}

export function toConversionResponse(
  conversion: ConversionEntity,
  bonuses: BonusEntity[],
): ConversionResponse {
  return {
    conversion_id: conversion.id,
    cascaded_bonuses: byTier(bonuses).map((b) => ({
      user_id: b.serviceUserId,
      amount_kopecks: b.amountKopecks,
      tier: b.tier!,
      rule: ruleResponse(b.rule),
      explanation: b.explanation ?? null,
      bonus_id: b.id,
    })),
    ...(conversion.rewardNote ? { reward_note: conversion.rewardNote } : {}),
  };
}
