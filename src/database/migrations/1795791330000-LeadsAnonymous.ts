import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `leads.anonymous` (docs/fraud.md, "duplicate_customer"): a lead posted by anyone who holds a
 * partner's ref (the lead-form widget, the landing page's form) rather than by the tenant's
 * authenticated back end. Such a lead is not evidence that a customer belongs to a partner, so
 * `duplicate_customer` does not count it against another partner. Backfill: every `lead_form`
 * lead, and every `referral_link` lead without a conversion (a conversion registered by ref
 * creates its lead with it; the landing page's leads have none until the back end converts one).
 */
export class LeadsAnonymous1795791330000 implements MigrationInterface {
  name = 'LeadsAnonymous1795791330000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE leads ADD anonymous boolean NOT NULL DEFAULT false`);
    await queryRunner.query(`
      UPDATE leads l SET anonymous = true
       WHERE l.source = 'lead_form'
          OR (l.source = 'referral_link' AND NOT EXISTS (
                SELECT 1 FROM conversions c WHERE c.tenant_id = l.tenant_id AND c.lead_id = l.id))`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE leads DROP COLUMN anonymous`);
  }
}
