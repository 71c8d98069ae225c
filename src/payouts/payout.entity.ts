import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../database/columns';

export const PAYOUT_STATUSES = ['pending', 'paid', 'failed', 'canceled'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** A member's money in one currency sent (or to be sent) in one transfer: docs/payouts.md §3. */
@Entity({ name: 'payouts' })
export class PayoutEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  /** `pay_…` */
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', name: 'run_id' }) runId: string;
  @Column({ type: 'text', name: 'member_id' }) memberId: string;
  @Column({ type: 'text', name: 'service_user_id' }) serviceUserId: string;
  @Column({ type: 'char', length: 3 }) currency: string;
  @Column({ type: 'bigint', name: 'amount_kopecks', transformer: bigintToNumber })
  amountKopecks: number;
  @Column({ type: 'text' }) status: PayoutStatus;
  @Column({ type: 'text', nullable: true }) reference: string | null;
  @Column({ type: 'text', name: 'failure_reason', nullable: true }) failureReason: string | null;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'paid_at', nullable: true }) paidAt: Date | null;
  /** When it left `pending` (paid, failed or canceled). */
  @Column({ type: 'timestamptz', name: 'settled_at', nullable: true }) settledAt: Date | null;
  /** The member's payout details when the run created it (payout-details/): method… */
  @Column({ type: 'text', name: 'details_method', nullable: true }) detailsMethod: string | null;
  /** …and the details, sealed as in `payout_details` (bound to the tenant and member). */
  @Column({ type: 'text', name: 'details_sealed', nullable: true }) detailsSealed: string | null;
}

/** One payout run: staff's, the tenant back end's, or the schedule's (`schedule_key` = its day). */
@Entity({ name: 'payout_runs' })
export class PayoutRunEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  /** `run_…` */
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text' }) trigger: string;
  @Column({ type: 'text', name: 'schedule_key', nullable: true }) scheduleKey: string | null;
  @Column({ type: 'integer', name: 'payouts_count' }) payoutsCount: number;
  @Column({ type: 'bigint', name: 'total_kopecks', transformer: bigintToNumber })
  totalKopecks: number;
  @Column({ type: 'jsonb', name: 'currency_totals' }) currencyTotals: Record<string, number>;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt: Date;
}
