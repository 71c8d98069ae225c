import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `stats_partner_totals`: per tenant, member and currency, the sum of the member's positive
 * bonus amounts that are neither rejected nor reversed, over all time. No period's commission of
 * a member can exceed it (negative manual adjustments only lower a period's sum), so the console's
 * top partners (docs/console.md, "Performance") sum the period only for the members whose total
 * reaches the tenth best sum already known: a few hundred of a million, instead of all of them.
 *
 * Kept like the other rollups, by statement-level triggers on bonuses over transition tables, in
 * the transaction of the change; `stats_rebuild` recomputes it too.
 */
export class ConsoleTopBound1795770000000 implements MigrationInterface {
  name = 'ConsoleTopBound1795770000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE stats_partner_totals (
        tenant_id text NOT NULL, member_id text NOT NULL, currency text NOT NULL,
        positive_kopecks bigint NOT NULL DEFAULT 0,
        CONSTRAINT pk_stats_partner_totals PRIMARY KEY (tenant_id, member_id, currency))`);
    await queryRunner.query(
      `CREATE INDEX ix_stats_partner_totals_top
         ON stats_partner_totals (tenant_id, currency, positive_kopecks DESC) INCLUDE (member_id)`,
    );
    const counted = `amount_kopecks > 0 AND status NOT IN ('rejected', 'reversed')`;
    for (const op of ['insert', 'update'] as const) {
      const delta =
        op === 'insert'
          ? `SELECT tenant_id, member_id, currency, amount_kopecks AS amount
               FROM new_rows WHERE ${counted}`
          : `SELECT tenant_id, member_id, currency, amount_kopecks AS amount
               FROM new_rows WHERE ${counted}
             UNION ALL
             SELECT tenant_id, member_id, currency, -amount_kopecks
               FROM old_rows WHERE ${counted}`;
      await queryRunner.query(`
        CREATE FUNCTION stats_bonuses_totals_${op}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          INSERT INTO stats_partner_totals AS t (tenant_id, member_id, currency, positive_kopecks)
          SELECT tenant_id, member_id, currency, sum(amount) FROM (${delta}) d
           GROUP BY tenant_id, member_id, currency HAVING sum(amount) <> 0
           ORDER BY tenant_id, member_id, currency
          ON CONFLICT (tenant_id, member_id, currency) DO UPDATE
            SET positive_kopecks = t.positive_kopecks + EXCLUDED.positive_kopecks;
          RETURN NULL;
        END $$`);
      await queryRunner.query(
        `CREATE TRIGGER trg_bonuses_totals_${op} AFTER ${op.toUpperCase()} ON bonuses
           REFERENCING ${op === 'update' ? 'OLD TABLE AS old_rows ' : ''}NEW TABLE AS new_rows
           FOR EACH STATEMENT EXECUTE FUNCTION stats_bonuses_totals_${op}()`,
      );
    }
    // stats_rebuild (ConsoleRollups) keeps its body under another name and rebuilds this too.
    await queryRunner.query(`ALTER FUNCTION stats_rebuild(text) RENAME TO stats_rebuild_daily`);
    await queryRunner.query(`
      CREATE FUNCTION stats_rebuild(p_tenant text) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM stats_rebuild_daily(p_tenant);
        DELETE FROM stats_partner_totals WHERE p_tenant IS NULL OR tenant_id = p_tenant;
        INSERT INTO stats_partner_totals (tenant_id, member_id, currency, positive_kopecks)
        SELECT tenant_id, member_id, currency, sum(amount_kopecks)
          FROM bonuses
         WHERE (p_tenant IS NULL OR tenant_id = p_tenant) AND ${counted}
         GROUP BY 1, 2, 3;
      END $$`);
    await queryRunner.query(`
      INSERT INTO stats_partner_totals (tenant_id, member_id, currency, positive_kopecks)
      SELECT tenant_id, member_id, currency, sum(amount_kopecks)
        FROM bonuses WHERE ${counted}
       GROUP BY 1, 2, 3`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION stats_rebuild(text)`);
    await queryRunner.query(`ALTER FUNCTION stats_rebuild_daily(text) RENAME TO stats_rebuild`);
    for (const op of ['insert', 'update']) {
      await queryRunner.query(`DROP TRIGGER trg_bonuses_totals_${op} ON bonuses`);
      await queryRunner.query(`DROP FUNCTION stats_bonuses_totals_${op}()`);
    }
    await queryRunner.query(`DROP TABLE stats_partner_totals`);
  }
}
