/**
 * How the schema is sharded by tenant on a distributed PostgreSQL such as Citus (docs/operations.md,
 * docs/operations.md "A tenant-sharded PostgreSQL"). Every table not named here is tenant-owned:
 * it has `tenant_id` in its primary key and in every unique index, and its foreign keys to other
 * tenant-owned tables include `tenant_id`, so it is distributed by `tenant_id` and co-located with
 * the others. The tables named here are not owned by one tenant; each says what it becomes.
 * test/e2e/database/schema-shardable.e2e-spec.ts checks both on plain PostgreSQL.
 */
export const GLOBAL_TABLES: Record<string, 'reference' | 'local'> = {
  /** Tenants themselves: a reference table (copied to every node), read by every request. */
  tenants: 'reference',
  /** A person across tenants (a service user, docs/money.md): a reference table. */
  service_users: 'reference',
  /** Values looked up before the tenant is known (key and token hashes, short codes). */
  tenant_lookups: 'reference',
  /** Console sign-ins of staff and of the platform admin (who belongs to no tenant). */
  admin_sessions: 'reference',
  /** TypeORM's record of applied migrations, kept on the coordinator. */
  migrations: 'local',
};

/** Import staging tables (`import_rows_<id>`), made and dropped by one import on the coordinator. */
export const TRANSIENT_TABLE = /^import_rows_/;
