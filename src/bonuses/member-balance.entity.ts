import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../database/columns';

/**
 * A member's bonus sums per currency: `pending_kopecks` (pending) and `cleared_kopecks`
 * (approved); rejected and reversed count in neither. Kept by the `trg_bonuses_balance_*` triggers in
 * the same transaction as every bonus insert and status change, so no read sums a history.
 */
@Entity({ name: 'member_balances' })
export class MemberBalanceEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @PrimaryColumn({ type: 'text', name: 'member_id' }) memberId: string;
  @PrimaryColumn({ type: 'char', length: 3 }) currency: string;
  @Column({ type: 'bigint', name: 'pending_kopecks', default: 0, transformer: bigintToNumber })
  pendingKopecks: number;
  @Column({ type: 'bigint', name: 'cleared_kopecks', default: 0, transformer: bigintToNumber })
  clearedKopecks: number;
}
