import { Client } from 'pg';
import { ensureDatabase, runMigrations } from '../../../src/database/ensure-database';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { PrivatePostgres } from '../../utils/private-postgres';
import { stopAllChildren } from '../../utils/processes';
import { scalePort } from '../../utils/scale-ports';

/**
 * docs/operations.md, DATABASE_REPLICA_URL: the Embed Data reads go to a real streaming replica (a private
 * primary and a `pg_basebackup -R` standby), and fall back to the primary when the replica lacks
 * the row (a member created a moment ago) or is unreachable (stopped).
 */
jest.setTimeout(120_000);

describe('Embed Data reads on a streaming replica', () => {
  let primary: PrivatePostgres;
  let replica: PrivatePostgres;
  let t: TestApp;
  let tenant: TestTenant;
  const DB = 'referrals_replica';

  beforeAll(async () => {
    primary = await PrivatePostgres.start(await scalePort());
    await ensureDatabase(primary.url(DB));
    await runMigrations(primary.url(DB));
    replica = await primary.replica(await scalePort());
    t = await createTestApp({
      DATABASE_URL: primary.url(DB),
      DATABASE_REPLICA_URL: replica.url(DB),
      PROCESS_ROLE: 'api',
    });
    tenant = await createTenant(t);
  });

  afterAll(async () => {
    await t?.close();
    await replica?.destroy();
    await primary?.destroy();
    await stopAllChildren();
  });

  const cabinet = (userId: string) =>
    t
      .http()
      .get(`/embed/v1/data/cabinet/${userId}?tenant=${tenant.slug}`)
      .set('Origin', `https://${tenant.slug}.example`);

  /** Runs one statement on the replica. */
  async function onReplica(sql: string): Promise<unknown[]> {
    const client = new Client({ connectionString: replica.url(DB) });
    await client.connect();
    try {
      return (await client.query(sql)).rows;
    } finally {
      await client.end();
    }
  }

  /** Waits until the replica has replayed everything the primary wrote so far. */
  async function caughtUp(): Promise<void> {
    const client = new Client({ connectionString: primary.url(DB) });
    await client.connect();
    // The insert position, not pg_current_wal_lsn() (the write position): with the private
    // primary's synchronous_commit=off, a commit may not be written yet, and the replica would
    // look caught up without the row.
    const [{ lsn }] = (await client.query('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows;
    await client.end();
    for (let i = 0; i < 200; i++) {
      const [row] = (await onReplica(
        `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`,
      )) as { done: boolean }[];
      if (row.done) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the replica did not catch up');
  }

  it('reads from the replica: with replay paused, a renamed member shows its old name', async () => {
    const user = await upsertUser(t, tenant.key, { full_name: 'Old Name' });
    await caughtUp();
    await onReplica('SELECT pg_wal_replay_pause()');
    try {
      await upsertUser(t, tenant.key, { external_id: user.externalId, full_name: 'New Name' });
      // The replica's (stale) row, so the read did go to the replica. A replica that was slow to
      // accept the first connection (a loaded machine) is skipped for REPLICA_RETRY_MS: wait that.
      const names: string[] = [];
      for (let i = 0; i < 80 && names.at(-1) !== 'Old Name'; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 100));
        const res = await cabinet(user.memberId);
        expect(res.status).toBe(200);
        names.push(res.body.user.display_name);
      }
      expect(names.at(-1)).toBe('Old Name');
      expect(new Set(names)).toEqual(
        new Set(names.length > 1 ? ['New Name', 'Old Name'] : ['Old Name']),
      );

      // A member created a moment ago, which the paused replica lacks: read from the primary.
      const fresh = await upsertUser(t, tenant.key, { full_name: 'Fresh' });
      expect(await onReplica(`SELECT 1 FROM members WHERE id = '${fresh.memberId}'`)).toEqual([]);
      const freshRes = await cabinet(fresh.memberId);
      expect({ status: freshRes.status, name: freshRes.body.user?.display_name }).toEqual({
        status: 200,
        name: 'Fresh',
      });
      // An unknown member is still a 404 problem, after both have been asked.
      const missing = await cabinet('mem_doesnotexist000000000000');
      expect({ status: missing.status, code: missing.body.code }).toEqual({
        status: 404,
        code: 'user_not_found',
      });
    } finally {
      await onReplica('SELECT pg_wal_replay_resume()');
    }
    await caughtUp();
    expect((await cabinet(user.memberId)).body.user.display_name).toBe('New Name');
  });

  it('reads from the primary while the replica is stopped, and from the replica once back', async () => {
    const user = await upsertUser(t, tenant.key, { full_name: 'Steady' });
    await replica.stop();
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => cabinet(user.memberId).then((r) => r.status)),
    );
    expect(answers).toEqual(Array(20).fill(200));
    // No read waits for the stopped replica's connect timeout over and over.
    expect(Date.now() - started).toBeLessThan(5000);
    const fresh = await upsertUser(t, tenant.key, { full_name: 'While down' });
    expect((await cabinet(fresh.memberId)).body.user.display_name).toBe('While down');

    await replica.start();
    await caughtUp();
    await onReplica('SELECT pg_wal_replay_pause()');
    try {
      await upsertUser(t, tenant.key, { external_id: user.externalId, full_name: 'Renamed' });
      // Within the retry window and a little more, reads are on the replica again (stale name).
      let name = '';
      for (let i = 0; i < 80 && name !== 'Steady'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        name = (await cabinet(user.memberId)).body.user.display_name;
      }
      expect(name).toBe('Steady');
    } finally {
      await onReplica('SELECT pg_wal_replay_resume()');
    }
  });
});
