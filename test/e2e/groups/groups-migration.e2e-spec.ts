/**
 * The Groups migration on a database that already has tenants and members (docs/partners.md,
 * "The default group"): every tenant gets its `default` group, every member is put in it, and a
 * tenant or member inserted afterwards by plain SQL (the benchmarks' seeding does) gets its
 * default group too. Run on a scratch database migrated up to the one before.
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../../src/database/migrations';
import { Groups1795791400000 } from '../../../src/database/migrations/1795791400000-Groups';
import { testEnv } from '../../utils/test-env';

const GROUP_ID = /^grp_[0-9A-HJKMNP-TV-Z]{26}$/;

describe('the Groups migration', () => {
  const url = new URL(testEnv().DATABASE_URL!);
  const name = `groups_mig_${randomBytes(4).toString('hex')}`;
  const scratch = new URL(url);
  scratch.pathname = `/${name}`;
  let admin: Client;
  let db: DataSource;

  beforeAll(async () => {
    admin = new Client({ connectionString: url.toString() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
  });
  afterAll(async () => {
    await db?.destroy();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  const tenant = (id: string, slug: string) =>
    db.query(
      `INSERT INTO tenants (id, slug, display_name, allowed_origins, program, created_at)
       VALUES ($1, $2, $2, '{}', '{}', '2026-01-02T03:04:05.678Z')`,
      [id, slug],
    );
  const member = async (tenantId: string, id: string) => {
    await db.query(`INSERT INTO service_users (id) VALUES ($1)`, [`usr_${id}`]);
    await db.query(
      `INSERT INTO members (tenant_id, id, service_user_id, external_id, root_member_id)
       VALUES ($1, $2, $3, $2, $2)`,
      [tenantId, id, `usr_${id}`],
    );
  };
  const groupsOf = () =>
    db.query(`SELECT tenant_id, id, slug, name, created_at FROM groups ORDER BY tenant_id`);

  it('gives every tenant a default group and puts every member in it', async () => {
    const index = MIGRATIONS.indexOf(Groups1795791400000);
    db = new DataSource({
      type: 'postgres',
      url: scratch.toString(),
      migrations: MIGRATIONS.slice(0, index),
      migrationsTransactionMode: 'each',
    });
    await db.initialize();
    await db.runMigrations();
    await tenant('org_a', 'tenant-a');
    await tenant('org_b', 'tenant-b');
    for (const id of ['m1', 'm2']) await member('org_a', id);
    await member('org_b', 'm3');
    await db.destroy();

    db = new DataSource({
      type: 'postgres',
      url: scratch.toString(),
      migrations: MIGRATIONS,
      migrationsTransactionMode: 'each',
    });
    await db.initialize();
    expect((await db.runMigrations()).map((m) => m.name)[0]).toBe('Groups1795791400000');

    const groups = await groupsOf();
    expect(groups).toEqual([
      expect.objectContaining({ tenant_id: 'org_a', slug: 'default', name: 'Default' }),
      expect.objectContaining({ tenant_id: 'org_b', slug: 'default', name: 'Default' }),
    ]);
    for (const g of groups) {
      expect(g.id).toMatch(GROUP_ID);
      // The id's time is the tenant's creation time, as newId would have made it then.
      expect(g.id.slice(4, 14)).toBe(ulidTime(Date.parse('2026-01-02T03:04:05.678Z')));
    }
    const members = await db.query(
      `SELECT m.id, g.slug, g.tenant_id FROM members m
         JOIN groups g ON g.tenant_id = m.tenant_id AND g.id = m.group_id ORDER BY m.id`,
    );
    expect(members).toEqual([
      { id: 'm1', slug: 'default', tenant_id: 'org_a' },
      { id: 'm2', slug: 'default', tenant_id: 'org_a' },
      { id: 'm3', slug: 'default', tenant_id: 'org_b' },
    ]);
  });

  it('a tenant inserted later gets its default group, and its new members join it', async () => {
    await tenant('org_c', 'tenant-c');
    await member('org_c', 'm4');
    const [row] = await db.query(
      `SELECT g.slug FROM members m JOIN groups g ON g.tenant_id = m.tenant_id AND g.id = m.group_id
        WHERE m.tenant_id = 'org_c'`,
    );
    expect(row).toEqual({ slug: 'default' });
    // A group of another tenant cannot be a member's.
    const [{ id: otherGroup }] = await db.query(`SELECT id FROM groups WHERE tenant_id = 'org_a'`);
    await expect(
      db.query(`UPDATE members SET group_id = $1 WHERE tenant_id = 'org_c'`, [otherGroup]),
    ).rejects.toThrow(/fk_members_group/);
    await expect(db.query(`UPDATE members SET group_id = NULL`)).rejects.toThrow(/null value/);
  });
});

function ulidTime(ms: number): string {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = alphabet[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}
