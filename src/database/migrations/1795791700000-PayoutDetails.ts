import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payout details (docs/partners.md): a member's sealed details, one row per member (tenant-first
 * key, gone with the member), and the copy a payout takes of them when a run creates it, so that
 * the run's file pays where the partner asked at that time.
 */
export class PayoutDetails1795791700000 implements MigrationInterface {
  name = 'PayoutDetails1795791700000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE payout_details (
        tenant_id text NOT NULL,
        member_id text NOT NULL,
        method text NOT NULL,
        sealed text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_payout_details PRIMARY KEY (tenant_id, member_id),
        CONSTRAINT ck_payout_details_method CHECK (method IN ('bank_account', 'paypal')),
        CONSTRAINT fk_payout_details_member FOREIGN KEY (tenant_id, member_id)
          REFERENCES members (tenant_id, id) ON DELETE CASCADE)`);
    await queryRunner.query(
      `ALTER TABLE payouts ADD COLUMN details_method text, ADD COLUMN details_sealed text`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE payouts DROP COLUMN details_sealed, DROP COLUMN details_method`,
    );
    await queryRunner.query(`DROP TABLE payout_details`);
  }
}
