import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../database/columns';

export const BOUNTY_METRICS = ['conversions', 'revenue_kopecks'] as const;
export type BountyMetric = (typeof BOUNTY_METRICS)[number];

/**
 * A bounty (`bty_…`, docs/money.md "Bounties"): one bonus of `amountKopecks` to each partner (of
 * `groupId`, or any) whose own referred conversions in [startsAt, endsAt) reach `threshold`.
 */
@Entity({ name: 'bounties' })
export class BountyEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text' }) name: string;
  /** null: every partner of the tenant. */
  @Column({ type: 'text', name: 'group_id', nullable: true }) groupId: string | null;
  @Column({ type: 'text' }) metric: BountyMetric;
  @Column({ type: 'bigint', transformer: bigintToNumber }) threshold: number;
  @Column({ type: 'bigint', name: 'amount_kopecks', transformer: bigintToNumber })
  amountKopecks: number;
  @Column({ type: 'char', length: 3 }) currency: string;
  @Column({ type: 'timestamptz', name: 'starts_at' }) startsAt: Date;
  /** null: open-ended. */
  @Column({ type: 'timestamptz', name: 'ends_at', nullable: true }) endsAt: Date | null;
  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'updated_at', default: () => 'now()' }) updatedAt: Date;
}

/** A partner who reached a bounty, and the bonus it paid them: one row per partner and bounty. */
@Entity({ name: 'bounty_awards' })
export class BountyAwardEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @PrimaryColumn({ type: 'text', name: 'bounty_id' }) bountyId: string;
  @PrimaryColumn({ type: 'text', name: 'member_id' }) memberId: string;
  /** null: the bounty pays nothing (`amount_kopecks` 0), reaching it is all. */
  @Column({ type: 'text', name: 'bonus_id', nullable: true }) bonusId: string | null;
  /** The progress when it was reached (the conversion that crossed the threshold included). */
  @Column({ type: 'bigint', transformer: bigintToNumber }) value: number;
  @Column({ type: 'timestamptz', name: 'reached_at' }) reachedAt: Date;
}
