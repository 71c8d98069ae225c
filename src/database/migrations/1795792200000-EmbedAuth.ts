import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/embedding.md §3: a tenant's widgets' reads gated by Origin alone (`origin`, every tenant so
 * far) or also by the popup JWT of the member read (`token`).
 */
export class EmbedAuth1795792200000 implements MigrationInterface {
  name = 'EmbedAuth1795792200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE tenants ADD embed_auth text NOT NULL DEFAULT 'origin'
         CONSTRAINT ck_tenants_embed_auth CHECK (embed_auth IN ('origin', 'token'))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE tenants DROP COLUMN embed_auth`);
  }
}
