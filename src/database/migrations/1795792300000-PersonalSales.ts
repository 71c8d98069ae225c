import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/money.md §2, "Qualification", and docs/partners.md, "Promotion": `personal_sales_daily`
 * holds, per tenant, member, currency and UTC day, the amount and the number of the conversions
 * the member referred (the referrer of the conversion's lead) that are not reversed. A qualified tier reads at most `window_days` rows per member of the
 * chain, never the conversions themselves, so a conversion's cost does not grow with the uplines'
 * history.
 *
 * Kept by statement-level triggers over transition tables on conversions, in the transaction of
 * the change whichever code path makes it (registration, reversal, an import, an erasure): a
 * registered conversion adds its amount on the day it was registered, a reversal (or its undoing)
 * takes it off or puts it back, a deleted one takes it off. One upsert per statement, into one of
 * 8 rows per key (`shard`, stats_shard() as in ConsoleRollups), so a partner's concurrent
 * conversions do not queue on one row from their insert to their commit; reads sum the shards. The
 * backfill below computes it from the conversions already there.
 */
export class PersonalSales1795792300000 implements MigrationInterface {
  name = 'PersonalSales1795792300000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE personal_sales_daily (
        tenant_id text NOT NULL, member_id text NOT NULL, currency char(3) NOT NULL,
        day date NOT NULL, shard smallint NOT NULL DEFAULT 0,
        amount_kopecks bigint NOT NULL DEFAULT 0, conversions bigint NOT NULL DEFAULT 0,
        CONSTRAINT pk_personal_sales_daily PRIMARY KEY (tenant_id, member_id, currency, day, shard))`);

    // The signed amounts of a statement's conversions, added to their referrers' days.
    const upsert = (delta: string) => `
      INSERT INTO personal_sales_daily AS s
             (tenant_id, member_id, currency, day, shard, amount_kopecks, conversions)
      SELECT c.tenant_id, l.referrer_member_id, c.currency, (c.created_at AT TIME ZONE 'UTC')::date,
             stats_shard(), sum(c.amount), sum(c.n)
        FROM (${delta}) c
        JOIN leads l ON l.tenant_id = c.tenant_id AND l.id = c.lead_id
       WHERE l.referrer_member_id IS NOT NULL
       GROUP BY 1, 2, 3, 4
      HAVING sum(c.amount) <> 0 OR sum(c.n) <> 0
       ORDER BY 1, 2, 3, 4
      ON CONFLICT (tenant_id, member_id, currency, day, shard)
      DO UPDATE SET amount_kopecks = s.amount_kopecks + EXCLUDED.amount_kopecks,
                    conversions = s.conversions + EXCLUDED.conversions;`;
    const COLUMNS = 'tenant_id, lead_id, currency, created_at';
    // A conversion counts (its amount, and as one) unless reversed.
    const counted = (sign: string) =>
      `${sign}CASE WHEN status = 'reversed' THEN 0 ELSE amount_kopecks END AS amount,
       ${sign}(status <> 'reversed')::int AS n`;
    const functions = {
      insert: upsert(`SELECT ${COLUMNS}, ${counted('')} FROM new_rows`),
      update: upsert(
        `SELECT ${COLUMNS}, ${counted('')} FROM new_rows
         UNION ALL SELECT ${COLUMNS}, ${counted('-')} FROM old_rows`,
      ),
      delete: upsert(`SELECT ${COLUMNS}, ${counted('-')} FROM old_rows`),
    };
    for (const [op, body] of Object.entries(functions)) {
      await queryRunner.query(`
        CREATE FUNCTION personal_sales_${op}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          ${body}
          RETURN NULL;
        END $$`);
      const tables =
        op === 'insert'
          ? 'NEW TABLE AS new_rows'
          : op === 'update'
            ? 'OLD TABLE AS old_rows NEW TABLE AS new_rows'
            : 'OLD TABLE AS old_rows';
      await queryRunner.query(
        `CREATE TRIGGER trg_conversions_personal_sales_${op} AFTER ${op.toUpperCase()} ON conversions
           REFERENCING ${tables} FOR EACH STATEMENT EXECUTE FUNCTION personal_sales_${op}()`,
      );
    }

    await queryRunner.query(`
      INSERT INTO personal_sales_daily (tenant_id, member_id, currency, day, amount_kopecks,
                                        conversions)
      SELECT c.tenant_id, l.referrer_member_id, c.currency, (c.created_at AT TIME ZONE 'UTC')::date,
             sum(c.amount_kopecks), count(*)
        FROM conversions c
        JOIN leads l ON l.tenant_id = c.tenant_id AND l.id = c.lead_id
       WHERE c.status <> 'reversed' AND l.referrer_member_id IS NOT NULL
       GROUP BY 1, 2, 3, 4`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const op of ['insert', 'update', 'delete']) {
      await queryRunner.query(`DROP TRIGGER trg_conversions_personal_sales_${op} ON conversions`);
      await queryRunner.query(`DROP FUNCTION personal_sales_${op}()`);
    }
    await queryRunner.query(`DROP TABLE personal_sales_daily`);
  }
}
