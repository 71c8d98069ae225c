import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks: one endpoint per tenant (secrets sealed), one delivery per event with its attempts.
 * ix_webhook_deliveries_due is the sweeper's partial index over pending deliveries only.
 */

export class Webhooks1795260162777 implements MigrationInterface {
  name = 'Webhooks1795260162777';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "webhook_attempts" ("tenant_id" text NOT NULL, "event_id" text NOT NULL, "attempt" integer NOT NULL, "at" TIMESTAMP WITH TIME ZONE NOT NULL, "status_code" integer, "duration_ms" integer NOT NULL, "error" text, "response_body" text, "replay" boolean NOT NULL DEFAULT false, CONSTRAINT "PK_f2db883b3c378162478e4c7a2e2" PRIMARY KEY ("tenant_id", "event_id", "attempt"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "webhook_deliveries" ("tenant_id" text NOT NULL, "event_id" text NOT NULL, "event_type" text NOT NULL, "status" text NOT NULL, "attempts" integer NOT NULL DEFAULT '0', "next_attempt_at" TIMESTAMP WITH TIME ZONE, "locked_until" TIMESTAMP WITH TIME ZONE, "last_status_code" integer, "last_error" text, "delivered_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_1d5848494165471552d9883d826" PRIMARY KEY ("tenant_id", "event_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_deliveries_tenant_status" ON "webhook_deliveries"  ("tenant_id", "status", "created_at", "event_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_deliveries_due" ON "webhook_deliveries" ("next_attempt_at") WHERE "status" = 'pending'`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_deliveries_in_flight" ON "webhook_deliveries" ("tenant_id", "locked_until") WHERE "locked_until" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "webhook_endpoints" ("tenant_id" text NOT NULL, "url" text NOT NULL, "events" text array NOT NULL, "enabled" boolean NOT NULL DEFAULT true, "secret_sealed" text NOT NULL, "previous_secret_sealed" text, "previous_secret_expires_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_54847f2dacee9618585993f1474" PRIMARY KEY ("tenant_id"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "fk_webhook_deliveries_event" FOREIGN KEY ("tenant_id", "event_id") REFERENCES "events"("tenant_id","id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "fk_webhook_endpoints_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoints" DROP CONSTRAINT "fk_webhook_endpoints_tenant"`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "fk_webhook_deliveries_event"`,
    );
    await queryRunner.query(`DROP TABLE "webhook_endpoints"`);
    await queryRunner.query(`DROP INDEX "public"."ix_webhook_deliveries_tenant_status"`);
    await queryRunner.query(`DROP INDEX "public"."ix_webhook_deliveries_in_flight"`);
    await queryRunner.query(`DROP INDEX "public"."ix_webhook_deliveries_due"`);
    await queryRunner.query(`DROP TABLE "webhook_deliveries"`);
    await queryRunner.query(`DROP TABLE "webhook_attempts"`);
  }
}
