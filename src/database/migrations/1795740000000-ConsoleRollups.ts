import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The program console's daily rollups (docs/console.md), so the overview of a tenant of a million
 * members reads a few hundred rows, never the raw tables:
 *
 * - `stats_daily`: per tenant, UTC day and currency (`''` for what has none: clicks, partners,
 *   leads) the day's clicks, new partners, leads (and how many of them are converted now),
 *   conversions, revenue of the conversions not reversed, and the commission of the bonuses
 *   created that day by their status now. Each transaction adds to one of 8 rows per key
 *   (`shard`, from its backend), so concurrent writers of one tenant do not queue on one row; a
 *   read sums the shards.
 * - `stats_partner_daily`: per tenant, member, day and currency, the commission of the bonuses
 *   created that day and neither rejected nor reversed (top partners).
 *
 * Both are kept by statement-level triggers over transition tables on members, leads,
 * conversions, bonuses and deeplinks, in the transaction of the change whichever code path makes
 * it (as trg_bonuses_balance keeps member_balances): one upsert per statement, keys in one order.
 * A bonus's status change moves its amount between the status columns of the day it was created.
 * Clicks are counted on the day the click counter writes them (within CLICK_FLUSH_MS of the click).
 *
 * The partners list (`/org/:slug/partners`, `GET …/users`) gets its indexes: newest first and by
 * name through btrees, and the search (a part of the name, email or external id) through a
 * trigram index (pg_trgm) on the three together.
 *
 * `stats_rebuild(tenant_id)` (NULL: every tenant) recomputes both from the raw tables: the
 * backfill below, and a load that bypassed the triggers (`session_replication_role = replica`).
 */
export class ConsoleRollups1795740000000 implements MigrationInterface {
  name = 'ConsoleRollups1795740000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE stats_daily (
        tenant_id text NOT NULL, day date NOT NULL, currency text NOT NULL, shard smallint NOT NULL,
        clicks bigint NOT NULL DEFAULT 0, new_partners bigint NOT NULL DEFAULT 0,
        leads bigint NOT NULL DEFAULT 0, converted_leads bigint NOT NULL DEFAULT 0,
        conversions bigint NOT NULL DEFAULT 0, revenue_kopecks bigint NOT NULL DEFAULT 0,
        commission_pending_kopecks bigint NOT NULL DEFAULT 0,
        commission_approved_kopecks bigint NOT NULL DEFAULT 0,
        commission_paid_kopecks bigint NOT NULL DEFAULT 0,
        commission_other_kopecks bigint NOT NULL DEFAULT 0,
        CONSTRAINT pk_stats_daily PRIMARY KEY (tenant_id, day, currency, shard))`);
    await queryRunner.query(`
      CREATE TABLE stats_partner_daily (
        tenant_id text NOT NULL, member_id text NOT NULL, currency text NOT NULL, day date NOT NULL,
        commission_kopecks bigint NOT NULL DEFAULT 0,
        CONSTRAINT pk_stats_partner_daily PRIMARY KEY (tenant_id, member_id, currency, day))`);
    await queryRunner.query(
      `CREATE INDEX ix_stats_partner_daily_top
         ON stats_partner_daily (tenant_id, currency, day, commission_kopecks DESC)`,
    );

    await queryRunner.query(`CREATE FUNCTION stats_shard() RETURNS smallint LANGUAGE sql STABLE
      AS $$ SELECT (pg_backend_pid() % 8)::smallint $$`);
    await queryRunner.query(`CREATE FUNCTION stats_day(t timestamptz) RETURNS date
      LANGUAGE sql IMMUTABLE AS $$ SELECT (t AT TIME ZONE 'UTC')::date $$`);

    for (const t of TRIGGERS) {
      for (const op of ['insert', 'update'] as const) {
        if (op === 'update' && !t.update) continue;
        const fn = `stats_${t.table}_${op}`;
        const delta =
          op === 'insert'
            ? `SELECT ${t.rows('new_rows', 1, op)} FROM new_rows`
            : `SELECT ${t.rows('new_rows', 1, op)} FROM new_rows
               UNION ALL SELECT ${t.rows('old_rows', -1, op)} FROM old_rows`;
        await queryRunner.query(`
          CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            ${t.table === 'bonuses' ? bonusUpserts(delta) : countUpsert(delta)}
            RETURN NULL;
          END $$`);
        await queryRunner.query(
          `CREATE TRIGGER trg_${t.table}_stats_${op} AFTER ${op.toUpperCase()} ON ${t.table}
             REFERENCING ${op === 'update' ? 'OLD TABLE AS old_rows ' : ''}NEW TABLE AS new_rows
             FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
        );
      }
    }

    await queryRunner.query(`
      CREATE FUNCTION stats_rebuild(p_tenant text) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM stats_daily WHERE p_tenant IS NULL OR tenant_id = p_tenant;
        DELETE FROM stats_partner_daily WHERE p_tenant IS NULL OR tenant_id = p_tenant;
        INSERT INTO stats_daily (tenant_id, day, currency, shard, clicks, new_partners, leads,
               converted_leads, conversions, revenue_kopecks, commission_pending_kopecks,
               commission_approved_kopecks, commission_paid_kopecks, commission_other_kopecks)
        SELECT tenant_id, day, currency, 0, sum(a), sum(b), sum(c), sum(d), sum(e), sum(f),
               sum(g), sum(h), sum(i), sum(j)
          FROM (
            SELECT tenant_id, stats_day(created_at) AS day, '' AS currency, clicks_count AS a,
                   0 AS b, 0 AS c, 0 AS d, 0 AS e, 0 AS f, 0 AS g, 0 AS h, 0 AS i, 0 AS j
              FROM deeplinks WHERE p_tenant IS NULL OR tenant_id = p_tenant
            UNION ALL
            SELECT tenant_id, stats_day(created_at), '', 0, 1, 0, 0, 0, 0, 0, 0, 0, 0
              FROM members WHERE p_tenant IS NULL OR tenant_id = p_tenant
            UNION ALL
            SELECT tenant_id, stats_day(created_at), '', 0, 0, 1, (status = 'converted')::int,
                   0, 0, 0, 0, 0, 0
              FROM leads WHERE p_tenant IS NULL OR tenant_id = p_tenant
            UNION ALL
            SELECT tenant_id, stats_day(created_at), currency, 0, 0, 0, 0, 1,
                   CASE WHEN status = 'reversed' THEN 0 ELSE amount_kopecks END, 0, 0, 0, 0
              FROM conversions WHERE p_tenant IS NULL OR tenant_id = p_tenant
            UNION ALL
            SELECT tenant_id, stats_day(created_at), currency, 0, 0, 0, 0, 0, 0,
                   CASE WHEN status = 'pending' THEN amount_kopecks ELSE 0 END,
                   CASE WHEN status = 'approved' THEN amount_kopecks ELSE 0 END,
                   CASE WHEN status = 'paid' THEN amount_kopecks ELSE 0 END,
                   CASE WHEN status IN ('pending', 'approved', 'paid', 'rejected', 'reversed')
                        THEN 0 ELSE amount_kopecks END
              FROM bonuses WHERE p_tenant IS NULL OR tenant_id = p_tenant
          ) x
         GROUP BY tenant_id, day, currency;
        INSERT INTO stats_partner_daily (tenant_id, member_id, currency, day, commission_kopecks)
        SELECT tenant_id, member_id, currency, stats_day(created_at), sum(amount_kopecks)
          FROM bonuses
         WHERE (p_tenant IS NULL OR tenant_id = p_tenant) AND status NOT IN ('rejected', 'reversed')
         GROUP BY 1, 2, 3, 4 HAVING sum(amount_kopecks) <> 0;
      END $$`);
    await queryRunner.query(`SELECT stats_rebuild(NULL)`);

    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await queryRunner.query(
      `CREATE INDEX ix_members_joined ON members (tenant_id, created_at DESC, id DESC)`,
    );
    await queryRunner.query(`CREATE INDEX ix_members_name ON members (tenant_id, full_name, id)`);
    await queryRunner.query(
      `CREATE INDEX ix_members_search ON members USING gin ((${MEMBER_SEARCH_TEXT}) gin_trgm_ops)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX ix_members_search`);
    await queryRunner.query(`DROP INDEX ix_members_name`);
    await queryRunner.query(`DROP INDEX ix_members_joined`);
    for (const t of TRIGGERS) {
      for (const op of t.update ? ['insert', 'update'] : ['insert']) {
        await queryRunner.query(`DROP TRIGGER trg_${t.table}_stats_${op} ON ${t.table}`);
        await queryRunner.query(`DROP FUNCTION stats_${t.table}_${op}()`);
      }
    }
    await queryRunner.query(`DROP FUNCTION stats_rebuild(text)`);
    await queryRunner.query(`DROP FUNCTION stats_day(timestamptz)`);
    await queryRunner.query(`DROP FUNCTION stats_shard()`);
    await queryRunner.query(`DROP TABLE stats_partner_daily`);
    await queryRunner.query(`DROP TABLE stats_daily`);
  }
}

/** What the partners search matches (ix_members_search; PartnersRepository uses the same). */
export const MEMBER_SEARCH_TEXT = `lower(coalesce(full_name, '') || ' ' || coalesce(email, '') || ' ' || external_id)`;

/** A delta row of the count columns, in the order of COUNT_COLUMNS. */
const COUNT_COLUMNS = [
  'clicks',
  'new_partners',
  'leads',
  'converted_leads',
  'conversions',
  'revenue_kopecks',
] as const;
type Counts = Partial<Record<(typeof COUNT_COLUMNS)[number], string>>;
const countRow = (day: string, currency: string, counts: Counts) =>
  `tenant_id, ${day} AS day, ${currency} AS currency, ` +
  COUNT_COLUMNS.map((c) => `(${counts[c] ?? '0'})::bigint AS ${c}`).join(', ');
const signed = (sign: 1 | -1, expr: string) => (sign === 1 ? expr : `-(${expr})`);

interface TriggerSpec {
  table: string;
  update: boolean;
  /** The delta columns of a transition table's rows, `sign` −1 for the old rows of an update. */
  rows: (table: string, sign: 1 | -1, op: 'insert' | 'update') => string;
}

const CREATED_DAY = 'stats_day(created_at)';
const REVENUE = `CASE WHEN status = 'reversed' THEN 0 ELSE amount_kopecks END`;

const TRIGGERS: TriggerSpec[] = [
  {
    table: 'members',
    update: false,
    rows: () => countRow(CREATED_DAY, `''`, { new_partners: '1' }),
  },
  {
    table: 'leads',
    update: true,
    rows: (_, sign) =>
      countRow(CREATED_DAY, `''`, {
        leads: signed(sign, '1'),
        converted_leads: signed(sign, `(status = 'converted')::int`),
      }),
  },
  {
    table: 'conversions',
    update: true,
    rows: (_, sign) =>
      countRow(CREATED_DAY, 'currency', {
        conversions: signed(sign, '1'),
        revenue_kopecks: signed(sign, REVENUE),
      }),
  },
  {
    table: 'deeplinks',
    update: true,
    // An insert carries the clicks an import brought (on the link's day); an update is the click
    // counter's write, on the day it is written.
    rows: (_, sign, op) =>
      countRow(op === 'insert' ? CREATED_DAY : 'stats_day(now())', `''`, {
        clicks: signed(sign, 'clicks_count'),
      }),
  },
  {
    table: 'bonuses',
    update: true,
    rows: (_, sign) =>
      `tenant_id, member_id, currency, ${CREATED_DAY} AS day, status, ` +
      `${signed(sign, 'amount_kopecks')} AS amount`,
  },
];

/** Adds a delta of count rows to stats_daily. */
function countUpsert(delta: string): string {
  const sums = COUNT_COLUMNS.map((c) => `sum(${c})`);
  return `
    INSERT INTO stats_daily AS s (tenant_id, day, currency, shard, ${COUNT_COLUMNS.join(', ')})
    SELECT tenant_id, day, currency, stats_shard(), ${sums.join(', ')}
      FROM (${delta}) d GROUP BY tenant_id, day, currency
    HAVING ${sums.map((x) => `${x} <> 0`).join(' OR ')}
     ORDER BY tenant_id, day, currency
    ON CONFLICT (tenant_id, day, currency, shard) DO UPDATE SET
      ${COUNT_COLUMNS.map((c) => `${c} = s.${c} + EXCLUDED.${c}`).join(', ')};`;
}

const BONUS_COLUMNS = {
  commission_pending_kopecks: `status = 'pending'`,
  commission_approved_kopecks: `status = 'approved'`,
  commission_paid_kopecks: `status = 'paid'`,
  commission_other_kopecks: `status NOT IN ('pending', 'approved', 'paid', 'rejected', 'reversed')`,
};

/** Adds a delta of bonus rows to stats_daily and stats_partner_daily. */
function bonusUpserts(delta: string): string {
  const cols = Object.keys(BONUS_COLUMNS);
  const sums = Object.values(BONUS_COLUMNS).map(
    (when) => `coalesce(sum(amount) FILTER (WHERE ${when}), 0)`,
  );
  return `
    INSERT INTO stats_daily AS s (tenant_id, day, currency, shard, ${cols.join(', ')})
    SELECT tenant_id, day, currency, stats_shard(), ${sums.join(', ')}
      FROM (${delta}) d GROUP BY tenant_id, day, currency
    HAVING ${sums.map((x) => `${x} <> 0`).join(' OR ')}
     ORDER BY tenant_id, day, currency
    ON CONFLICT (tenant_id, day, currency, shard) DO UPDATE SET
      ${cols.map((c) => `${c} = s.${c} + EXCLUDED.${c}`).join(', ')};
    INSERT INTO stats_partner_daily AS p (tenant_id, member_id, currency, day, commission_kopecks)
    SELECT tenant_id, member_id, currency, day, sum(amount)
      FROM (${delta}) d WHERE status NOT IN ('rejected', 'reversed')
     GROUP BY tenant_id, member_id, currency, day HAVING sum(amount) <> 0
     ORDER BY tenant_id, member_id, currency, day
    ON CONFLICT (tenant_id, member_id, currency, day) DO UPDATE
      SET commission_kopecks = p.commission_kopecks + EXCLUDED.commission_kopecks;`;
}
