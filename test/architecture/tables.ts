import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/**
 * Who owns each table, read from the sources (table-writers.spec.ts, read-model.spec.ts): the
 * feature whose entity names it (`@Entity('…')`), or the one below for tables no entity maps.
 */
export const TABLES_WITHOUT_ENTITY: Record<string, string> = {
  tenant_lookups: 'tenants',
  ledger_entries: 'payouts',
  ledger_balances: 'payouts',
  clawbacks: 'payouts',
  payout_claims: 'payouts',
  webhook_endpoint_slots: 'webhooks',
  // The console's rollups, kept by the triggers of the ConsoleRollups migration.
  stats_daily: 'console',
  stats_partner_daily: 'console',
  stats_partner_totals: 'console',
  imports: 'transfer',
  // The partner portal's daily activity, kept by the triggers of the PortalActivity migration.
  portal_activity_daily: 'portal',
  // Members' own sales per day, kept by the triggers of the PersonalSales migration.
  personal_sales_daily: 'conversions',
};

/** The statements that write a table, and the table they write. */
export const WRITE =
  /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?)\s+"?([a-z_]+)"?/g;

/** The non-test TypeScript files below `dir`, migrations left out. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'migrations' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(name) && !/\.spec\.tsx?$/.test(name) ? [path] : [];
  });
}

/** The folder under src/ a file is in: its feature. */
export const featureOf = (src: string, path: string) => relative(src, path).split(sep)[0];

/** Table → owning feature, from the entities below `src` and TABLES_WITHOUT_ENTITY. */
export function tableOwners(src: string, sources: string[]): Map<string, string> {
  const owners = new Map(Object.entries(TABLES_WITHOUT_ENTITY));
  for (const path of sources.filter((p) => p.endsWith('.entity.ts'))) {
    for (const [, table] of readFileSync(path, 'utf8').matchAll(
      /@Entity\(\s*(?:\{\s*name:\s*)?'([a-z_]+)'/g,
    )) {
      owners.set(table, featureOf(src, path));
    }
  }
  return owners;
}
