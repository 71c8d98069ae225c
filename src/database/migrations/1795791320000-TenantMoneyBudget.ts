import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every money sum the service answers (a member's balance, a payout, a run's total, the
 * overview's revenue and commission) is a JavaScript number, exact only up to 2^53 − 1 kopecks
 * (docs/money.md, "The safe range"). So each tenant has a budget: the absolute amounts of all its
 * bonuses, and the amounts of all its conversions, each add up to at most 2^53 − 1, which bounds
 * every sum over any part of them. It is kept in 8 rows per tenant (`shard`, from the writer's
 * backend, as the overview's rollups are) so that writers do not queue on one row, each row
 * limited to an eighth by a CHECK: a write that would cross it fails with constraint
 * `ck_tenant_money_budget`, which the error mapping answers 422 `amount_out_of_range`.
 * Kept by statement-level triggers on INSERT (amounts are never updated) in the writing transaction.
 */
export class TenantMoneyBudget1795791320000 implements MigrationInterface {
  name = 'TenantMoneyBudget1795791320000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // floor((2^53 - 1) / 8): eight rows together stay within Number.MAX_SAFE_INTEGER.
    await queryRunner.query(`CREATE TABLE tenant_money_budget (
        tenant_id text NOT NULL, shard smallint NOT NULL,
        bonus_kopecks bigint NOT NULL DEFAULT 0, conversion_kopecks bigint NOT NULL DEFAULT 0,
        CONSTRAINT pk_tenant_money_budget PRIMARY KEY (tenant_id, shard))`);
    // What existed before is counted on shard 0; the CHECK (added NOT VALID below) then refuses
    // any write that would take a row, or an already larger backfill, further.
    await queryRunner.query(`
      INSERT INTO tenant_money_budget (tenant_id, shard, bonus_kopecks, conversion_kopecks)
      SELECT tenant_id, 0, least(sum(b), 9223372036854775807)::bigint,
             least(sum(c), 9223372036854775807)::bigint
        FROM (SELECT tenant_id, abs(amount_kopecks)::numeric AS b, 0::numeric AS c FROM bonuses
              UNION ALL
              SELECT tenant_id, 0, amount_kopecks::numeric FROM conversions) m
       GROUP BY tenant_id`);
    await queryRunner.query(`ALTER TABLE tenant_money_budget ADD CONSTRAINT ck_tenant_money_budget
        CHECK (bonus_kopecks BETWEEN 0 AND 1125899906842623
           AND conversion_kopecks BETWEEN 0 AND 1125899906842623) NOT VALID`);
    for (const [table, column, amount] of [
      ['bonuses', 'bonus_kopecks', 'abs(amount_kopecks)'],
      ['conversions', 'conversion_kopecks', 'amount_kopecks'],
    ] as const) {
      await queryRunner.query(`
        CREATE FUNCTION money_budget_${table}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          INSERT INTO tenant_money_budget AS m (tenant_id, shard, ${column})
          SELECT tenant_id, (pg_backend_pid() % 8)::smallint,
                 least(sum(${amount})::numeric, 9223372036854775807)::bigint
            FROM new_rows GROUP BY tenant_id ORDER BY tenant_id
          ON CONFLICT (tenant_id, shard) DO UPDATE
            SET ${column} = least(m.${column}::numeric + EXCLUDED.${column},
                                  9223372036854775807)::bigint;
          RETURN NULL;
        END $$`);
      await queryRunner.query(`CREATE TRIGGER trg_${table}_money_budget AFTER INSERT ON ${table}
          REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
          EXECUTE FUNCTION money_budget_${table}()`);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['bonuses', 'conversions']) {
      await queryRunner.query(`DROP TRIGGER trg_${table}_money_budget ON ${table}`);
      await queryRunner.query(`DROP FUNCTION money_budget_${table}()`);
    }
    await queryRunner.query(`DROP TABLE tenant_money_budget`);
  }
}
