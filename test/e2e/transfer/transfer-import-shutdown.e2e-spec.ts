// docs/import-export.md "Imports at once", docs/operations.md "Stopping": SIGTERM ends the process
// within its grace period (10 s) whatever its imports do. A real service process (src/main.ts)
// has an import whose apply waits on the tenant's tree lock (held here), two import uploads and a
// payout settle file trickling their bodies; on SIGTERM it destroys the uploads (nothing of them
// is kept), cancels the apply (it ends `failed`, import_interrupted, nothing written), cuts the
// settle upload once the HTTP drain is over, and exits.
import { Client } from 'pg';
import { freePort, type ManagedChild, spawnService, stopAllChildren } from '../../utils/processes';
import { slowUpload } from '../../utils/slow-upload';
import { testEnv } from '../../utils/test-env';
import { until } from '../../utils/until';

// A start from the sources (ts-node) takes seconds, far more on a busy machine.
jest.setTimeout(240_000);

/** How long an orchestrator waits after SIGTERM before it kills (Docker's default). */
const GRACE_MS = 10_000;
const HEADER = 'external_id,referrer_external_id\n';

let db: Client;
beforeAll(async () => {
  db = new Client({ connectionString: testEnv().DATABASE_URL });
  await db.connect();
});
afterAll(async () => {
  await stopAllChildren();
  await db.end();
});

async function call(port: number, method: string, path: string, body?: string, type?: string) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${testEnv().ADMIN_TOKEN}`,
      ...(type ? { 'Content-Type': type } : {}),
    },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function createTenant(port: number) {
  const slug = `shut-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  const res = await call(
    port,
    'POST',
    '/admin/v1/tenants',
    JSON.stringify({ slug, display_name: slug, allowed_origins: [`https://${slug}.example`] }),
    'application/json',
  );
  if (res.status !== 201)
    throw new Error(`createTenant: ${res.status} ${JSON.stringify(res.body)}`);
  return { slug, orgId: res.body.org_id as string };
}

const importsOf = async (orgId: string) =>
  (
    await db.query<{ id: string; status: string; phase: string; errors: { code: string }[] }>(
      `SELECT id, status, phase, errors FROM imports WHERE tenant_id = $1 ORDER BY id`,
      [orgId],
    )
  ).rows;

describe('SIGTERM with imports in flight', () => {
  it('the process exits within the grace period; the uploads are dropped, the apply ends failed', async () => {
    const port = await freePort();
    const service: ManagedChild = spawnService('service', {
      ...testEnv(),
      PORT: String(port),
      PROCESS_ROLE: 'api',
      LOG_LEVEL: 'info',
    });
    await service.waitForOutput(/Listening on/, 180_000, "'Listening on'");

    const applying = await createTenant(port);
    const uploading = await createTenant(port);
    const blocker = new Client({ connectionString: testEnv().DATABASE_URL });
    await blocker.connect();
    const uploads: ReturnType<typeof slowUpload>[] = [];
    try {
      // The tenant's tree lock, held: the import's apply waits inside its transaction.
      await blocker.query('BEGIN');
      await blocker.query(`SELECT pg_advisory_xact_lock(hashtext('referral-tree:' || $1))`, [
        applying.orgId,
      ]);
      const posted = await call(
        port,
        'POST',
        `/admin/v1/tenants/${applying.slug}/imports`,
        `${HEADER}a-1,\na-2,a-1\n`,
        'text/csv',
      );
      expect(posted.status).toBe(202);
      await until('the apply to wait on the tree lock', async () => {
        const { rows } = await db.query(
          `SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND NOT l.granted AND a.datname = current_database()
              AND a.application_name = 'referral-service'`,
        );
        return rows.length > 0;
      });

      // Two uploads that would take a minute to arrive.
      for (const i of [0, 1]) {
        uploads.push(
          slowUpload(
            port,
            `/admin/v1/tenants/${uploading.slug}/imports`,
            { Authorization: `Bearer ${testEnv().ADMIN_TOKEN}`, 'Content-Type': 'text/csv' },
            [HEADER, ...Array.from({ length: 600 }, (_, n) => `u${i}-${n},\n`)],
            100,
          ),
        );
      }
      await until('both uploads to be staging', async () => {
        const rows = await importsOf(uploading.orgId);
        return rows.length === 2 && rows.every((r) => r.status === 'running');
      });
      // And a payout settle file trickling in too (its body is read before anything else).
      const settle = slowUpload(
        port,
        `/admin/v1/tenants/${uploading.slug}/payouts/runs/run_01M9SHUTD0WNSHUTD0WNSHUTD0/settle`,
        { Authorization: `Bearer ${testEnv().ADMIN_TOKEN}`, 'Content-Type': 'text/csv' },
        ['payout_id,amount_kopecks,reference\n', ...Array.from({ length: 600 }, () => 'x,1,r\n')],
        100,
      );
      uploads.push(settle);
      await new Promise((resolve) => setTimeout(resolve, 500));

      const signalled = Date.now();
      service.signal('SIGTERM');
      await until('the process to exit', async () => !service.running, GRACE_MS * 3);
      const took = Date.now() - signalled;
      expect({ took, exited: !service.running }).toEqual({
        took: expect.any(Number),
        exited: true,
      });
      expect(took).toBeLessThan(GRACE_MS);

      // The uploads' connections were closed before an answer: nothing of them is kept.
      for (const upload of uploads) await expect(upload.answer).rejects.toThrow();
      expect(service.logs()).not.toMatch(/import failed unexpectedly/);
      expect(await importsOf(uploading.orgId)).toEqual([]);
      // The apply was stopped and said so, before the tree lock was ever free.
      const [stopped] = await importsOf(applying.orgId);
      expect(stopped).toMatchObject({
        id: posted.body.import_id,
        status: 'failed',
        phase: 'done',
        errors: [expect.objectContaining({ code: 'import_interrupted' })],
      });
    } finally {
      for (const upload of uploads) upload.abort();
      await blocker.query('ROLLBACK').catch(() => undefined);
      await blocker.end();
      await service.kill();
    }
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM members WHERE tenant_id = $1`, [
      applying.orgId,
    ]);
    expect(rows[0].n).toBe(0);
    // Its staging table is gone (dropped by the process as it stopped the import).
    const [{ id }] = await importsOf(applying.orgId);
    const { rows: staging } = await db.query(`SELECT to_regclass($1) IS NOT NULL AS found`, [
      `import_rows_${id.slice(4).toLowerCase()}`,
    ]);
    expect(staging[0].found).toBe(false);
  });
});
