import { readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { featureOf as folderOf, sourceFiles, tableOwners, WRITE } from './tables';

/**
 * A feature's tables are written by that feature only (docs/architecture.md, "Module
 * boundaries"): the lint sees imports, not SQL, so this reads the SQL. A table's owner is the
 * feature whose entity names it (`@Entity('…')`), or the one tables.ts names for tables no entity
 * maps.
 */
/**
 * The one file that writes other features' tables, and all it may write there: the demo's
 * history (docs/architecture.md, "Decisions and their reasons"). The demo is a development
 * module, which AppModule leaves out under NODE_ENV=production
 * (test/e2e/demo/demo-instances.e2e-spec.ts); it seeds through the owners' services, then moves
 * the seeded rows into the past. Its UPDATEs may assign timestamps (`…_at` columns) and nothing
 * else; any other write of it is a foreign write like any other.
 */
const HISTORY_WRITER = 'src/demo/demo.repository.ts';

const UPDATE_SET = /\bUPDATE\s+"?[a-z_]+"?(?:\s+AS\s+\w+)?\s+SET\s+([\s\S]*?)\s+(?:FROM|WHERE)\b/gi;

/** The columns a SET list assigns (commas inside parentheses and CASE … END are skipped). */
function assigned(setList: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (const m of setList.matchAll(/\(|\)|\bCASE\b|\bEND\b|,/gi)) {
    const token = m[0].toUpperCase();
    if (token === '(' || token === 'CASE') depth++;
    else if (token === ')' || token === 'END') depth--;
    else if (depth === 0) {
      parts.push(setList.slice(start, m.index));
      start = m.index + 1;
    }
  }
  parts.push(setList.slice(start));
  return parts.map((part) => /^\s*"?(\w+)"?\s*=/.exec(part)?.[1] ?? part.trim());
}

/** The text without its UPDATEs that assign timestamps only. */
const withoutTimestampUpdates = (text: string) =>
  text.replace(UPDATE_SET, (statement, setList: string) =>
    assigned(setList).every((column) => column.endsWith('_at')) ? '' : statement,
  );

describe('table writers', () => {
  const root = resolve(__dirname, '../..');
  const src = join(root, 'src');
  const featureOf = (path: string) => folderOf(src, path);
  const sources = sourceFiles(src).filter((path) => relative(src, path).includes(sep));
  const owners = tableOwners(src, sources);

  /** "feature → table": the files of `writer` whose SQL writes a table another feature owns. */
  const foreignWrites = (
    writer: string,
    path: string,
    text: string,
    into: Map<string, string[]>,
  ) => {
    for (const [, table] of text.matchAll(WRITE)) {
      const owner = owners.get(table);
      if (!owner || owner === writer) continue;
      const key = `${writer} → ${table}`;
      into.set(key, [...(into.get(key) ?? []), `${path} (${owner}'s)`]);
    }
    return into;
  };
  const foreign = new Map<string, string[]>();
  for (const path of sources) {
    const file = relative(root, path);
    const text = readFileSync(path, 'utf8');
    const checked = file === HISTORY_WRITER ? withoutTimestampUpdates(text) : text;
    foreignWrites(featureOf(path), file, checked, foreign);
  }

  it('knows the owner of the tables an entity maps', () => {
    expect(owners.get('members')).toBe('members');
    expect(owners.get('events')).toBe('outbox');
    expect(owners.get('webhook_deliveries')).toBe('webhooks');
  });

  it("finds a feature's SQL that writes another feature's table", () => {
    const sql =
      'await this.db.query(`UPDATE members SET clicks_count = clicks_count + 1 WHERE id = $1`);';
    expect([...foreignWrites('deeplinks', 'src/deeplinks/x.ts', sql, new Map())]).toEqual([
      ['deeplinks → members', ["src/deeplinks/x.ts (members's)"]],
    ]);
    expect(foreignWrites('members', 'src/members/x.ts', sql, new Map()).size).toBe(0);
  });

  it('lets the demo history move timestamps of other tables, and nothing more', () => {
    const moves = `UPDATE bonuses AS b SET created_at = v.at, due_at = CASE WHEN status = 'pending'
      THEN GREATEST(created_at, now()) ELSE created_at END FROM unnest($2) AS v(id, at) WHERE b.id = v.id`;
    const writes = `UPDATE bonuses SET approved_at = now(), status = 'approved' WHERE id = $1`;
    const inserts = `INSERT INTO bonuses (id, created_at) VALUES ($1, $2)`;
    expect(
      foreignWrites('demo', HISTORY_WRITER, withoutTimestampUpdates(moves), new Map()).size,
    ).toBe(0);
    for (const sql of [writes, inserts]) {
      expect([
        ...foreignWrites('demo', HISTORY_WRITER, withoutTimestampUpdates(sql), new Map()).keys(),
      ]).toEqual(['demo → bonuses']);
    }
    // The exception is still needed: the file exists and moves other features' rows.
    const history = readFileSync(join(root, HISTORY_WRITER), 'utf8');
    expect(foreignWrites('demo', HISTORY_WRITER, history, new Map()).size).toBeGreaterThan(0);
  });

  it('has no production code moving a row into the past: created_at is written at insert only', () => {
    const rewrites = sources
      .map((path) => relative(root, path))
      .filter((file) => file !== HISTORY_WRITER)
      .filter((file) =>
        [...readFileSync(join(root, file), 'utf8').matchAll(UPDATE_SET)].some(([, setList]) =>
          assigned(setList).includes('created_at'),
        ),
      );
    expect(rewrites).toEqual([]);
  });

  it("has no feature writing another feature's table", () => {
    expect([...foreign].map(([key, where]) => `${key}: ${[...new Set(where)].join(', ')}`)).toEqual(
      [],
    );
  });
});
