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

/** Writes of another feature's table still made, with the reason; the list only shrinks. */
const KNOWN_FOREIGN_WRITES: [string, string, string][] = [];

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

  /** "feature → table (owner): file" for every write of a table another feature owns. */
  const foreign = new Map<string, string[]>();
  for (const path of sources) {
    const writer = featureOf(path);
    for (const [, table] of readFileSync(path, 'utf8').matchAll(WRITE)) {
      const owner = owners.get(table);
      if (!owner || owner === writer) continue;
      const key = `${writer} → ${table}`;
      foreign.set(key, [...(foreign.get(key) ?? []), `${relative(root, path)} (${owner}'s)`]);
    }
  }

  it('knows the owner of the tables an entity maps', () => {
    expect(owners.get('members')).toBe('members');
    expect(owners.get('events')).toBe('outbox');
    expect(owners.get('webhook_deliveries')).toBe('webhooks');
  });

  it("has no feature writing another feature's table but the known ones", () => {
    const known = new Set(KNOWN_FOREIGN_WRITES.map(([w, t]) => `${w} → ${t}`));
    const unknown = [...foreign].filter(([key]) => !known.has(key));
    expect(unknown.map(([key, where]) => `${key}: ${[...new Set(where)].join(', ')}`)).toEqual([]);
  });

  it('lists only known writes that are still made', () => {
    const gone = KNOWN_FOREIGN_WRITES.map(([w, t]) => `${w} → ${t}`).filter(
      (key) => !foreign.has(key),
    );
    expect(gone.map((key) => `${key} is gone: take it off the list`)).toEqual([]);
  });
});
