import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The console's top partners read `stats_partner_daily` by tenant, currency and day; with the
 * member in the index too (INCLUDE), both of its reads are index-only scans: each day's largest
 * commissions, and the fallback that sums every partner's days of the period (docs/console.md,
 * "Performance"), which fetched each row from the table before.
 */
export class ConsoleTopIndex1795760000000 implements MigrationInterface {
  name = 'ConsoleTopIndex1795760000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX ix_stats_partner_daily_top`);
    await queryRunner.query(
      `CREATE INDEX ix_stats_partner_daily_top
         ON stats_partner_daily (tenant_id, currency, day, commission_kopecks DESC)
         INCLUDE (member_id)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX ix_stats_partner_daily_top`);
    await queryRunner.query(
      `CREATE INDEX ix_stats_partner_daily_top
         ON stats_partner_daily (tenant_id, currency, day, commission_kopecks DESC)`,
    );
  }
}
