import { createHash } from 'node:crypto';
import { GLOBAL_TABLES, TRANSIENT_TABLE } from '../../../src/database/sharding';
import { createLink } from '../../factories/fraud.factory';
import { createStaffToken, createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

/**
 * docs/operations.md: the schema is shardable by tenant (Citus). Checked on the migrated test database with
 * the catalog: every tenant-owned table has `tenant_id` (NOT NULL) in its primary key and in every
 * unique index, its foreign keys to other tenant-owned tables carry `tenant_id` on both sides, and
 * no global table (src/database/sharding.ts) points at a tenant-owned one. The same checks run on a
 * scratch schema holding each mistake once, so the test is seen to fail on them.
 */
describe('a schema shardable by tenant', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.db.query('DROP SCHEMA IF EXISTS shard_probe CASCADE');
    await t.close();
  });

  interface Table {
    name: string;
    tenantId: 'not null' | 'nullable' | 'missing';
    primaryKey: string[] | null;
    uniques: { name: string; columns: string[] }[];
    foreignKeys: { name: string; columns: string[]; to: string; toColumns: string[] }[];
  }

  /** The tables of `schema` as the catalog has them. */
  async function tablesOf(schema: string): Promise<Table[]> {
    const rows: {
      name: string;
      tenant_id: Table['tenantId'];
      indexes: { name: string; primary: boolean; columns: (string | null)[] }[];
      fks: Table['foreignKeys'];
    }[] = await t.db.query(
      `SELECT c.relname AS name,
              CASE WHEN a.attname IS NULL THEN 'missing'
                   WHEN a.attnotnull THEN 'not null' ELSE 'nullable' END AS tenant_id,
              (SELECT coalesce(json_agg(json_build_object(
                        'name', ic.relname, 'primary', i.indisprimary,
                        -- an expression column (0) shows as null
                        'columns', (SELECT json_agg(ka.attname ORDER BY k.ord)
                                      FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(num, ord)
                                      LEFT JOIN pg_attribute ka
                                        ON ka.attrelid = c.oid AND ka.attnum = k.num))), '[]')
                 FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
                WHERE i.indrelid = c.oid AND i.indisunique) AS indexes,
              (SELECT coalesce(json_agg(json_build_object(
                        'name', f.conname, 'to', tc.relname,
                        'columns', (SELECT json_agg(fa.attname ORDER BY k.ord)
                                      FROM unnest(f.conkey) WITH ORDINALITY k(num, ord)
                                      JOIN pg_attribute fa
                                        ON fa.attrelid = f.conrelid AND fa.attnum = k.num),
                        'toColumns', (SELECT json_agg(ta.attname ORDER BY k.ord)
                                        FROM unnest(f.confkey) WITH ORDINALITY k(num, ord)
                                        JOIN pg_attribute ta
                                          ON ta.attrelid = f.confrelid AND ta.attnum = k.num))), '[]')
                 FROM pg_constraint f JOIN pg_class tc ON tc.oid = f.confrelid
                WHERE f.conrelid = c.oid AND f.contype = 'f') AS fks
         FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace
         LEFT JOIN pg_attribute a
           ON a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND NOT c.relispartition
        ORDER BY c.relname`,
      [schema],
    );
    return rows
      .filter((row) => !TRANSIENT_TABLE.test(row.name))
      .map((row) => ({
        name: row.name,
        tenantId: row.tenant_id,
        primaryKey: (row.indexes.find((i) => i.primary)?.columns ?? null) as string[] | null,
        uniques: row.indexes
          .filter((i) => !i.primary)
          .map((i) => ({ name: i.name, columns: i.columns.map((c) => c ?? '(expression)') })),
        foreignKeys: row.fks,
      }));
  }

  /** Every way `tables` fall short of docs/operations.md, in words; empty when shardable. */
  function violations(tables: Table[], global: Record<string, unknown>): string[] {
    const found: string[] = [];
    const isGlobal = (name: string) => Object.hasOwn(global, name);
    for (const table of tables) {
      if (isGlobal(table.name)) {
        for (const fk of table.foreignKeys) {
          if (!isGlobal(fk.to)) {
            found.push(`${table.name}: global table references tenant-owned ${fk.to} (${fk.name})`);
          }
        }
        continue;
      }
      if (table.tenantId !== 'not null') {
        found.push(`${table.name}: tenant_id is ${table.tenantId}`);
      }
      if (!table.primaryKey?.includes('tenant_id')) {
        found.push(
          `${table.name}: primary key (${table.primaryKey?.join(',') ?? 'none'}) lacks tenant_id`,
        );
      }
      for (const unique of table.uniques) {
        if (!unique.columns.includes('tenant_id')) {
          found.push(
            `${table.name}: unique index ${unique.name} (${unique.columns.join(',')}) lacks tenant_id`,
          );
        }
      }
      for (const fk of table.foreignKeys) {
        if (isGlobal(fk.to)) continue; // to a reference table: allowed from any node
        const at = fk.columns.indexOf('tenant_id');
        if (at < 0 || fk.toColumns[at] !== 'tenant_id') {
          found.push(`${table.name}: foreign key ${fk.name} to ${fk.to} is not by tenant_id`);
        }
      }
    }
    return found;
  }

  it('holds for every table of the migrated schema, and every table is classified', async () => {
    const tables = await tablesOf('public');
    expect(tables.length).toBeGreaterThan(20);
    expect(violations(tables, GLOBAL_TABLES)).toEqual([]);
    // A global table that no longer exists would make the list lie.
    const names = new Set(tables.map((table) => table.name));
    expect(Object.keys(GLOBAL_TABLES).filter((name) => !names.has(name))).toEqual([]);
  });

  it('catches each mistake once, on a scratch schema', async () => {
    await t.db.query(`DROP SCHEMA IF EXISTS shard_probe CASCADE; CREATE SCHEMA shard_probe;
      CREATE TABLE shard_probe.tenants (id text PRIMARY KEY);
      CREATE TABLE shard_probe.good (tenant_id text NOT NULL REFERENCES shard_probe.tenants,
        id text, code text, PRIMARY KEY (tenant_id, id));
      CREATE UNIQUE INDEX good_code ON shard_probe.good (tenant_id, lower(code));
      CREATE TABLE shard_probe.no_tenant (id text PRIMARY KEY);
      CREATE TABLE shard_probe.nullable (tenant_id text, id text, UNIQUE (tenant_id, id));
      CREATE TABLE shard_probe.global_unique (tenant_id text NOT NULL, id text, code text,
        PRIMARY KEY (tenant_id, id));
      CREATE UNIQUE INDEX global_code ON shard_probe.global_unique (code);
      CREATE TABLE shard_probe.loose_fk (tenant_id text NOT NULL, id text, good_id text,
        PRIMARY KEY (tenant_id, id));
      ALTER TABLE shard_probe.good ADD UNIQUE (id);
      ALTER TABLE shard_probe.loose_fk ADD CONSTRAINT loose FOREIGN KEY (good_id)
        REFERENCES shard_probe.good (id);
      ALTER TABLE shard_probe.tenants ADD good_tenant text, ADD good_id text,
        ADD CONSTRAINT to_owned FOREIGN KEY (good_tenant, good_id) REFERENCES shard_probe.good;`);
    expect(violations(await tablesOf('shard_probe'), { tenants: 'reference' }).sort()).toEqual(
      [
        'good: unique index good_id_key (id) lacks tenant_id',
        'global_unique: unique index global_code (code) lacks tenant_id',
        'loose_fk: foreign key loose to good is not by tenant_id',
        'no_tenant: primary key (id) lacks tenant_id',
        'no_tenant: tenant_id is missing',
        'nullable: primary key (none) lacks tenant_id',
        'nullable: tenant_id is nullable',
        'tenants: global table references tenant-owned good (to_owned)',
      ].sort(),
    );
  });

  describe('the global lookups', () => {
    let tenant: TestTenant;

    beforeAll(async () => {
      tenant = await createTenant(t);
    });

    const lookup = async (kind: string, value: string) => {
      const rows: { tenant_id: string }[] = await t.db.query(
        'SELECT tenant_id FROM tenant_lookups WHERE kind = $1 AND value = $2',
        [kind, value],
      );
      return rows.map((row) => row.tenant_id);
    };

    it('name the tenant of each key, staff token and short code, and the credentials work through them', async () => {
      const staff = await createStaffToken(t, tenant.slug, 'viewer');
      const member = await upsertUser(t, tenant.key, { full_name: 'Linked' });
      const link = await createLink(t, tenant, member);
      const hash = (secret: string) => createHash('sha256').update(secret).digest('hex');
      expect(await lookup('tenant_key', hash(tenant.key))).toEqual([tenant.orgId]);
      expect(await lookup('staff_token', hash(staff))).toEqual([tenant.orgId]);
      expect(await lookup('short_code', link.code)).toEqual([tenant.orgId]);

      const asStaff = await t
        .http()
        .get(`/admin/v1/tenants/${tenant.slug}`)
        .set('Authorization', `Bearer ${staff}`);
      expect(asStaff.status).toBe(200);
      expect((await t.http().get(`/s/${link.code}`)).status).toBe(302);
    });

    it('keep a short code unique across tenants: another tenant cannot hold the same code', async () => {
      const member = await upsertUser(t, tenant.key, { full_name: 'Holder' });
      const link = await createLink(t, tenant, member, { recommendation_text: 'taken' });
      const other = await createTenant(t);
      await expect(
        t.db.query(
          `INSERT INTO tenant_lookups (kind, value, tenant_id) VALUES ('short_code', $1, $2)`,
          [link.code, other.orgId],
        ),
      ).rejects.toMatchObject({ driverError: { code: '23505', constraint: 'pk_tenant_lookups' } });
    });
  });
});
