/**
 * The values looked up before the tenant is known (docs/operations.md): a Federation API key's hash, a staff
 * token's hash, a short link's code. Each is unique across tenants by `tenant_lookups`' primary
 * key (kind, value) and names its tenant, so the tenant-owned tables keep `tenant_id` in every
 * unique index and can be sharded by tenant, with `tenant_lookups` as a reference table
 * (docs/operations.md, "A tenant-sharded PostgreSQL").
 */
export type LookupKind = 'tenant_key' | 'staff_token' | 'short_code';

/** The constraint a value already taken (by any tenant) violates. */
export const LOOKUP_TAKEN = 'pk_tenant_lookups';

/**
 * The last part of a statement that claims, in that same statement, the values a data-modifying
 * CTE answers (`cte`, with the columns `tenant_id` and `column`), and answers them as `value`. A
 * value already taken raises 23505 on LOOKUP_TAKEN, and the whole statement, the CTE's insert
 * with it, writes nothing. This feature owns the table; a feature that mints such values (short
 * link codes) writes its row and their claim in one statement with it (deeplinks.repository.ts).
 */
export function claimLookupsFrom(kind: LookupKind, cte: string, column: string): string {
  return `INSERT INTO tenant_lookups (kind, value, tenant_id)
         SELECT '${kind}', ${column}, tenant_id FROM ${cte} RETURNING value`;
}
