import { MigrationInterface, QueryRunner } from 'typeorm';

/** Number.MAX_SAFE_INTEGER: every sum the service answers must stay at or below it. */
const SAFE = '9007199254740991';

/**
 * Every money sum the service answers (a member's balance, a payout, a run's total, the
 * overview's revenue and commission) is a JavaScript number, exact only up to 2^53 − 1 kopecks
 * (docs/money.md, "The safe range"). So each tenant has two budgets: the absolute amounts of all
 * its bonuses, and the amounts of all its conversions, each add up to at most 2^53 − 1, which
 * bounds every sum over any part of them. A write past it fails with constraint
 * `ck_tenant_money_budget`, which the error mapping answers 422 `amount_out_of_range`.
 *
 * Each budget is kept in 8 parts (`shard`, from the writer's backend, as the overview's rollups
 * are) so that concurrent writers of one tenant do not queue on one row. A part has a `cap`, and
 * the caps of a budget add up to at most 2^53 − 1. A write that fits its part's cap adds to it
 * alone; one that does not locks all 8 parts (in one order), takes their exact total, refuses
 * what would pass 2^53 − 1, and shares the rest out as new caps. So the sum holds under any
 * concurrency, and a single amount may use the whole budget. Kept by statement-level triggers on
 * INSERT (amounts are never updated), in the writing transaction.
 */
export class TenantMoneyBudget1795791320000 implements MigrationInterface {
  name = 'TenantMoneyBudget1795791320000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE tenant_money_budget (
        tenant_id text NOT NULL, kind text NOT NULL, shard smallint NOT NULL,
        used_kopecks bigint NOT NULL DEFAULT 0, cap_kopecks bigint NOT NULL DEFAULT 0,
        CONSTRAINT pk_tenant_money_budget PRIMARY KEY (tenant_id, kind, shard),
        CONSTRAINT ck_tenant_money_budget CHECK (used_kopecks BETWEEN 0 AND cap_kopecks))`);
    await queryRunner.query(`
      CREATE FUNCTION money_budget_add(t text, k text, amount numeric) RETURNS void
      LANGUAGE plpgsql AS $$
      DECLARE
        part smallint := (pg_backend_pid() % 8)::smallint;
        total numeric;
        spare numeric;
      BEGIN
        IF amount IS NULL OR amount <= 0 THEN RETURN; END IF;
        UPDATE tenant_money_budget SET used_kopecks = used_kopecks + amount
         WHERE tenant_id = t AND kind = k AND shard = part AND used_kopecks + amount <= cap_kopecks;
        IF FOUND THEN RETURN; END IF;
        -- Past this part's cap: every part locked in one order, the exact total, caps anew.
        INSERT INTO tenant_money_budget (tenant_id, kind, shard)
        SELECT t, k, g FROM generate_series(0, 7) g ON CONFLICT DO NOTHING;
        SELECT sum(used_kopecks) INTO total FROM (
          SELECT used_kopecks FROM tenant_money_budget WHERE tenant_id = t AND kind = k
           ORDER BY shard FOR UPDATE) parts;
        IF total + amount > ${SAFE} THEN
          RAISE EXCEPTION 'the % of tenant % would add up past 2^53 - 1 kopecks', k, t
            USING ERRCODE = 'check_violation', CONSTRAINT = 'ck_tenant_money_budget',
                  TABLE = 'tenant_money_budget';
        END IF;
        spare := floor((${SAFE} - total - amount) / 8);
        UPDATE tenant_money_budget
           SET used_kopecks = used_kopecks + CASE WHEN shard = part THEN amount ELSE 0 END,
               cap_kopecks = used_kopecks + CASE WHEN shard = part THEN amount ELSE 0 END + spare
         WHERE tenant_id = t AND kind = k;
      END $$`);
    for (const [table, amount] of [
      ['bonuses', 'abs(amount_kopecks)'],
      ['conversions', 'amount_kopecks'],
    ] as const) {
      await queryRunner.query(`
        CREATE FUNCTION money_budget_${table}() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE r record;
        BEGIN
          FOR r IN SELECT tenant_id, sum(${amount}::numeric) AS amount FROM new_rows
                    GROUP BY tenant_id ORDER BY tenant_id LOOP
            PERFORM money_budget_add(r.tenant_id, '${table}', r.amount);
          END LOOP;
          RETURN NULL;
        END $$`);
      await queryRunner.query(`CREATE TRIGGER trg_${table}_money_budget AFTER INSERT ON ${table}
          REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
          EXECUTE FUNCTION money_budget_${table}()`);
      // What exists counts on part 0; the spare is shared out. A tenant already past the range
      // (it could not be answered before either) gets no spare: every write is refused.
      await queryRunner.query(`
        WITH totals AS (
          SELECT tenant_id, least(sum(${amount}::numeric), ${SAFE}::numeric * 1000) AS used
            FROM ${table} GROUP BY tenant_id)
        INSERT INTO tenant_money_budget (tenant_id, kind, shard, used_kopecks, cap_kopecks)
        SELECT tenant_id, '${table}', g, CASE WHEN g = 0 THEN used ELSE 0 END,
               CASE WHEN g = 0 THEN used ELSE 0 END + greatest(floor((${SAFE} - used) / 8), 0)
          FROM totals CROSS JOIN generate_series(0, 7) g`);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['bonuses', 'conversions']) {
      await queryRunner.query(`DROP TRIGGER trg_${table}_money_budget ON ${table}`);
      await queryRunner.query(`DROP FUNCTION money_budget_${table}()`);
    }
    await queryRunner.query(`DROP FUNCTION money_budget_add(text, text, numeric)`);
    await queryRunner.query(`DROP TABLE tenant_money_budget`);
  }
}
