import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Endpoint slots are leased by a worker process (`holder`) for as long as it has work for the
 * endpoint, instead of by one attempt: the process then starts its next request the moment one
 * ends, without a round trip to Postgres in between. A lease still lapses at `locked_until`, so a
 * crashed process gives its slots back on its own. Leases of the per-attempt scheme are dropped.
 */
export class WebhookSlotHolders1795527930616 implements MigrationInterface {
  name = 'WebhookSlotHolders1795527930616';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_endpoint_slots" ADD "holder" text`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoint_slots" DROP COLUMN "event_id"`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoint_slots" DROP COLUMN "attempt"`);
    await queryRunner.query(`UPDATE "webhook_endpoint_slots" SET "locked_until" = NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_endpoint_slots" ADD "attempt" integer`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoint_slots" ADD "event_id" text`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoint_slots" DROP COLUMN "holder"`);
    await queryRunner.query(`UPDATE "webhook_endpoint_slots" SET "locked_until" = NULL`);
  }
}
