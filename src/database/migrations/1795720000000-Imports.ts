import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Member imports (docs/import-export.md): one row per import job with its progress, counts and
 * first errors. The rows themselves are staged in an unlogged table per import
 * (`import_rows_<id>`), made and dropped by the transfer feature.
 */
export class Imports1795720000000 implements MigrationInterface {
  name = 'Imports1795720000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "imports" ("id" text NOT NULL, "tenant_id" text NOT NULL, "status" text NOT NULL,
        "format" text NOT NULL, "phase" text NOT NULL DEFAULT 'staging',
        "rows_total" integer NOT NULL DEFAULT 0, "rows_done" integer NOT NULL DEFAULT 0,
        "created" integer NOT NULL DEFAULT 0, "updated" integer NOT NULL DEFAULT 0,
        "unchanged" integer NOT NULL DEFAULT 0, "error_count" integer NOT NULL DEFAULT 0,
        "errors" jsonb NOT NULL DEFAULT '[]', "actor_type" text NOT NULL, "actor_name" text NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "finished_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "pk_imports" PRIMARY KEY ("tenant_id", "id"),
        CONSTRAINT "fk_imports_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "imports"`);
  }
}
