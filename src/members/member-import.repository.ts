import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import type { StagedGroups, StagedRowError } from './member-import.service';

/**
 * The temp table (dropped at commit) of the existing members an import moved to another group:
 * `ord` (1 … n), `service_user_id`, `from_group_id`, `to_group_id`; their events are written
 * from it (`partner.group_changed`, reason `import`, docs/partners.md).
 */
export const GROUP_MOVES_TABLE = 'import_group_moves';

const TIMING = process.env.IMPORT_TIMING === '1';

/** Errors found by one check: the first `maxErrors` in line order, and how many in all. */
export interface FoundErrors {
  errors: StagedRowError[];
  count: number;
}

/**
 * The statements of the members' bulk writer (MemberImportService holds the order and the
 * decisions): each runs on the import's connection, inside its transaction, over the staging
 * table `staging` and the temporary tables the earlier ones made (`ids`, `r`, `g`, `d`, `c`,
 * dropped at commit). One method may send several statements; none is merged or split.
 */
@Injectable()
export class MemberImportRepository {
  /** The apply's sorts, hashes and temp-table indexes fit in memory; the tenant's tree lock. */
  async prepare(client: PoolClient, tenantId: string): Promise<void> {
    await q(client, `SET LOCAL work_mem = '256MB'`);
    await q(client, `SET LOCAL maintenance_work_mem = '512MB'`);
    await q(client, `SELECT pg_advisory_xact_lock(hashtext('referral-tree:' || $1))`, [tenantId]);
  }

  /**
   * Indexes the staging table by external id, and answers whether an id is there twice: a unique
   * index finds whether there are any (a hash aggregate of a million ids spills to disk).
   */
  async indexStaging(client: PoolClient, staging: string): Promise<boolean> {
    await q(client, `SAVEPOINT staging_index`);
    let dup = false;
    try {
      await q(client, `CREATE UNIQUE INDEX ON ${staging} (external_id)`);
    } catch (error) {
      if ((error as { code?: string }).code !== '23505') throw error;
      await q(client, `ROLLBACK TO SAVEPOINT staging_index`);
      await q(client, `CREATE INDEX ON ${staging} (external_id)`);
      dup = true;
    }
    await q(client, `ANALYZE ${staging}`);
    return dup;
  }

  /** Every occurrence of an external id after its first: errors, then dropped from the staging table. */
  async removeDuplicates(client: PoolClient, staging: string, maxErrors: number) {
    const found = await errors(
      client,
      maxErrors,
      `SELECT s.line, 'duplicate_external_id' AS code,
              'external_id ' || s.external_id || ' is also on line ' || f.line AS message
         FROM ${staging} s
         JOIN (SELECT external_id, min(line) AS line FROM ${staging} GROUP BY external_id) f
           ON f.external_id = s.external_id AND f.line < s.line`,
    );
    await q(
      client,
      `DELETE FROM ${staging} a USING ${staging} b
        WHERE a.external_id = b.external_id AND a.line > b.line`,
    );
    return found;
  }

  /**
   * Row locks on the members the file names, before their values are read; then `r`, one row per
   * external id: its member (existing, or new with the ids minted while staging), the requested
   * referrer resolved against the file and the tenant, and the old field values.
   */
  async resolveRows(
    client: PoolClient,
    tenantId: string,
    staging: string,
    groups: StagedGroups,
  ): Promise<void> {
    await q(
      client,
      `WITH l AS (SELECT m.id FROM members m JOIN ${staging} s ON s.external_id = m.external_id
                   WHERE m.tenant_id = $1 FOR UPDATE OF m)
       SELECT count(*) FROM l`,
      [tenantId],
    );
    // The ids minted while staging, dealt out again in external_id order: the k-th external id gets
    // the k-th member id and the k-th service user id. The new members are then written in that one
    // order, which is the order of three of the members indexes (primary key, uq_members_external_id,
    // uq_members_service_user) and of service_users' primary key: each of those grows at one place
    // instead of at a random leaf per row (a million random leaves do not fit in shared buffers).
    // Sorted as "C" (bytes: abbreviated keys, no strcoll): the order of the indexes themselves in a
    // C or C.UTF-8 database (code point order); in another collation only the locality is lost.
    await q(
      client,
      `CREATE TEMP TABLE ids ON COMMIT DROP AS
       SELECT x.external_id, x.member_id, x.service_user_id
         FROM (SELECT unnest(array_agg(external_id ORDER BY external_id COLLATE "C")) AS external_id,
                      unnest(array_agg(member_id ORDER BY line)) AS member_id,
                      unnest(array_agg(service_user_id ORDER BY service_user_id COLLATE "C"))
                        AS service_user_id
                 FROM ${staging}) x`,
    );
    await q(client, `ANALYZE ids`);
    await q(
      client,
      `CREATE TEMP TABLE r ON COMMIT DROP AS
       SELECT s.line, s.external_id, s.full_name, s.email, s.role, s.joined_at, i.service_user_id,
              s.referrer_external_id, coalesce(me.id, i.member_id) AS id, me.id IS NULL AS is_new,
              me.referrer_member_id AS old_referrer, me.root_member_id AS old_root,
              me.email AS old_email, me.full_name AS old_full_name, me.role AS old_role,
              coalesce(mp.id, ip.member_id) AS req_parent, mp.root_member_id AS parent_old_root,
              s.group_slug, gm.id AS new_group, me.group_id AS old_group
         FROM ${staging} s
         JOIN ids i ON i.external_id = s.external_id
         LEFT JOIN members me ON me.tenant_id = $1 AND me.external_id = s.external_id
         LEFT JOIN members mp ON mp.tenant_id = $1 AND mp.external_id = s.referrer_external_id
         LEFT JOIN ids ip ON ip.external_id = s.referrer_external_id
         LEFT JOIN unnest($2::text[], $3::text[]) AS gm (slug, id) ON gm.slug = s.group_slug`,
      [tenantId, groups.slugs, groups.ids],
    );
    await q(client, `ANALYZE r`);
  }

  /**
   * Unknown referrers, self-references, a referrer other than the one in force, and a group the
   * tenant does not have (docs/partners.md).
   */
  referrerErrors(client: PoolClient, maxErrors: number): Promise<FoundErrors> {
    return errors(
      client,
      maxErrors,
      `SELECT line, 'referrer_not_found' AS code,
              'referrer_external_id ' || referrer_external_id ||
              ' is neither a row of the file nor a member of the tenant' AS message
         FROM r WHERE referrer_external_id IS NOT NULL AND req_parent IS NULL
       UNION ALL
       SELECT line, 'referral_cycle', 'the member would be their own referrer'
         FROM r WHERE req_parent = id
       UNION ALL
       SELECT line, 'referrer_conflict',
              'the member already has another referrer, and a referrer never changes'
         FROM r WHERE NOT is_new AND old_referrer IS NOT NULL AND req_parent IS NOT NULL
                  AND req_parent <> old_referrer
       UNION ALL
       SELECT line, 'group_not_found', 'group ' || group_slug || ' is not a group of the tenant'
         FROM r WHERE group_slug IS NOT NULL AND new_group IS NULL`,
    );
  }

  /** The new edges: a referrer for a member that has none yet (`r.new_parent`). */
  async markNewEdges(client: PoolClient): Promise<void> {
    await q(client, `ALTER TABLE r ADD COLUMN new_parent text`);
    await q(
      client,
      `UPDATE r SET new_parent = req_parent
        WHERE req_parent IS NOT NULL AND req_parent <> id AND old_referrer IS NULL`,
    );
  }

  /**
   * `g`, the affected trees (every tree a new edge touches, and the new members) with the new
   * edges, and `d`, their depth and root top-down; answers how many members the walk from the
   * roots never reached (each is reached at most once): those hang on a cycle.
   */
  async walkTrees(client: PoolClient, tenantId: string): Promise<number> {
    await q(
      client,
      `CREATE TEMP TABLE g ON COMMIT DROP AS
       WITH roots AS (
         SELECT old_root AS id FROM r WHERE NOT is_new AND new_parent IS NOT NULL
         UNION SELECT parent_old_root FROM r WHERE new_parent IS NOT NULL AND parent_old_root IS NOT NULL)
       SELECT m.id, coalesce(e.new_parent, m.referrer_member_id) AS parent, false AS is_new
         FROM members m
         LEFT JOIN r e ON e.id = m.id AND NOT e.is_new
        WHERE m.tenant_id = $1 AND m.root_member_id IN (SELECT id FROM roots)
       UNION ALL
       SELECT id, new_parent, true FROM r WHERE is_new`,
      [tenantId],
    );
    await q(client, `CREATE INDEX ON g (parent)`);
    await q(client, `ANALYZE g`);
    await q(
      client,
      `CREATE TEMP TABLE d ON COMMIT DROP AS
       WITH RECURSIVE t (id, root, depth, parent, is_new) AS (
         SELECT id, id, 0, parent, is_new FROM g WHERE parent IS NULL
         UNION ALL
         SELECT g.id, t.root, t.depth + 1, g.parent, g.is_new FROM t JOIN g ON g.parent = t.id)
       SELECT id, root, depth, parent, is_new FROM t`,
    );
    const [{ unreached }] = await q<{ unreached: string }>(
      client,
      `SELECT (SELECT count(*) FROM g) - (SELECT count(*) FROM d) AS unreached`,
    );
    return Number(unreached);
  }

  /** The rows whose referrer chain the walk never reached: they loop. */
  cycleErrors(client: PoolClient, maxErrors: number): Promise<FoundErrors> {
    return errors(
      client,
      maxErrors,
      `SELECT r.line, 'referral_cycle' AS code,
            'the referrer chain of this row loops back on itself' AS message
       FROM r WHERE r.new_parent IS NOT NULL AND NOT EXISTS (SELECT 1 FROM d WHERE d.id = r.id)`,
    );
  }

  /**
   * The counters bottom-up, one statement per level and insert-only (no row is updated): `c_<L>`
   * holds, for each member at depth L - 1 with a downline, its downline count and deepest depth,
   * from its children at depth L and their own `c_<L+1>` rows; `c` collects them all. Members
   * without a row in `c` have no downline (0, and their own depth as the deepest).
   */
  async countDownlines(client: PoolClient): Promise<void> {
    await q(client, `CREATE INDEX ON d (depth)`);
    await q(client, `ANALYZE d`);
    const [{ max }] = await q<{ max: number | null }>(client, `SELECT max(depth) AS max FROM d`);
    await q(
      client,
      `CREATE TEMP TABLE c (id text, downline integer, deepest integer) ON COMMIT DROP`,
    );
    for (let level = max ?? 0; level >= 1; level--) {
      const below =
        level === max
          ? `(SELECT NULL::text AS id, 0 AS downline, 0 AS deepest WHERE false)`
          : `c_${level + 1}`;
      await q(
        client,
        `CREATE TEMP TABLE c_${level} ON COMMIT DROP AS
         SELECT d.parent AS id, sum(1 + coalesce(b.downline, 0))::int AS downline,
                max(coalesce(b.deepest, d.depth)) AS deepest
           FROM d LEFT JOIN ${below} b ON b.id = d.id
          WHERE d.depth = ${level}
          GROUP BY d.parent`,
      );
      await q(client, `INSERT INTO c SELECT * FROM c_${level}`);
      if (level !== max) await q(client, `DROP TABLE c_${level + 1}`);
    }
    await q(client, `ANALYZE c`);
  }

  /** How many rows create a member, change one, and in all. */
  async counts(client: PoolClient): Promise<{ created: number; updated: number; total: number }> {
    const [counts] = await q<{ created: string; updated: string; total: string }>(
      client,
      `SELECT count(*) FILTER (WHERE is_new) AS created,
              count(*) FILTER (WHERE NOT is_new AND (new_parent IS NOT NULL
                OR (email IS NOT NULL AND email IS DISTINCT FROM old_email)
                OR (full_name IS NOT NULL AND full_name IS DISTINCT FROM old_full_name)
                OR (role IS NOT NULL AND role IS DISTINCT FROM old_role)
                OR (new_group IS NOT NULL AND new_group IS DISTINCT FROM old_group))) AS updated,
              count(*) AS total
         FROM r`,
    );
    return {
      created: Number(counts.created),
      updated: Number(counts.updated),
      total: Number(counts.total),
    };
  }

  /**
   * One INSERT of the new members' service users, then one of the new members, in external id
   * order; answers how many members were inserted (fewer when a concurrent upsert took an id).
   */
  async insertNew(client: PoolClient, tenantId: string, defaultGroupId: string): Promise<number> {
    await q(
      client,
      `INSERT INTO service_users (id, created_at)
       SELECT service_user_id, now() FROM r WHERE is_new ORDER BY service_user_id COLLATE "C"`,
    );
    const insertStarted = Date.now();
    const inserted = await client.query(
      `INSERT INTO members (tenant_id, id, service_user_id, external_id, email, email_verified,
              full_name, role, referrer_member_id, depth, root_member_id, is_active, claim_required,
              downline_count, deepest_depth, created_at, updated_at, group_id)
       SELECT $1, r.id, r.service_user_id, r.external_id, r.email, false, r.full_name,
              coalesce(r.role, 'partner'), d.parent, d.depth, d.root, true, true, d.downline,
              d.deepest, coalesce(r.joined_at, now()), now(), coalesce(r.new_group, $2)
         FROM r JOIN ${TREE} d ON d.id = r.id WHERE r.is_new
        ORDER BY r.external_id COLLATE "C"
       ON CONFLICT ON CONSTRAINT uq_members_external_id DO NOTHING`,
      [tenantId, defaultGroupId || null],
    );
    if (TIMING) process.stderr.write(`${Date.now() - insertStarted} ms  INSERT INTO members\n`);
    return inserted.rowCount ?? 0;
  }

  /** Whether the affected trees hold any member that existed before. */
  async anyExisting(client: PoolClient): Promise<boolean> {
    return (await q(client, `SELECT 1 FROM d WHERE NOT is_new LIMIT 1`)).length > 0;
  }

  /** One UPDATE of the tree columns that changed, one of the fields that changed. */
  async updateExisting(client: PoolClient, tenantId: string): Promise<void> {
    await q(
      client,
      `UPDATE members m
          SET referrer_member_id = d.parent, depth = d.depth, root_member_id = d.root,
              downline_count = d.downline, deepest_depth = d.deepest,
              updated_at = CASE WHEN m.depth <> d.depth OR m.referrer_member_id IS DISTINCT FROM d.parent
                                THEN now() ELSE m.updated_at END
         FROM ${TREE} d
        WHERE m.tenant_id = $1 AND m.id = d.id AND NOT d.is_new
          AND (m.referrer_member_id IS DISTINCT FROM d.parent OR m.depth <> d.depth
               OR m.root_member_id <> d.root OR m.downline_count <> d.downline
               OR m.deepest_depth <> d.deepest)`,
      [tenantId],
    );
    await q(
      client,
      `UPDATE members m
          SET email = coalesce(r.email, m.email), full_name = coalesce(r.full_name, m.full_name),
              role = coalesce(r.role, m.role), updated_at = now()
         FROM r
        WHERE m.tenant_id = $1 AND m.id = r.id AND NOT r.is_new
          AND ((r.email IS NOT NULL AND r.email IS DISTINCT FROM m.email)
            OR (r.full_name IS NOT NULL AND r.full_name IS DISTINCT FROM m.full_name)
            OR (r.role IS NOT NULL AND r.role IS DISTINCT FROM m.role))`,
      [tenantId],
    );
  }

  /**
   * Moves the existing members whose row names another group (docs/partners.md), and keeps who
   * moved from where in GROUP_MOVES_TABLE for their events; answers how many moved.
   */
  async moveGroups(client: PoolClient, tenantId: string): Promise<number> {
    await q(
      client,
      `CREATE TEMP TABLE ${GROUP_MOVES_TABLE} (ord bigint, service_user_id text,
         from_group_id text, to_group_id text) ON COMMIT DROP`,
    );
    const [{ n }] = await q<{ n: string }>(
      client,
      `WITH moved AS (
         UPDATE members m SET group_id = r.new_group, updated_at = now()
           FROM r
          WHERE m.tenant_id = $1 AND m.id = r.id AND NOT r.is_new
            AND r.new_group IS NOT NULL AND m.group_id <> r.new_group
         RETURNING m.id, m.service_user_id, r.old_group, r.new_group),
       kept AS (
         INSERT INTO ${GROUP_MOVES_TABLE}
         SELECT row_number() OVER (ORDER BY id), service_user_id, old_group, new_group FROM moved
         RETURNING 1)
       SELECT count(*) AS n FROM kept`,
      [tenantId],
    );
    return Number(n);
  }
}

/** `d` with its counters: what the writes read. */
const TREE = `(SELECT d.id, d.root, d.depth, d.parent, d.is_new,
                      coalesce(c.downline, 0) AS downline, coalesce(c.deepest, d.depth) AS deepest
                 FROM d LEFT JOIN c ON c.id = d.id)`;

/** A statement's rows; IMPORT_TIMING=1: each statement's time on stderr (the benchmark's breakdown). */
async function q<T = Record<string, unknown>>(
  client: PoolClient,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const started = Date.now();
  const { rows } = await client.query(sql, params);
  if (TIMING)
    process.stderr.write(`${Date.now() - started} ms  ${sql.slice(0, 70).replace(/\s+/g, ' ')}\n`);
  return rows as T[];
}

/** The errors `sql` selects (line, code, message): the first `maxErrors` by line, and the count. */
async function errors(client: PoolClient, maxErrors: number, sql: string): Promise<FoundErrors> {
  const rows = await q<StagedRowError & { n: string }>(
    client,
    `SELECT line, code, message, count(*) OVER () AS n FROM (${sql}) e ORDER BY line LIMIT ${maxErrors}`,
  );
  return {
    count: rows.length ? Number(rows[0].n) : 0,
    errors: rows.map(({ line, code, message }) => ({ line, code, message })),
  };
}
