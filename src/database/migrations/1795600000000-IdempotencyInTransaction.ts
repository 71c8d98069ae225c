import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency answers are now written in the request's own transaction, and a running request
 * is marked by a transaction-scoped advisory lock instead of a claimed row: a row always holds
 * an answer. Claims of the old scheme (no answer) are dropped; their requests either committed
 * nothing or committed a change whose retry now finds it by its own rules.
 */
export class IdempotencyInTransaction1795600000000 implements MigrationInterface {
  name = 'IdempotencyInTransaction1795600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "idempotency_keys" WHERE "response_body" IS NULL`);
    await queryRunner.query(`ALTER TABLE "idempotency_keys" DROP COLUMN "locked_until"`);
    await queryRunner.query(
      `ALTER TABLE "idempotency_keys" ALTER COLUMN "response_status" SET NOT NULL, ALTER COLUMN "response_body" SET NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "idempotency_keys" ALTER COLUMN "response_status" DROP NOT NULL, ALTER COLUMN "response_body" DROP NOT NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE "idempotency_keys" ADD "locked_until" TIMESTAMP WITH TIME ZONE`,
    );
  }
}
