import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Popup sign-in (codes, sessions, consent tokens) and referral short links. uq_deeplinks_params
 * makes link creation idempotent on its six parameters under concurrency.
 */

export class PopupAndLinks1795261021435 implements MigrationInterface {
  name = 'PopupAndLinks1795261021435';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "deeplinks" ("tenant_id" text NOT NULL, "id" text NOT NULL, "member_id" text NOT NULL, "service_user_id" text NOT NULL, "target_type" text NOT NULL, "target_id" text NOT NULL, "recommendation_text" text NOT NULL DEFAULT '', "promo_code" text NOT NULL DEFAULT '', "code" text NOT NULL, "clicks_count" integer NOT NULL DEFAULT '0', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_072fd51c1a2ea3490b0420e9037" PRIMARY KEY ("tenant_id", "id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_deeplinks_code" ON "deeplinks"  ("code") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_deeplinks_params" ON "deeplinks" ("tenant_id", "member_id", "target_type", "target_id", "recommendation_text", "promo_code")`,
    );
    await queryRunner.query(
      `CREATE TABLE "sessions" ("token_hash" text NOT NULL, "tenant_id" text NOT NULL, "member_id" text NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_abaa9e068cdd390bc5210f79884" PRIMARY KEY ("token_hash"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "consent_tokens" ("token_hash" text NOT NULL, "session_hash" text NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "used_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_77a4028af03d0b2034951a9926a" PRIMARY KEY ("token_hash"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_consent_tokens_expires" ON "consent_tokens"  ("expires_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "sign_in_codes" ("tenant_id" text NOT NULL, "id" text NOT NULL, "email" text NOT NULL, "member_id" text NOT NULL, "code_hash" text NOT NULL, "attempts" integer NOT NULL DEFAULT '0', "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "used_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_9ddc7fbfccd266562ec10e78ead" PRIMARY KEY ("tenant_id", "id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_sign_in_codes_email" ON "sign_in_codes"  ("tenant_id", "email", "created_at") `,
    );
    await queryRunner.query(
      `ALTER TABLE "deeplinks" ADD CONSTRAINT "fk_deeplinks_member" FOREIGN KEY ("tenant_id", "member_id") REFERENCES "members"("tenant_id","id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "deeplinks" DROP CONSTRAINT "fk_deeplinks_member"`);
    await queryRunner.query(`DROP INDEX "public"."ix_sign_in_codes_email"`);
    await queryRunner.query(`DROP TABLE "sign_in_codes"`);
    await queryRunner.query(`DROP INDEX "public"."ix_consent_tokens_expires"`);
    await queryRunner.query(`DROP TABLE "consent_tokens"`);
    await queryRunner.query(`DROP TABLE "sessions"`);
    await queryRunner.query(`DROP INDEX "public"."uq_deeplinks_code"`);
    await queryRunner.query(`DROP INDEX "public"."uq_deeplinks_params"`);
    await queryRunner.query(`DROP TABLE "deeplinks"`);
  }
}
