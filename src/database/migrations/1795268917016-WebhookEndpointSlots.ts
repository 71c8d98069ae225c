import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-endpoint concurrency slots: WEBHOOK_ENDPOINT_CONCURRENCY attempts in flight per endpoint are
 * enforced by leasing one of these rows in the claim statement itself (FOR UPDATE SKIP LOCKED),
 * instead of an advisory lock plus a count in a separate transaction. 64 rows per endpoint, the
 * highest WEBHOOK_ENDPOINT_CONCURRENCY allowed; a claim only considers `slot < cap`. A lease is
 * (event_id, attempt, locked_until) and lapses like the delivery's own lock.
 */
export class WebhookEndpointSlots1795268917016 implements MigrationInterface {
  name = 'WebhookEndpointSlots1795268917016';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "webhook_endpoint_slots" ("tenant_id" text NOT NULL, "slot" smallint NOT NULL, "event_id" text, "attempt" integer, "locked_until" TIMESTAMP WITH TIME ZONE, CONSTRAINT "pk_webhook_endpoint_slots" PRIMARY KEY ("tenant_id", "slot"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint_slots" ADD CONSTRAINT "fk_webhook_endpoint_slots_endpoint" FOREIGN KEY ("tenant_id") REFERENCES "webhook_endpoints"("tenant_id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `INSERT INTO "webhook_endpoint_slots" ("tenant_id", "slot")
       SELECT e."tenant_id", s FROM "webhook_endpoints" e, generate_series(0, 63) s`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "webhook_endpoint_slots"`);
  }
}
