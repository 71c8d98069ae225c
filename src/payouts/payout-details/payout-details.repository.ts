import { Injectable } from '@nestjs/common';
import { PersonalData, type ErasedMember } from '../../common/privacy/personal-data.decorator';
import { TransactionHost } from '../../database/transaction-host';

export interface PayoutDetailsRow {
  method: string;
  sealed: string;
  updated_at: Date;
}

/** The `payout_details` table: a member's sealed details, one row per member. */
@Injectable()
export class PayoutDetailsRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** Writes the member's details (replacing any), answering the method they had before, if any. */
  async upsert(
    tenantId: string,
    memberId: string,
    method: string,
    sealed: string,
  ): Promise<{ previous: string | null }> {
    const rows: { previous: string | null }[] = await this.tx.manager.query(
      `WITH before AS (SELECT method FROM payout_details WHERE tenant_id = $1 AND member_id = $2)
       INSERT INTO payout_details (tenant_id, member_id, method, sealed, updated_at)
       VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (tenant_id, member_id)
       DO UPDATE SET method = EXCLUDED.method, sealed = EXCLUDED.sealed, updated_at = now()
       RETURNING (SELECT method FROM before) AS previous`,
      [tenantId, memberId, method, sealed],
    );
    return rows[0];
  }

  async find(tenantId: string, memberId: string): Promise<PayoutDetailsRow | null> {
    const rows = await this.tx.select<PayoutDetailsRow>(
      `SELECT method, sealed, updated_at FROM payout_details
        WHERE tenant_id = $1 AND member_id = $2`,
      [tenantId, memberId],
    );
    return rows[0] ?? null;
  }

  /** Removes the member's details; whether there were any. */
  async delete(tenantId: string, memberId: string): Promise<boolean> {
    // TypeORM answers a DELETE with [rows, count].
    const [, count]: [unknown[], number] = await this.tx.manager.query(
      `DELETE FROM payout_details WHERE tenant_id = $1 AND member_id = $2`,
      [tenantId, memberId],
    );
    return count > 0;
  }

  /** docs/privacy.md: the member's payout details, deleted (their values come from the service). */
  @PersonalData('member', 'payout_details')
  async erasePersonal(member: ErasedMember): Promise<string[]> {
    await this.delete(member.tenantId, member.memberId);
    return [];
  }
}
