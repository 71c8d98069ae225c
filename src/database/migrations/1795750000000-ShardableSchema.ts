import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The schema shardable by tenant (SPEC 12, docs/operations.md "A tenant-sharded PostgreSQL"):
 * every tenant-owned table has `tenant_id` in its primary key and in every unique index, and the
 * global lookups (a tenant key's or a staff token's hash, a short link's code) move to
 * `tenant_lookups`, a table meant to be a reference table, which names the tenant of each value.
 *
 * - `sessions`: primary key (tenant_id, token_hash); every lookup already names the tenant.
 * - `consent_tokens` gain the `tenant_id` of the session they were issued to.
 * - `tenant_keys.key_hash`, `staff_tokens.token_hash` and `deeplinks.code` are unique per tenant;
 *   their global uniqueness is `tenant_lookups`' primary key (kind, value).
 */
export class ShardableSchema1795750000000 implements MigrationInterface {
  name = 'ShardableSchema1795750000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "sessions" DROP CONSTRAINT "PK_abaa9e068cdd390bc5210f79884",
         ADD CONSTRAINT "pk_sessions" PRIMARY KEY ("tenant_id", "token_hash")`,
    );

    await queryRunner.query(`ALTER TABLE "consent_tokens" ADD "tenant_id" text`);
    await queryRunner.query(
      `UPDATE "consent_tokens" c SET "tenant_id" = s."tenant_id"
         FROM "sessions" s WHERE s."token_hash" = c."session_hash"`,
    );
    // A token whose session is gone can never be spent: nothing is lost with it.
    await queryRunner.query(`DELETE FROM "consent_tokens" WHERE "tenant_id" IS NULL`);
    await queryRunner.query(
      `ALTER TABLE "consent_tokens" ALTER "tenant_id" SET NOT NULL,
         DROP CONSTRAINT "PK_77a4028af03d0b2034951a9926a",
         ADD CONSTRAINT "pk_consent_tokens" PRIMARY KEY ("tenant_id", "token_hash")`,
    );

    await queryRunner.query(
      `CREATE TABLE "tenant_lookups" ("kind" text NOT NULL, "value" text NOT NULL,
        "tenant_id" text NOT NULL,
        CONSTRAINT "pk_tenant_lookups" PRIMARY KEY ("kind", "value"),
        CONSTRAINT "ck_tenant_lookups_kind" CHECK ("kind" IN ('tenant_key', 'staff_token', 'short_code')),
        CONSTRAINT "fk_tenant_lookups_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id")
          ON DELETE CASCADE)`,
    );
    await queryRunner.query(
      `INSERT INTO "tenant_lookups" ("kind", "value", "tenant_id")
         SELECT 'tenant_key', "key_hash", "tenant_id" FROM "tenant_keys"
         UNION ALL SELECT 'staff_token', "token_hash", "tenant_id" FROM "staff_tokens"
         UNION ALL SELECT 'short_code', "code", "tenant_id" FROM "deeplinks"`,
    );
    for (const [table, index, column] of [
      ['tenant_keys', 'uq_tenant_keys_key_hash', 'key_hash'],
      ['staff_tokens', 'uq_staff_tokens_token_hash', 'token_hash'],
      ['deeplinks', 'uq_deeplinks_code', 'code'],
    ]) {
      await queryRunner.query(`DROP INDEX "${index}"`);
      await queryRunner.query(
        `CREATE UNIQUE INDEX "${index}" ON "${table}" ("tenant_id", "${column}")`,
      );
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const [table, index, column] of [
      ['tenant_keys', 'uq_tenant_keys_key_hash', 'key_hash'],
      ['staff_tokens', 'uq_staff_tokens_token_hash', 'token_hash'],
      ['deeplinks', 'uq_deeplinks_code', 'code'],
    ]) {
      await queryRunner.query(`DROP INDEX "${index}"`);
      await queryRunner.query(`CREATE UNIQUE INDEX "${index}" ON "${table}" ("${column}")`);
    }
    await queryRunner.query(`DROP TABLE "tenant_lookups"`);
    await queryRunner.query(
      `ALTER TABLE "consent_tokens" DROP CONSTRAINT "pk_consent_tokens",
         ADD CONSTRAINT "PK_77a4028af03d0b2034951a9926a" PRIMARY KEY ("token_hash"),
         DROP COLUMN "tenant_id"`,
    );
    await queryRunner.query(
      `ALTER TABLE "sessions" DROP CONSTRAINT "pk_sessions",
         ADD CONSTRAINT "PK_abaa9e068cdd390bc5210f79884" PRIMARY KEY ("token_hash")`,
    );
  }
}
