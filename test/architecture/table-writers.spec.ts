import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

/**
 * A feature's tables are written by that feature only (docs/architecture.md, "Module
 * boundaries"): the lint sees imports, not SQL, so this reads the SQL. A table's owner is the
 * feature whose entity names it (`@Entity('…')`), or the one below for tables no entity maps.
 */
const TABLES_WITHOUT_ENTITY: Record<string, string> = {
  tenant_lookups: 'tenants',
  ledger_entries: 'payouts',
  ledger_balances: 'payouts',
  clawbacks: 'payouts',
  payout_claims: 'payouts',
  webhook_endpoint_slots: 'webhooks',
  stats_daily: 'console',
  imports: 'transfer',
};

const WRITE = /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?)\s+"?([a-z_]+)"?/g;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'migrations' ? [] : files(path);
    return /\.tsx?$/.test(name) && !/\.spec\.tsx?$/.test(name) ? [path] : [];
  });
}

describe('table writers', () => {
  const root = resolve(__dirname, '../..');
  const src = join(root, 'src');
  const featureOf = (path: string) => relative(src, path).split(sep)[0];
  const sources = files(src).filter((path) => relative(src, path).includes(sep));

  const owners = new Map(Object.entries(TABLES_WITHOUT_ENTITY));
  for (const path of sources.filter((p) => p.endsWith('.entity.ts'))) {
    for (const [, table] of readFileSync(path, 'utf8').matchAll(
      /@Entity\(\s*(?:\{\s*name:\s*)?'([a-z_]+)'/g,
    )) {
      owners.set(table, featureOf(path));
    }
  }

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
    foreignWrites(featureOf(path), relative(root, path), readFileSync(path, 'utf8'), foreign);
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

  it("has no feature writing another feature's table", () => {
    expect([...foreign].map(([key, where]) => `${key}: ${[...new Set(where)].join(', ')}`)).toEqual(
      [],
    );
  });
});
