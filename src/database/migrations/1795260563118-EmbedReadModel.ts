import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The Embed Data API's read model: per-member counters (downline size, deepest descendant, leads,
 * clicks) and per-currency bonus balances, so no widget read scans a downline or a history.
 * Balances and lead counts are kept by triggers, in the transaction of every bonus or lead
 * change whichever code path makes it; the network counters are kept by the users feature.
 * Existing rows are backfilled.
 */

export class EmbedReadModel1795260563118 implements MigrationInterface {
  name = 'EmbedReadModel1795260563118';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "member_balances" ("tenant_id" text NOT NULL, "member_id" text NOT NULL, "currency" character(3) NOT NULL, "pending_kopecks" bigint NOT NULL DEFAULT '0', "cleared_kopecks" bigint NOT NULL DEFAULT '0', CONSTRAINT "PK_97ea8a3ba44679e694a21bda099" PRIMARY KEY ("tenant_id", "member_id", "currency"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "members" ADD "downline_count" integer NOT NULL DEFAULT '0'`,
    );
    await queryRunner.query(
      `ALTER TABLE "members" ADD "deepest_depth" integer NOT NULL DEFAULT '0'`,
    );
    await queryRunner.query(`ALTER TABLE "members" ADD "leads_count" integer NOT NULL DEFAULT '0'`);
    await queryRunner.query(
      `ALTER TABLE "members" ADD "clicks_count" integer NOT NULL DEFAULT '0'`,
    );

    // Statement-level triggers over transition tables: one upsert per statement, in one global
    // key order, so concurrent sweeps and approvals never lock balance rows in opposite orders.
    await queryRunner.query(
      balanceUpsert(
        'bonus_balance_insert',
        `SELECT tenant_id, member_id, currency,
               sum(CASE WHEN status = 'pending' THEN amount_kopecks ELSE 0 END),
               sum(CASE WHEN status = 'approved' THEN amount_kopecks ELSE 0 END)
          FROM new_rows WHERE status IN ('pending', 'approved')
         GROUP BY tenant_id, member_id, currency
         ORDER BY tenant_id, member_id, currency`,
      ),
    );
    await queryRunner.query(
      `CREATE TRIGGER trg_bonuses_balance_insert AFTER INSERT ON bonuses
         REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bonus_balance_insert()`,
    );
    await queryRunner.query(
      balanceUpsert(
        'bonus_balance_update',
        `SELECT n.tenant_id, n.member_id, n.currency,
               sum((CASE WHEN n.status = 'pending' THEN n.amount_kopecks ELSE 0 END)
                 - (CASE WHEN o.status = 'pending' THEN o.amount_kopecks ELSE 0 END)),
               sum((CASE WHEN n.status = 'approved' THEN n.amount_kopecks ELSE 0 END)
                 - (CASE WHEN o.status = 'approved' THEN o.amount_kopecks ELSE 0 END))
          FROM new_rows n JOIN old_rows o ON o.tenant_id = n.tenant_id AND o.id = n.id
         WHERE n.status IS DISTINCT FROM o.status
         GROUP BY n.tenant_id, n.member_id, n.currency
         ORDER BY n.tenant_id, n.member_id, n.currency`,
      ),
    );
    await queryRunner.query(
      `CREATE TRIGGER trg_bonuses_balance_update AFTER UPDATE ON bonuses
         REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
         FOR EACH STATEMENT EXECUTE FUNCTION bonus_balance_update()`,
    );
    await queryRunner.query(`
            CREATE FUNCTION lead_count() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              UPDATE members SET leads_count = leads_count + 1
               WHERE tenant_id = NEW.tenant_id AND id = NEW.referrer_member_id;
              RETURN NULL;
            END $$`);
    await queryRunner.query(
      `CREATE TRIGGER trg_leads_count AFTER INSERT ON leads FOR EACH ROW EXECUTE FUNCTION lead_count()`,
    );

    // Backfill what existed before this migration.
    await queryRunner.query(`
            INSERT INTO member_balances (tenant_id, member_id, currency, pending_kopecks, cleared_kopecks)
            SELECT tenant_id, member_id, currency,
                   coalesce(sum(amount_kopecks) FILTER (WHERE status = 'pending'), 0),
                   coalesce(sum(amount_kopecks) FILTER (WHERE status = 'approved'), 0)
              FROM bonuses GROUP BY tenant_id, member_id, currency`);
    await queryRunner.query(`
            UPDATE members m SET leads_count = l.n
              FROM (SELECT tenant_id, referrer_member_id, count(*)::int AS n FROM leads
                     GROUP BY tenant_id, referrer_member_id) l
             WHERE m.tenant_id = l.tenant_id AND m.id = l.referrer_member_id`);
    await queryRunner.query(`UPDATE members SET deepest_depth = depth`);
    await queryRunner.query(`
            WITH RECURSIVE up AS (
              SELECT tenant_id, referrer_member_id AS ancestor_id, depth FROM members
               WHERE referrer_member_id IS NOT NULL
              UNION ALL
              SELECT up.tenant_id, m.referrer_member_id, up.depth FROM up
                JOIN members m ON m.tenant_id = up.tenant_id AND m.id = up.ancestor_id
               WHERE m.referrer_member_id IS NOT NULL)
            UPDATE members m SET downline_count = a.n, deepest_depth = greatest(m.depth, a.deepest)
              FROM (SELECT tenant_id, ancestor_id, count(*)::int AS n, max(depth) AS deepest
                      FROM up GROUP BY tenant_id, ancestor_id) a
             WHERE m.tenant_id = a.tenant_id AND m.id = a.ancestor_id`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER trg_leads_count ON leads`);
    await queryRunner.query(`DROP FUNCTION lead_count()`);
    await queryRunner.query(`DROP TRIGGER trg_bonuses_balance_update ON bonuses`);
    await queryRunner.query(`DROP FUNCTION bonus_balance_update()`);
    await queryRunner.query(`DROP TRIGGER trg_bonuses_balance_insert ON bonuses`);
    await queryRunner.query(`DROP FUNCTION bonus_balance_insert()`);
    await queryRunner.query(`ALTER TABLE "members" DROP COLUMN "clicks_count"`);
    await queryRunner.query(`ALTER TABLE "members" DROP COLUMN "leads_count"`);
    await queryRunner.query(`ALTER TABLE "members" DROP COLUMN "deepest_depth"`);
    await queryRunner.query(`ALTER TABLE "members" DROP COLUMN "downline_count"`);
    await queryRunner.query(`DROP TABLE "member_balances"`);
  }
}

/**
 * A statement-level trigger function that adds what `select` sums per member and currency
 * (pending, cleared) to the member's balance rows, in one upsert.
 */
function balanceUpsert(name: string, select: string): string {
  return `
      CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO member_balances AS b (tenant_id, member_id, currency, pending_kopecks, cleared_kopecks)
        ${select}
        ON CONFLICT (tenant_id, member_id, currency) DO UPDATE
          SET pending_kopecks = b.pending_kopecks + EXCLUDED.pending_kopecks,
              cleared_kopecks = b.cleared_kopecks + EXCLUDED.cleared_kopecks;
        RETURN NULL;
      END $$`;
}
