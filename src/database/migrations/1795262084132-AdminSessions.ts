import { MigrationInterface, QueryRunner } from 'typeorm';

/** Sessions of the server-rendered admin pages (docs/architecture.md). */

export class AdminSessions1795262084132 implements MigrationInterface {
  name = 'AdminSessions1795262084132';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "admin_sessions" ("token_hash" text NOT NULL, "actor_type" text NOT NULL, "staff_token_hash" text, "csrf" text NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_820cb9c73b9f2bf3f2fb678d935" PRIMARY KEY ("token_hash"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "admin_sessions"`);
  }
}
