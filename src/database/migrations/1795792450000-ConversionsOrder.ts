import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `ix_conversions_created` gains `id`, the tie-break of every ordered read of a tenant's
 * conversions: the backtest's pages in registration order (docs/money.md §2, "Backtest": each
 * page starts after the last `(created_at, id)`, so it is read from the index instead of sorting
 * what is left of the period again) and the console's list, newest first. The fraud median's
 * `created_at` range is served as before.
 */
export class ConversionsOrder1795792450000 implements MigrationInterface {
  name = 'ConversionsOrder1795792450000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX ix_conversions_created`);
    await queryRunner.query(
      `CREATE INDEX ix_conversions_created ON conversions (tenant_id, created_at, id)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX ix_conversions_created`);
    await queryRunner.query(
      `CREATE INDEX ix_conversions_created ON conversions (tenant_id, created_at)`,
    );
  }
}
