import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The partner portal's daily activity of each member (docs/partners.md, "The partner portal"):
 * `portal_activity_daily` holds, per tenant, member and UTC day, the clicks on the member's links,
 * the leads they referred and the conversions of those leads, so that the portal's Home chart of
 * the last 30 days reads at most 30 rows, never the raw tables.
 *
 * Kept like the console's rollups (ConsoleRollups): statement-level triggers over transition
 * tables, in the transaction of the change, one upsert per statement in key order, into one of 8
 * rows per key (`shard`, from the writer's backend, stats_shard()) so that a partner's concurrent
 * conversions do not queue on one row; a read sums the shards. Clicks are
 * counted on the day the click counter writes them; leads and conversions on the day they were
 * created (every registered conversion, reversed or not, as the console's overview counts them).
 * The backfill below counts what exists already (a link's clicks on the link's day).
 */
export class PortalActivity1795792150000 implements MigrationInterface {
  name = 'PortalActivity1795792150000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE portal_activity_daily (
        tenant_id text NOT NULL, member_id text NOT NULL, day date NOT NULL,
        shard smallint NOT NULL DEFAULT 0,
        clicks bigint NOT NULL DEFAULT 0, leads bigint NOT NULL DEFAULT 0,
        conversions bigint NOT NULL DEFAULT 0,
        CONSTRAINT pk_portal_activity_daily PRIMARY KEY (tenant_id, member_id, day, shard))`);
    for (const [table, op, delta] of TRIGGERS) {
      const fn = `portal_activity_${table}_${op}`;
      await queryRunner.query(`
        CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          ${upsert(delta)}
          RETURN NULL;
        END $$`);
      await queryRunner.query(
        `CREATE TRIGGER trg_${table}_portal_${op} AFTER ${op.toUpperCase()} ON ${table}
           REFERENCING ${op === 'update' ? 'OLD TABLE AS old_rows ' : ''}NEW TABLE AS new_rows
           FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
      );
    }
    await queryRunner.query(`
      INSERT INTO portal_activity_daily (tenant_id, member_id, day, clicks, leads, conversions)
      SELECT tenant_id, member_id, day, sum(a), sum(b), sum(c)
        FROM (
          SELECT tenant_id, member_id, stats_day(created_at) AS day, clicks_count::bigint AS a,
                 0::bigint AS b, 0::bigint AS c
            FROM deeplinks WHERE clicks_count <> 0
          UNION ALL
          SELECT tenant_id, referrer_member_id, stats_day(created_at), 0, 1, 0 FROM leads
          UNION ALL
          SELECT c.tenant_id, l.referrer_member_id, stats_day(c.created_at), 0, 0, 1
            FROM conversions c JOIN leads l ON l.tenant_id = c.tenant_id AND l.id = c.lead_id
        ) x
       GROUP BY tenant_id, member_id, day`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const [table, op] of TRIGGERS) {
      await queryRunner.query(`DROP TRIGGER trg_${table}_portal_${op} ON ${table}`);
      await queryRunner.query(`DROP FUNCTION portal_activity_${table}_${op}()`);
    }
    await queryRunner.query(`DROP TABLE portal_activity_daily`);
  }
}

/** Each trigger: its table, its operation, and the delta rows (tenant, member, day, counts). */
const TRIGGERS: [string, 'insert' | 'update', string][] = [
  [
    'deeplinks',
    'insert',
    `SELECT tenant_id, member_id, stats_day(created_at) AS day, clicks_count::bigint AS clicks,
            0::bigint AS leads, 0::bigint AS conversions FROM new_rows`,
  ],
  [
    'deeplinks',
    'update',
    // The click counter's write: its clicks on the day it is written.
    `SELECT n.tenant_id, n.member_id, stats_day(now()) AS day,
            (n.clicks_count - o.clicks_count)::bigint AS clicks, 0::bigint AS leads,
            0::bigint AS conversions
       FROM new_rows n JOIN old_rows o ON o.tenant_id = n.tenant_id AND o.id = n.id`,
  ],
  [
    'leads',
    'insert',
    `SELECT tenant_id, referrer_member_id AS member_id, stats_day(created_at) AS day,
            0::bigint AS clicks, 1::bigint AS leads, 0::bigint AS conversions FROM new_rows`,
  ],
  [
    'conversions',
    'insert',
    `SELECT c.tenant_id, l.referrer_member_id AS member_id, stats_day(c.created_at) AS day,
            0::bigint AS clicks, 0::bigint AS leads, 1::bigint AS conversions
       FROM new_rows c JOIN leads l ON l.tenant_id = c.tenant_id AND l.id = c.lead_id`,
  ],
];

function upsert(delta: string): string {
  return `
    INSERT INTO portal_activity_daily AS a
           (tenant_id, member_id, day, shard, clicks, leads, conversions)
    SELECT tenant_id, member_id, day, stats_shard(), sum(clicks), sum(leads), sum(conversions)
      FROM (${delta}) d GROUP BY tenant_id, member_id, day
    HAVING sum(clicks) <> 0 OR sum(leads) <> 0 OR sum(conversions) <> 0
     ORDER BY tenant_id, member_id, day
    ON CONFLICT (tenant_id, member_id, day, shard) DO UPDATE SET
      clicks = a.clicks + EXCLUDED.clicks, leads = a.leads + EXCLUDED.leads,
      conversions = a.conversions + EXCLUDED.conversions;`;
}
