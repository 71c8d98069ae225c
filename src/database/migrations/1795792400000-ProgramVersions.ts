import { MigrationInterface, QueryRunner } from 'typeorm';
import { newId } from '../../common/ids';

/**
 * docs/money.md §2, "Versions": every change of a program (the tenant's default, a group's, an
 * offer's) is kept as an immutable `program_versions` row (`prv_…`), and the holder of the program
 * names its current one (`program_version_id`), so a conversion records the version that paid it
 * without a lookup. Bonuses of conversions record `rule` (`{program_version_id, phase, tier,
 * compressed_from}`) and the `explanation` sentence, both null for lead, manual and bounty bonuses
 * and for bonuses written before this migration. The programs already stored become each holder's
 * first version, effective from this migration on.
 */
export class ProgramVersions1795792400000 implements MigrationInterface {
  name = 'ProgramVersions1795792400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE program_versions (
        tenant_id text NOT NULL, id text NOT NULL,
        target_type text NOT NULL CONSTRAINT ck_program_versions_target
          CHECK (target_type IN ('default', 'group', 'offer')),
        target_id text, program jsonb, effective_at timestamptz NOT NULL,
        actor_type text, actor_name text,
        CONSTRAINT pk_program_versions PRIMARY KEY (tenant_id, id),
        CONSTRAINT fk_program_versions_tenant FOREIGN KEY (tenant_id) REFERENCES tenants (id))`);
    await queryRunner.query(
      `CREATE INDEX ix_program_versions_list ON program_versions (tenant_id, effective_at DESC, id DESC)`,
    );
    for (const table of ['tenants', 'groups', 'offers']) {
      await queryRunner.query(`ALTER TABLE ${table} ADD program_version_id text`);
    }
    await queryRunner.query(`ALTER TABLE bonuses ADD rule jsonb, ADD explanation text`);

    const holders: { table: string; type: string; tenant: string; id: string; program: unknown }[] =
      await queryRunner.query(`
        SELECT 'tenants' AS table, 'default' AS type, id AS tenant, id, program FROM tenants
        UNION ALL
        SELECT 'groups', 'group', tenant_id, id, program FROM groups WHERE program IS NOT NULL
        UNION ALL
        SELECT 'offers', 'offer', tenant_id, id, program FROM offers WHERE program IS NOT NULL`);
    for (const holder of holders) {
      const version = newId('programVersion');
      await queryRunner.query(
        `INSERT INTO program_versions (tenant_id, id, target_type, target_id, program, effective_at,
                                       actor_type, actor_name)
         VALUES ($1, $2, $3, $4, $5, now(), 'system', 'migration')`,
        [
          holder.tenant,
          version,
          holder.type,
          holder.type === 'default' ? null : holder.id,
          JSON.stringify(holder.program),
        ],
      );
      const where = holder.table === 'tenants' ? 'id = $2' : 'tenant_id = $3 AND id = $2';
      await queryRunner.query(
        `UPDATE ${holder.table} SET program_version_id = $1 WHERE ${where}`,
        holder.table === 'tenants' ? [version, holder.id] : [version, holder.id, holder.tenant],
      );
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE bonuses DROP COLUMN rule, DROP COLUMN explanation`);
    for (const table of ['tenants', 'groups', 'offers']) {
      await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN program_version_id`);
    }
    await queryRunner.query(`DROP TABLE program_versions`);
  }
}
