import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Attribution and fraud review (docs/fraud.md):
 *
 * - `tenants.attribution_window_days` and `tenants.fraud` (the risk-signal settings; `{}` means
 *   every default).
 * - `uq_deeplinks_promo_code`: a promo code names one link per tenant, whatever its case; the
 *   database decides between concurrent creations.
 * - `members.last_seen_ip` (from `client.ip`), `banned_at` and `ban_reason`.
 * - `leads.client_ip`, `client_user_agent`, `clicked_at` (the click a ref carried) and
 *   `risk_signals` (what fired when the lead was registered), with the two look-ups the signals
 *   make: a contact email across the tenant, a partner's leads from one IP within the hour.
 * - `conversions.client_ip` and `client_user_agent`; `ix_conversions_created` for the median of
 *   the tenant's latest conversions.
 * - `bonuses.review` (`{status: flagged|cleared, signals}` or null). A pending bonus with a
 *   review is flagged; the sweep's index leaves those out, so it never even reads them.
 */
export class FraudReview1795710000000 implements MigrationInterface {
  name = 'FraudReview1795710000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "tenants" ADD "attribution_window_days" integer NOT NULL DEFAULT 90`,
    );
    await queryRunner.query(`ALTER TABLE "tenants" ADD "fraud" jsonb NOT NULL DEFAULT '{}'`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_deeplinks_promo_code" ON "deeplinks" ("tenant_id", lower("promo_code")) WHERE "promo_code" <> ''`,
    );
    await queryRunner.query(
      `ALTER TABLE "members" ADD "last_seen_ip" inet, ADD "banned_at" TIMESTAMP WITH TIME ZONE, ADD "ban_reason" text`,
    );
    await queryRunner.query(
      `ALTER TABLE "leads" ADD "client_ip" inet, ADD "client_user_agent" text, ADD "clicked_at" TIMESTAMP WITH TIME ZONE, ADD "risk_signals" jsonb`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_leads_contact_email" ON "leads" ("tenant_id", lower("contact_email")) WHERE "contact_email" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_leads_client_ip" ON "leads" ("tenant_id", "referrer_member_id", "client_ip", "created_at") WHERE "client_ip" IS NOT NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE "conversions" ADD "client_ip" inet, ADD "client_user_agent" text`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_conversions_created" ON "conversions" ("tenant_id", "created_at")`,
    );
    await queryRunner.query(`ALTER TABLE "bonuses" ADD "review" jsonb`);
    await queryRunner.query(`DROP INDEX "public"."ix_bonuses_due"`);
    await queryRunner.query(
      `CREATE INDEX "ix_bonuses_due" ON "bonuses" ("due_at") WHERE "status" = 'pending' AND "review" IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_bonuses_due"`);
    await queryRunner.query(
      `CREATE INDEX "ix_bonuses_due" ON "bonuses" ("due_at") WHERE "status" = 'pending'`,
    );
    await queryRunner.query(`ALTER TABLE "bonuses" DROP COLUMN "review"`);
    await queryRunner.query(`DROP INDEX "public"."ix_conversions_created"`);
    await queryRunner.query(
      `ALTER TABLE "conversions" DROP COLUMN "client_ip", DROP COLUMN "client_user_agent"`,
    );
    await queryRunner.query(`DROP INDEX "public"."ix_leads_client_ip"`);
    await queryRunner.query(`DROP INDEX "public"."ix_leads_contact_email"`);
    await queryRunner.query(
      `ALTER TABLE "leads" DROP COLUMN "client_ip", DROP COLUMN "client_user_agent", DROP COLUMN "clicked_at", DROP COLUMN "risk_signals"`,
    );
    await queryRunner.query(
      `ALTER TABLE "members" DROP COLUMN "last_seen_ip", DROP COLUMN "banned_at", DROP COLUMN "ban_reason"`,
    );
    await queryRunner.query(`DROP INDEX "public"."uq_deeplinks_promo_code"`);
    await queryRunner.query(`ALTER TABLE "tenants" DROP COLUMN "fraud"`);
    await queryRunner.query(`ALTER TABLE "tenants" DROP COLUMN "attribution_window_days"`);
  }
}
