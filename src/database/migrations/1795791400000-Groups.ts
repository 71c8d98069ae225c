import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Partner groups (docs/partners.md): a group per tenant slug, tenant-first keys like every table.
 * Every tenant gets its `default` group (existing ones here, new ones by a trigger, in the statement
 * that creates the tenant), and every member belongs to exactly one group of their tenant: `members.group_id`
 * is NOT NULL and references the tenant's group, existing members start in `default`.
 *
 * A member inserted without a group (a new member of the upsert or the import, or any writer that
 * does not know of groups) is put in the tenant's `default` group by a trigger. Its WHEN clause is
 * checked without calling the function, so a writer that names the group pays nothing for it.
 */
export class Groups1795791400000 implements MigrationInterface {
  name = 'Groups1795791400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE groups (
        tenant_id text NOT NULL,
        id text NOT NULL,
        slug text NOT NULL,
        name text NOT NULL,
        program jsonb,
        signup jsonb NOT NULL DEFAULT '{"enabled": false, "auto_approve": false, "fields": []}',
        promote_to jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_groups PRIMARY KEY (tenant_id, id),
        CONSTRAINT uq_groups_slug UNIQUE (tenant_id, slug),
        CONSTRAINT fk_groups_tenant FOREIGN KEY (tenant_id) REFERENCES tenants (id))`);
    // A group id made in SQL: grp_ and a ULID of the given time (10 characters of milliseconds,
    // 16 random), the format newId makes.
    await queryRunner.query(`
      CREATE FUNCTION groups_new_id(at timestamptz) RETURNS text LANGUAGE sql VOLATILE AS $$
        SELECT 'grp_'
          || (SELECT string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ',
                        (((extract(epoch FROM at) * 1000)::bigint >> (5 * (9 - i))) & 31)::int + 1,
                        1), '' ORDER BY i)
                FROM generate_series(0, 9) i)
          || (SELECT string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ',
                        floor(random() * 32)::int + 1, 1), '')
                FROM generate_series(1, 16))
      $$`);
    // Every tenant has its default group from the statement that creates it, whoever inserts it
    // (TenantsService.create, the benchmarks' seeding).
    await queryRunner.query(`
      CREATE FUNCTION tenants_default_group() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO groups (tenant_id, id, slug, name, created_at, updated_at)
        VALUES (NEW.id, groups_new_id(NEW.created_at), 'default', 'Default', NEW.created_at,
                NEW.created_at);
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER tenants_default_group AFTER INSERT ON tenants
        FOR EACH ROW EXECUTE FUNCTION tenants_default_group()`);
    await queryRunner.query(`
      INSERT INTO groups (tenant_id, id, slug, name, created_at, updated_at)
      SELECT id, groups_new_id(created_at), 'default', 'Default', created_at, created_at
        FROM tenants`);
    await queryRunner.query(`ALTER TABLE members ADD group_id text`);
    await queryRunner.query(`
      UPDATE members m SET group_id = g.id
        FROM groups g WHERE g.tenant_id = m.tenant_id AND g.slug = 'default'`);
    await queryRunner.query(`ALTER TABLE members ALTER COLUMN group_id SET NOT NULL`);
    await queryRunner.query(`
      ALTER TABLE members ADD CONSTRAINT fk_members_group
        FOREIGN KEY (tenant_id, group_id) REFERENCES groups (tenant_id, id)`);
    // A group's members: members_count, and the foreign key's checks when a group changes.
    await queryRunner.query(`CREATE INDEX ix_members_group ON members (tenant_id, group_id)`);
    await queryRunner.query(`
      CREATE FUNCTION members_default_group() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        SELECT g.id INTO NEW.group_id FROM groups g
         WHERE g.tenant_id = NEW.tenant_id AND g.slug = 'default';
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER members_default_group BEFORE INSERT ON members
        FOR EACH ROW WHEN (NEW.group_id IS NULL) EXECUTE FUNCTION members_default_group()`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER members_default_group ON members`);
    await queryRunner.query(`DROP FUNCTION members_default_group()`);
    await queryRunner.query(`DROP TRIGGER tenants_default_group ON tenants`);
    await queryRunner.query(`DROP FUNCTION tenants_default_group()`);
    await queryRunner.query(`ALTER TABLE members DROP COLUMN group_id`);
    await queryRunner.query(`DROP TABLE groups`);
    await queryRunner.query(`DROP FUNCTION groups_new_id(timestamptz)`);
  }
}
