import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every attempt in the log, and staff replays kept in PostgreSQL:
 *
 * - `webhook_attempts.state`: an attempt row is written `in_flight` by the statement that claims
 *   it, before the request is sent, and completed (`completed`, with its outcome) when its answer
 *   is recorded. A worker killed mid-attempt leaves the row `in_flight`; the admin API shows it as
 *   `interrupted` once the delivery's lock has lapsed. Rows written before this migration are
 *   `completed`.
 * - `webhook_deliveries.replay_requested_at`: a staff replay is this column, set in the same
 *   transaction as its audit entry, before the 202; the replay attempt clears it when recorded. The
 *   Bull job is only a hint: the sweeper finds a replay whose job Redis lost by this column (the
 *   partial index keeps that look-up off the settled rows).
 */
export class WebhookAttemptsInFlight1795640000000 implements MigrationInterface {
  name = 'WebhookAttemptsInFlight1795640000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_attempts" ADD "state" text NOT NULL DEFAULT 'completed'`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" ADD "replay_requested_at" TIMESTAMP WITH TIME ZONE`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_deliveries_replay_requested" ON "webhook_deliveries" ("replay_requested_at") WHERE "replay_requested_at" IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_webhook_deliveries_replay_requested"`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "replay_requested_at"`);
    await queryRunner.query(`DELETE FROM "webhook_attempts" WHERE "state" = 'in_flight'`);
    await queryRunner.query(`ALTER TABLE "webhook_attempts" DROP COLUMN "state"`);
  }
}
