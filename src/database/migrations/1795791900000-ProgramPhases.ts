import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/money.md §2, "Phases": a conversion past its program's last phase is registered with no
 * bonuses and says why (`conversions.reward_note`); which phase pays depends on the lead's earlier
 * conversions, read by lead; a conversion by promo code or ref finds the partner's lead of the same
 * customer by its external id (by email, `ix_leads_contact_email` already serves).
 */
export class ProgramPhases1795791900000 implements MigrationInterface {
  name = 'ProgramPhases1795791900000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE conversions ADD reward_note text`);
    await queryRunner.query(
      `CREATE INDEX ix_conversions_lead ON conversions (tenant_id, lead_id, created_at)`,
    );
    await queryRunner.query(
      `CREATE INDEX ix_leads_customer_external_id ON leads
         (tenant_id, (metadata ->> 'customer_external_id'))
       WHERE metadata ? 'customer_external_id'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX ix_leads_customer_external_id`);
    await queryRunner.query(`DROP INDEX ix_conversions_lead`);
    await queryRunner.query(`ALTER TABLE conversions DROP COLUMN reward_note`);
  }
}
