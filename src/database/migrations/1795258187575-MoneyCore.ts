import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The money core: offers, leads, conversions, bonuses, the event outbox and idempotency keys.
 * Money is bigint kopecks; every table leads with tenant_id; ix_bonuses_due is the sweep's
 * partial index over pending bonuses only.
 */

export class MoneyCore1795258187575 implements MigrationInterface {
  name = 'MoneyCore1795258187575';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "bonuses" ("tenant_id" text NOT NULL, "id" text NOT NULL, "member_id" text NOT NULL, "service_user_id" text NOT NULL, "amount_kopecks" bigint NOT NULL, "currency" character(3) NOT NULL, "source_type" text NOT NULL, "source_id" text NOT NULL, "tier" text, "status" text NOT NULL, "reason" text, "due_at" TIMESTAMP WITH TIME ZONE NOT NULL, "approved_at" TIMESTAMP WITH TIME ZONE, "rejected_at" TIMESTAMP WITH TIME ZONE, "reversed_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_a307a8a2fa00f93558728c650f6" PRIMARY KEY ("tenant_id", "id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_bonuses_status" ON "bonuses"  ("tenant_id", "status", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_bonuses_source" ON "bonuses"  ("tenant_id", "source_type", "source_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_bonuses_member" ON "bonuses"  ("tenant_id", "member_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "offers" ("tenant_id" text NOT NULL, "id" text NOT NULL, "name" text NOT NULL, "url" text, "program" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_933dcee1cd5a2a671a910b910fb" PRIMARY KEY ("tenant_id", "id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "leads" ("tenant_id" text NOT NULL, "id" text NOT NULL, "referrer_member_id" text NOT NULL, "referrer_user_id" text NOT NULL, "offer_id" text, "contact_name" text NOT NULL, "contact_email" text, "contact_phone" text, "metadata" jsonb NOT NULL DEFAULT '{}', "status" text NOT NULL, "source" text NOT NULL, "status_reason" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_dc152f699a1163e55f5c7002c8e" PRIMARY KEY ("tenant_id", "id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_leads_referrer" ON "leads"  ("tenant_id", "referrer_member_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_bonuses_due" ON "bonuses" ("due_at") WHERE "status" = 'pending'`,
    );
    await queryRunner.query(
      `CREATE TABLE "conversions" ("tenant_id" text NOT NULL, "id" text NOT NULL, "lead_id" text NOT NULL, "amount_kopecks" bigint NOT NULL, "currency" character(3) NOT NULL, "external_order_id" text NOT NULL, "status" text NOT NULL, "reversed_at" TIMESTAMP WITH TIME ZONE, "reverse_reason" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "uq_conversions_external_order_id" UNIQUE ("tenant_id", "external_order_id"), CONSTRAINT "PK_ddf855e1fbb875a59c1d5152a0d" PRIMARY KEY ("tenant_id", "id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "events" ("tenant_id" text NOT NULL, "id" text NOT NULL, "event_type" text NOT NULL, "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL, "body" text NOT NULL, CONSTRAINT "PK_700597e26df59e1931a61cf8472" PRIMARY KEY ("tenant_id", "id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_events_tenant_occurred" ON "events"  ("tenant_id", "occurred_at", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "idempotency_keys" ("tenant_id" text NOT NULL, "path" text NOT NULL, "key" text NOT NULL, "request_hash" text NOT NULL, "locked_until" TIMESTAMP WITH TIME ZONE, "response_status" integer, "response_body" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_c79071d6393c4745b369110cbad" PRIMARY KEY ("tenant_id", "path", "key"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_idempotency_keys_expires" ON "idempotency_keys"  ("expires_at") `,
    );
    await queryRunner.query(
      `ALTER TABLE "bonuses" ADD CONSTRAINT "fk_bonuses_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "bonuses" ADD CONSTRAINT "fk_bonuses_member" FOREIGN KEY ("tenant_id", "member_id") REFERENCES "members"("tenant_id","id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "offers" ADD CONSTRAINT "fk_offers_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "leads" ADD CONSTRAINT "fk_leads_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "leads" ADD CONSTRAINT "fk_leads_referrer" FOREIGN KEY ("tenant_id", "referrer_member_id") REFERENCES "members"("tenant_id","id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "leads" ADD CONSTRAINT "fk_leads_offer" FOREIGN KEY ("tenant_id", "offer_id") REFERENCES "offers"("tenant_id","id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "conversions" ADD CONSTRAINT "fk_conversions_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "conversions" ADD CONSTRAINT "fk_conversions_lead" FOREIGN KEY ("tenant_id", "lead_id") REFERENCES "leads"("tenant_id","id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "events" ADD CONSTRAINT "fk_events_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "events" DROP CONSTRAINT "fk_events_tenant"`);
    await queryRunner.query(`ALTER TABLE "conversions" DROP CONSTRAINT "fk_conversions_lead"`);
    await queryRunner.query(`ALTER TABLE "conversions" DROP CONSTRAINT "fk_conversions_tenant"`);
    await queryRunner.query(`ALTER TABLE "leads" DROP CONSTRAINT "fk_leads_offer"`);
    await queryRunner.query(`ALTER TABLE "leads" DROP CONSTRAINT "fk_leads_referrer"`);
    await queryRunner.query(`ALTER TABLE "leads" DROP CONSTRAINT "fk_leads_tenant"`);
    await queryRunner.query(`ALTER TABLE "offers" DROP CONSTRAINT "fk_offers_tenant"`);
    await queryRunner.query(`ALTER TABLE "bonuses" DROP CONSTRAINT "fk_bonuses_member"`);
    await queryRunner.query(`ALTER TABLE "bonuses" DROP CONSTRAINT "fk_bonuses_tenant"`);
    await queryRunner.query(`DROP INDEX "public"."ix_idempotency_keys_expires"`);
    await queryRunner.query(`DROP TABLE "idempotency_keys"`);
    await queryRunner.query(`DROP INDEX "public"."ix_events_tenant_occurred"`);
    await queryRunner.query(`DROP TABLE "events"`);
    await queryRunner.query(`DROP TABLE "conversions"`);
    await queryRunner.query(`DROP INDEX "public"."ix_leads_referrer"`);
    await queryRunner.query(`DROP TABLE "leads"`);
    await queryRunner.query(`DROP TABLE "offers"`);
    await queryRunner.query(`DROP INDEX "public"."ix_bonuses_due"`);
    await queryRunner.query(`DROP INDEX "public"."ix_bonuses_member"`);
    await queryRunner.query(`DROP INDEX "public"."ix_bonuses_source"`);
    await queryRunner.query(`DROP INDEX "public"."ix_bonuses_status"`);
    await queryRunner.query(`DROP TABLE "bonuses"`);
  }
}
