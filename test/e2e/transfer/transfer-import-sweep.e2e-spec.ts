// docs/import-export.md: an import whose process dies mid-import must not stay `running` for ever. A real CLI
// import runs as a child process and is killed with SIGKILL in the middle of its apply; the sweep
// then ends it `failed` (import_interrupted, nothing written), and drops its staging table. An
// import whose process is alive is never swept, however long it takes.
import { execFile, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from 'pg';
import { ImportsService } from '../../../src/transfer/imports.service';
import { createTenant } from '../../factories/tenants.factory';
import { waitForImport } from '../../factories/transfer.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { entryArgs } from '../../utils/service-entry';
import { testEnv } from '../../utils/test-env';

// A CLI start from the sources (ts-node) takes seconds, far more on a busy machine.
jest.setTimeout(400_000);

const ROOT = resolve(__dirname, '../../..');

let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await createTestApp();
  dir = mkdtempSync(join(tmpdir(), 'transfer-sweep-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

interface ImportRow {
  id: string;
  status: string;
  phase: string;
}
const importsOf = (orgId: string) =>
  t.db.query<ImportRow[]>(`SELECT id, status, phase FROM imports WHERE tenant_id = $1`, [orgId]);
const stagingExists = async (importId: string) =>
  (
    await t.db.query(`SELECT to_regclass($1) IS NOT NULL AS found`, [
      `import_rows_${importId.slice(4).toLowerCase()}`,
    ])
  )[0].found as boolean;
const membersOf = async (orgId: string) =>
  (await t.db.query(`SELECT count(*)::int AS n FROM members WHERE tenant_id = $1`, [orgId]))[0]
    .n as number;

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 300_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

describe('abandoned imports', () => {
  it('a CLI import killed mid-apply ends failed at the next sweep, with nothing written', async () => {
    const tenant = await createTenant(t);
    const file = join(dir, 'members.csv');
    const rows = Array.from({ length: 200 }, (_, i) => `k${i},${i ? `k${i - 1}` : ''}`);
    writeFileSync(file, ['external_id,referrer_external_id', ...rows].join('\n'));

    // Hold the tenant's tree lock, so the child's apply waits in the middle of its transaction.
    const blocker = new Client({ connectionString: testEnv().DATABASE_URL });
    await blocker.connect();
    let child: ChildProcess | undefined;
    let running: ImportRow | undefined;
    try {
      await blocker.query('BEGIN');
      await blocker.query(`SELECT pg_advisory_xact_lock(hashtext('referral-tree:' || $1))`, [
        tenant.orgId,
      ]);
      child = execFile(
        process.execPath,
        [...entryArgs('cli'), 'import', '--tenant', tenant.slug, file],
        { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...testEnv() } },
      );
      const exited = once(child, 'exit');
      running = await until('the import to wait in its apply', async () => {
        const [row] = await importsOf(tenant.orgId);
        return row?.phase === 'checking' ? row : undefined;
      });
      expect(running.status).toBe('running');

      // Its process is alive (it holds the owner lock): not swept, however old the row is.
      await t.db.query(
        `UPDATE imports SET updated_at = now() - interval '1 day' WHERE tenant_id = $1`,
        [tenant.orgId],
      );
      expect(await t.app.get(ImportsService).sweepAbandoned()).toBe(0);
      expect((await importsOf(tenant.orgId))[0].status).toBe('running');

      child.kill('SIGKILL');
      await exited;
      // PostgreSQL ends the dead process's idle owner connection (and its lock) at once.
      await until('the sweep to fail the import', async () =>
        (await t.app.get(ImportsService).sweepAbandoned()) === 1 ? true : undefined,
      );
    } finally {
      child?.kill('SIGKILL');
      await blocker.query('ROLLBACK').catch(() => undefined);
      await blocker.end();
    }

    const importId = running.id;
    const status = await waitForImport(t, tenant.slug, importId);
    expect(status).toMatchObject({
      status: 'failed',
      phase: 'done',
      rows_done: 0,
      created: 0,
      error_count: 1,
      errors: [{ line: 0, code: 'import_interrupted', message: expect.stringContaining('again') }],
    });
    expect(status).toHaveProperty('finished_at', expect.any(String));
    expect(await membersOf(tenant.orgId)).toBe(0);
    // The dead process's apply backend ends once it finds its client gone; the next sweep drops
    // the staging table it held.
    await until(
      'the staging table to be dropped',
      async () => {
        await t.app.get(ImportsService).sweepAbandoned();
        return (await stagingExists(importId)) ? undefined : true;
      },
      60_000,
    );
    // A second sweep changes nothing.
    expect(await t.app.get(ImportsService).sweepAbandoned()).toBe(0);
    expect((await importsOf(tenant.orgId))[0].status).toBe('failed');
  });

  it('an import still staging in a live process is left alone, then succeeds', async () => {
    const tenant = await createTenant(t);
    const imports = t.app.get(ImportsService);
    const body = new PassThrough();
    body.write('external_id,referrer_external_id\nlive-1,\n');
    const staged = imports.stage(tenant.orgId, 'csv', body, { type: 'platform', name: 'test' });
    let row: ImportRow;
    try {
      // The row is written before its staging table is created: wait for both.
      row = await until('the import row and its staging table', async () => {
        const [found] = await importsOf(tenant.orgId);
        return found && (await stagingExists(found.id)) ? found : undefined;
      });
      await t.db.query(`UPDATE imports SET updated_at = now() - interval '1 day' WHERE id = $1`, [
        row.id,
      ]);
      expect(await imports.sweepAbandoned()).toBe(0);
      expect(await stagingExists(row.id)).toBe(true);
    } finally {
      // Always ends the body: a stage left mid-COPY would hold its connection past the app's close.
      body.end('live-2,live-1\n');
    }
    const { importId, checker } = await staged;
    expect(importId).toBe(row.id);
    const done = await imports.apply(tenant.orgId, importId, checker, {
      type: 'platform',
      name: 'test',
    });
    expect(done).toMatchObject({ status: 'succeeded', created: 2, errors: [] });
    expect(await imports.sweepAbandoned()).toBe(0);
    expect(await membersOf(tenant.orgId)).toBe(2);
  });
});
