import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The widgets' next payout (docs/embedding.md §3, `balance.next_payout`) sums what a run would pay
 * one member: their approved bonuses not in a payout. `ix_bonuses_member` would read the member's
 * whole history for that; this partial index holds only approved (unpaid) bonuses, so the read
 * touches the member's unpaid items and nothing else.
 */
export class MemberApprovedBonuses1795790000000 implements MigrationInterface {
  name = 'MemberApprovedBonuses1795790000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "ix_bonuses_member_approved" ON "bonuses" ("tenant_id", "member_id", "currency", "approved_at") WHERE "status" = 'approved'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "ix_bonuses_member_approved"`);
  }
}
