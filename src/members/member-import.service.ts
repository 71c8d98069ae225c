import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';

const TIMING = process.env.IMPORT_TIMING === '1';

export interface ApplyCounts {
  created: number;
  updated: number;
  unchanged: number;
}

/** A staged row that cannot be applied (transfer/ reports it as an import error of its line). */
export interface StagedRowError {
  line: number;
  code: 'duplicate_external_id' | 'referrer_not_found' | 'referral_cycle' | 'referrer_conflict';
  message: string;
}

export type ApplyResult =
  { ok: true; counts: ApplyCounts } | { ok: false; errors: StagedRowError[]; errorCount: number };

export type ApplyPhase = 'checking' | 'tree' | 'writing';

/** A concurrent upsert inserted one of the file's external ids after we looked: run again. */
export class LostInsertRace extends Error {}

/**
 * The members' bulk writer: the CSV import (transfer/) stages a file's rows with COPY and hands
 * them here, so that members and service users, their referral tree and its counters are written
 * by the members feature alone, with the same statements as ever (docs/architecture.md, "Module
 * boundaries"). The staging table has the columns `line`, `member_id`, `service_user_id` (ids
 * minted while staging), `external_id`, `full_name`, `email`, `role`, `joined_at` and
 * `referrer_external_id` (transfer/import-rows.ts, STAGING_COLUMNS).
 */
@Injectable()
export class MemberImportService {
  /** Applies staged rows on `client`, inside its transaction (applyStaged below). */
  applyStaged(...args: Parameters<typeof applyStaged>): Promise<ApplyResult> {
    return applyStaged(...args);
  }
}

/**
 * Validates and applies staged rows set-wise, inside the caller's transaction (docs/import-export.md,
 * "How an import is applied"). Under the tenant's tree lock (the one every upsert that sets a
 * referrer takes) and row locks on the members the file names:
 *
 * 1. `r`: one row per external id: its member (existing, locked, or new with the staged ids), the
 *    requested referrer resolved against the file and the tenant, and the old field values.
 * 2. Set-wise checks: duplicates, unknown referrers, a referrer other than the one in force,
 *    self-references; then cycles, as the members the top-down walk of the new forest never reaches.
 * 3. `g`, the affected trees (every tree a new edge touches, and the new members), with the new
 *    edges; `d`, their depth and root top-down, then `c`, the downline counts and deepest depths
 *    bottom-up, one insert per level: exactly the counters the one-by-one upserts keep.
 * 4. One INSERT of the new members (service users first), one UPDATE of the tree columns that
 *    changed, one UPDATE of the fields that changed.
 */
async function applyStaged(
  client: PoolClient,
  tenantId: string,
  staging: string,
  maxErrors: number,
  onPhase: (phase: ApplyPhase) => Promise<void>,
): Promise<ApplyResult> {
  const q = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => {
    const started = Date.now();
    const { rows } = await client.query(sql, params);
    // IMPORT_TIMING=1: each statement's time on stderr (the benchmark's breakdown).
    if (TIMING)
      process.stderr.write(
        `${Date.now() - started} ms  ${sql.slice(0, 70).replace(/\s+/g, ' ')}\n`,
      );
    return rows as T[];
  };
  const errors: StagedRowError[] = [];
  let errorCount = 0;
  const report = async (sql: string, params: unknown[] = []) => {
    const rows = await q<{
      line: number;
      code: StagedRowError['code'];
      message: string;
      n: string;
    }>(
      `SELECT line, code, message, count(*) OVER () AS n FROM (${sql}) e ORDER BY line LIMIT ${maxErrors}`,
      params,
    );
    errorCount += rows.length ? Number(rows[0].n) : 0;
    for (const { line, code, message } of rows) errors.push({ line, code, message });
  };

  await onPhase('checking');
  // The apply's sorts, hashes and temp-table indexes fit in memory.
  await q(`SET LOCAL work_mem = '256MB'`);
  await q(`SET LOCAL maintenance_work_mem = '512MB'`);
  await q(`SELECT pg_advisory_xact_lock(hashtext('referral-tree:' || $1))`, [tenantId]);
  // Duplicates: every occurrence after the first is an error; only the first goes on. A unique
  // index finds whether there are any (a hash aggregate of a million ids spills to disk).
  await q(`SAVEPOINT staging_index`);
  let dup = false;
  try {
    await q(`CREATE UNIQUE INDEX ON ${staging} (external_id)`);
  } catch (error) {
    if ((error as { code?: string }).code !== '23505') throw error;
    await q(`ROLLBACK TO SAVEPOINT staging_index`);
    await q(`CREATE INDEX ON ${staging} (external_id)`);
    dup = true;
  }
  await q(`ANALYZE ${staging}`);
  if (dup) {
    await report(
      `SELECT s.line, 'duplicate_external_id' AS code,
              'external_id ' || s.external_id || ' is also on line ' || f.line AS message
         FROM ${staging} s
         JOIN (SELECT external_id, min(line) AS line FROM ${staging} GROUP BY external_id) f
           ON f.external_id = s.external_id AND f.line < s.line`,
    );
    await q(
      `DELETE FROM ${staging} a USING ${staging} b
        WHERE a.external_id = b.external_id AND a.line > b.line`,
    );
  }

  // Row locks on the members the file names, before their values are read.
  await q(
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
    `CREATE TEMP TABLE ids ON COMMIT DROP AS
     SELECT x.external_id, x.member_id, x.service_user_id
       FROM (SELECT unnest(array_agg(external_id ORDER BY external_id COLLATE "C")) AS external_id,
                    unnest(array_agg(member_id ORDER BY line)) AS member_id,
                    unnest(array_agg(service_user_id ORDER BY service_user_id COLLATE "C"))
                      AS service_user_id
               FROM ${staging}) x`,
  );
  await q(`ANALYZE ids`);
  await q(
    `CREATE TEMP TABLE r ON COMMIT DROP AS
     SELECT s.line, s.external_id, s.full_name, s.email, s.role, s.joined_at, i.service_user_id,
            s.referrer_external_id, coalesce(me.id, i.member_id) AS id, me.id IS NULL AS is_new,
            me.referrer_member_id AS old_referrer, me.root_member_id AS old_root,
            me.email AS old_email, me.full_name AS old_full_name, me.role AS old_role,
            coalesce(mp.id, ip.member_id) AS req_parent, mp.root_member_id AS parent_old_root
       FROM ${staging} s
       JOIN ids i ON i.external_id = s.external_id
       LEFT JOIN members me ON me.tenant_id = $1 AND me.external_id = s.external_id
       LEFT JOIN members mp ON mp.tenant_id = $1 AND mp.external_id = s.referrer_external_id
       LEFT JOIN ids ip ON ip.external_id = s.referrer_external_id`,
    [tenantId],
  );
  await q(`ANALYZE r`);
  await report(
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
                AND req_parent <> old_referrer`,
  );
  // The new edges: a referrer for a member that has none yet.
  await q(`ALTER TABLE r ADD COLUMN new_parent text`);
  await q(
    `UPDATE r SET new_parent = req_parent
      WHERE req_parent IS NOT NULL AND req_parent <> id AND old_referrer IS NULL`,
  );

  await onPhase('tree');
  await q(
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
  await q(`CREATE INDEX ON g (parent)`);
  await q(`ANALYZE g`);
  await q(
    `CREATE TEMP TABLE d ON COMMIT DROP AS
     WITH RECURSIVE t (id, root, depth, parent, is_new) AS (
       SELECT id, id, 0, parent, is_new FROM g WHERE parent IS NULL
       UNION ALL
       SELECT g.id, t.root, t.depth + 1, g.parent, g.is_new FROM t JOIN g ON g.parent = t.id)
     SELECT id, root, depth, parent, is_new FROM t`,
  );
  // Whatever the walk from the roots never reached hangs on a cycle (each member is reached at
  // most once: when the walk reached them all, there is none to look for).
  const [{ unreached }] = await q<{ unreached: string }>(
    `SELECT (SELECT count(*) FROM g) - (SELECT count(*) FROM d) AS unreached`,
  );
  if (Number(unreached) > 0)
    await report(
      `SELECT r.line, 'referral_cycle' AS code,
            'the referrer chain of this row loops back on itself' AS message
       FROM r WHERE r.new_parent IS NOT NULL AND NOT EXISTS (SELECT 1 FROM d WHERE d.id = r.id)`,
    );
  if (errorCount) return { ok: false, errors, errorCount };

  // The counters bottom-up, one statement per level and insert-only (no row is updated): `c_<L>`
  // holds, for each member at depth L - 1 with a downline, its downline count and deepest depth,
  // from its children at depth L and their own `c_<L+1>` rows; `c` collects them all. Members
  // without a row in `c` have no downline (0, and their own depth as the deepest).
  await q(`CREATE INDEX ON d (depth)`);
  await q(`ANALYZE d`);
  const [{ max }] = await q<{ max: number | null }>(`SELECT max(depth) AS max FROM d`);
  await q(`CREATE TEMP TABLE c (id text, downline integer, deepest integer) ON COMMIT DROP`);
  for (let level = max ?? 0; level >= 1; level--) {
    const below =
      level === max
        ? `(SELECT NULL::text AS id, 0 AS downline, 0 AS deepest WHERE false)`
        : `c_${level + 1}`;
    await q(
      `CREATE TEMP TABLE c_${level} ON COMMIT DROP AS
       SELECT d.parent AS id, sum(1 + coalesce(b.downline, 0))::int AS downline,
              max(coalesce(b.deepest, d.depth)) AS deepest
         FROM d LEFT JOIN ${below} b ON b.id = d.id
        WHERE d.depth = ${level}
        GROUP BY d.parent`,
    );
    await q(`INSERT INTO c SELECT * FROM c_${level}`);
    if (level !== max) await q(`DROP TABLE c_${level + 1}`);
  }
  await q(`ANALYZE c`);
  // d with its counters: what the writes below read.
  const tree = `(SELECT d.id, d.root, d.depth, d.parent, d.is_new,
                        coalesce(c.downline, 0) AS downline, coalesce(c.deepest, d.depth) AS deepest
                   FROM d LEFT JOIN c ON c.id = d.id)`;

  await onPhase('writing');
  const [counts] = await q<{ created: string; updated: string; total: string }>(
    `SELECT count(*) FILTER (WHERE is_new) AS created,
            count(*) FILTER (WHERE NOT is_new AND (new_parent IS NOT NULL
              OR (email IS NOT NULL AND email IS DISTINCT FROM old_email)
              OR (full_name IS NOT NULL AND full_name IS DISTINCT FROM old_full_name)
              OR (role IS NOT NULL AND role IS DISTINCT FROM old_role))) AS updated,
            count(*) AS total
       FROM r`,
  );
  const created = Number(counts.created);
  await q(
    `INSERT INTO service_users (id, created_at)
     SELECT service_user_id, now() FROM r WHERE is_new ORDER BY service_user_id COLLATE "C"`,
  );
  const insertStarted = Date.now();
  const inserted = await client.query(
    `INSERT INTO members (tenant_id, id, service_user_id, external_id, email, email_verified,
            full_name, role, referrer_member_id, depth, root_member_id, is_active, claim_required,
            downline_count, deepest_depth, created_at, updated_at)
     SELECT $1, r.id, r.service_user_id, r.external_id, r.email, false, r.full_name,
            coalesce(r.role, 'partner'), d.parent, d.depth, d.root, true, true, d.downline,
            d.deepest, coalesce(r.joined_at, now()), now()
       FROM r JOIN ${tree} d ON d.id = r.id WHERE r.is_new
      ORDER BY r.external_id COLLATE "C"
     ON CONFLICT ON CONSTRAINT uq_members_external_id DO NOTHING`,
    [tenantId],
  );
  if (TIMING) process.stderr.write(`${Date.now() - insertStarted} ms  INSERT INTO members\n`);
  if (inserted.rowCount !== created) throw new LostInsertRace();
  // Into an empty tenant nothing existed: the two updates below would only scan for nothing.
  if (
    created === Number(counts.total) &&
    !(await q(`SELECT 1 FROM d WHERE NOT is_new LIMIT 1`)).length
  ) {
    return { ok: true, counts: { created, updated: 0, unchanged: 0 } };
  }
  await q(
    `UPDATE members m
        SET referrer_member_id = d.parent, depth = d.depth, root_member_id = d.root,
            downline_count = d.downline, deepest_depth = d.deepest,
            updated_at = CASE WHEN m.depth <> d.depth OR m.referrer_member_id IS DISTINCT FROM d.parent
                              THEN now() ELSE m.updated_at END
       FROM ${tree} d
      WHERE m.tenant_id = $1 AND m.id = d.id AND NOT d.is_new
        AND (m.referrer_member_id IS DISTINCT FROM d.parent OR m.depth <> d.depth
             OR m.root_member_id <> d.root OR m.downline_count <> d.downline
             OR m.deepest_depth <> d.deepest)`,
    [tenantId],
  );
  await q(
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
  const updated = Number(counts.updated);
  return {
    ok: true,
    counts: { created, updated, unchanged: Number(counts.total) - created - updated },
  };
}
