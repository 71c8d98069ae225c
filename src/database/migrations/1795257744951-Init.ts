import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tenants with their keys, staff tokens and audit log; service users and tenant members with the
 * referral network (adjacency list + depth + root). Every tenant-owned table leads with tenant_id.
 */

export class Init1795257744951 implements MigrationInterface {
  name = 'Init1795257744951';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "tenants" ("id" text NOT NULL, "slug" text NOT NULL, "display_name" text NOT NULL, "allowed_origins" text array NOT NULL DEFAULT '{}', "currency" character(3) NOT NULL DEFAULT 'RUB', "locale" text NOT NULL DEFAULT 'ru-RU', "link_domains" text array NOT NULL DEFAULT '{}', "link_templates" jsonb NOT NULL DEFAULT '{}', "program" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_2310ecc5cb8be427097154b18fc" UNIQUE ("slug"), CONSTRAINT "PK_53be67a04681c66b87ee27c9321" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "audit_log" ("tenant_id" text NOT NULL, "id" text NOT NULL, "at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "actor_type" text NOT NULL, "actor_name" text NOT NULL, "action" text NOT NULL, "target_type" text NOT NULL, "target_id" text NOT NULL, "details" jsonb NOT NULL DEFAULT '{}', CONSTRAINT "PK_7265cf4ae3bb55c806e54e54364" PRIMARY KEY ("tenant_id", "id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_audit_log_tenant_at" ON "audit_log"  ("tenant_id", "at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "staff_tokens" ("tenant_id" text NOT NULL, "id" text NOT NULL, "name" text NOT NULL, "role" text NOT NULL, "token_hash" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_3e237cce5fea62c386b6580a126" PRIMARY KEY ("tenant_id", "id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_staff_tokens_token_hash" ON "staff_tokens"  ("token_hash") `,
    );
    await queryRunner.query(
      `CREATE TABLE "tenant_keys" ("tenant_id" text NOT NULL, "id" text NOT NULL, "name" text, "key_hash" text NOT NULL, "key_hint" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_28de20177a52ed4da5dac472632" PRIMARY KEY ("tenant_id", "id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_tenant_keys_key_hash" ON "tenant_keys"  ("key_hash") `,
    );
    await queryRunner.query(
      `CREATE TABLE "service_users" ("id" text NOT NULL, "vk_id" text, "verified_email" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_0733c78cc45274ecc054c43cfcb" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_service_users_vk_id" ON "service_users"  ("vk_id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_service_users_verified_email" ON "service_users"  ("verified_email") `,
    );
    await queryRunner.query(
      `CREATE TABLE "members" ("tenant_id" text NOT NULL, "id" text NOT NULL, "service_user_id" text NOT NULL, "external_id" text NOT NULL, "email" text, "email_verified" boolean NOT NULL DEFAULT false, "vk_id" text, "full_name" text, "role" text NOT NULL DEFAULT 'partner', "referrer_member_id" text, "depth" integer NOT NULL DEFAULT '0', "root_member_id" text NOT NULL, "is_active" boolean NOT NULL DEFAULT true, "claim_required" boolean NOT NULL DEFAULT true, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "uq_members_service_user" UNIQUE ("tenant_id", "service_user_id"), CONSTRAINT "uq_members_external_id" UNIQUE ("tenant_id", "external_id"), CONSTRAINT "PK_43dc55a5c35def124c3640f7be4" PRIMARY KEY ("tenant_id", "id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_members_root" ON "members"  ("tenant_id", "root_member_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_members_referrer" ON "members"  ("tenant_id", "referrer_member_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_members_email" ON "members" ("tenant_id", lower("email")) WHERE "email" IS NOT NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE "audit_log" ADD CONSTRAINT "fk_audit_log_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "staff_tokens" ADD CONSTRAINT "fk_staff_tokens_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "tenant_keys" ADD CONSTRAINT "fk_tenant_keys_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "members" ADD CONSTRAINT "fk_members_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "members" ADD CONSTRAINT "fk_members_service_user" FOREIGN KEY ("service_user_id") REFERENCES "service_users"("id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "members" ADD CONSTRAINT "fk_members_referrer" FOREIGN KEY ("tenant_id", "referrer_member_id") REFERENCES "members"("tenant_id","id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "members" DROP CONSTRAINT "fk_members_referrer"`);
    await queryRunner.query(`ALTER TABLE "members" DROP CONSTRAINT "fk_members_service_user"`);
    await queryRunner.query(`ALTER TABLE "members" DROP CONSTRAINT "fk_members_tenant"`);
    await queryRunner.query(`ALTER TABLE "tenant_keys" DROP CONSTRAINT "fk_tenant_keys_tenant"`);
    await queryRunner.query(`ALTER TABLE "staff_tokens" DROP CONSTRAINT "fk_staff_tokens_tenant"`);
    await queryRunner.query(`ALTER TABLE "audit_log" DROP CONSTRAINT "fk_audit_log_tenant"`);
    await queryRunner.query(`DROP INDEX "public"."ix_members_email"`);
    await queryRunner.query(`DROP INDEX "public"."ix_members_referrer"`);
    await queryRunner.query(`DROP INDEX "public"."ix_members_root"`);
    await queryRunner.query(`DROP TABLE "members"`);
    await queryRunner.query(`DROP INDEX "public"."uq_service_users_verified_email"`);
    await queryRunner.query(`DROP INDEX "public"."uq_service_users_vk_id"`);
    await queryRunner.query(`DROP TABLE "service_users"`);
    await queryRunner.query(`DROP INDEX "public"."uq_tenant_keys_key_hash"`);
    await queryRunner.query(`DROP TABLE "tenant_keys"`);
    await queryRunner.query(`DROP INDEX "public"."uq_staff_tokens_token_hash"`);
    await queryRunner.query(`DROP TABLE "staff_tokens"`);
    await queryRunner.query(`DROP INDEX "public"."ix_audit_log_tenant_at"`);
    await queryRunner.query(`DROP TABLE "audit_log"`);
    await queryRunner.query(`DROP TABLE "tenants"`);
  }
}
