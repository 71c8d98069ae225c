// docs/import-export.md, "Limits": a line of an import file is at most 1 MiB and a CSV record has
// at most 100 fields; either refuses the file with a 400 naming the line as soon as it is seen,
// without the event loop stalling for anyone else (issue #32, item 5), and a problem document
// lists at most 50 unknown columns with `error_count` (item 6g).
import { createTenant, type TestTenant } from '../../factories/tenants.factory';
import { postImport, runImport, waitForImport } from '../../factories/transfer.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { streamPost } from '../../utils/stream-post';

jest.setTimeout(180_000);

const MiB = 1024 * 1024;
/**
 * What "the event loop never waits" means here, in ms: never held longer than 500 ms by the
 * process's own work (StreamedAnswer.maxHeldMs; process.cpuUsage counts every thread of the
 * process, the garbage collector's helpers too, so a tick's figure may exceed its wall time: a CI
 * run saw 225 ms for the 16 MiB line of commas), and no tick later than 5 s however loaded the
 * shared 2-core machine is (at a load of 16 it delays every tick of any request by 200-800 ms,
 * which is why the delay itself is bounded loosely). Before the limits the settle file held the
 * loop 20 s in one piece, and the NDJSON line kept it busy for ~48 s.
 */
const MAX_HELD_MS = 500;
const MAX_DELAY_MS = 5000;

let t: TestApp;
let tenant: TestTenant;
beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t);
  // The route's first run (connections, compiled code) is not what is measured.
  await runImport(t, tenant.slug, '{"external_id":"warm-up"}\n', 'application/x-ndjson');
});
afterAll(() => t.close());

const post = (body: Buffer, type: string) =>
  streamPost(
    t,
    `/admin/v1/tenants/${tenant.slug}/imports`,
    { Authorization: `Bearer ${t.adminToken}`, 'Content-Type': type },
    body,
  );

async function importsKept(): Promise<number> {
  const [{ n }] = await t.db.query(
    `SELECT count(*)::int AS n FROM imports i JOIN tenants x ON x.id = i.tenant_id WHERE x.slug = $1`,
    [tenant.slug],
  );
  return n;
}

describe('an NDJSON line over 1 MiB', () => {
  it('of 40 MB is refused (400, its line named) with the event loop never waiting', async () => {
    const before = await importsKept();
    const body = Buffer.concat([
      Buffer.from('{"external_id":"u1"}\n\n{"external_id":"'),
      Buffer.alloc(40 * MiB, 'x'),
      Buffer.from('"}\n{"external_id":"u2"}\n'),
    ]);
    const res = await post(body, 'application/x-ndjson');
    expect(res.maxHeldMs).toBeLessThan(MAX_HELD_MS);
    expect(res.maxDelayMs).toBeLessThan(MAX_DELAY_MS);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'line 3', message: expect.stringContaining('1 MiB') }],
    });
    expect(await importsKept()).toBe(before);
  });

  it('is refused at 1 MiB + 1 byte, and a line of exactly 1 MiB is read', async () => {
    const line = (bytes: number) => {
      const head = '{"external_id":"';
      return `${head}${'y'.repeat(bytes - head.length - 2)}"}`;
    };
    const over = await postImport(t, tenant.slug, `${line(MiB + 1)}\n`, 'application/x-ndjson');
    expect(over.status).toBe(400);
    expect(over.body.errors).toEqual([{ field: 'line 1', message: expect.any(String) }]);
    // Read, and refused as a row like any over-long value: the import runs and fails.
    const exact = await runImport(t, tenant.slug, `${line(MiB)}\n`, 'application/x-ndjson');
    expect(exact.errors).toEqual([
      expect.objectContaining({ line: 1, message: expect.stringMatching(/at most 128/) }),
    ]);
  });

  it('keeps lines cut anywhere between chunks, multi-byte characters included', async () => {
    const rows = Array.from(
      { length: 3000 },
      (_, i) => `{"external_id":"ü-${i}","full_name":"Jörg ${i}"}`,
    );
    // 7-byte pieces: every line and most characters are cut somewhere.
    const res = await streamPost(
      t,
      `/admin/v1/tenants/${tenant.slug}/imports`,
      { Authorization: `Bearer ${t.adminToken}`, 'Content-Type': 'application/x-ndjson' },
      Buffer.from(rows.join('\n')),
      7,
    );
    expect(res.status).toBe(202);
    const done = await waitForImport(t, tenant.slug, res.body.import_id as string);
    expect(done).toMatchObject({ status: 'succeeded', created: 3000 });
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM members m JOIN tenants x ON x.id = m.tenant_id
        WHERE x.slug = $1 AND m.full_name LIKE 'Jörg %' AND m.external_id LIKE 'ü-%'`,
      [tenant.slug],
    );
    expect(n).toBe(3000);
  });
});

describe('a CSV file', () => {
  it('with a 16 MiB line of commas is refused at its 101st field, the event loop never waiting', async () => {
    const commas = Buffer.concat([
      Buffer.from('external_id'),
      Buffer.alloc(16 * MiB, ','),
      Buffer.from('\nu1\n'),
    ]);
    const res = await post(commas, 'text/csv');
    expect(res.maxHeldMs).toBeLessThan(MAX_HELD_MS);
    expect(res.maxDelayMs).toBeLessThan(MAX_DELAY_MS);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'line 1', message: expect.stringContaining('100 fields') }],
    });
  });

  it('with a record over 1 MiB is refused, naming the line it starts on', async () => {
    const file = `external_id,full_name\nu1,"two\nlines"\nu2,${'z'.repeat(MiB + 10)}\n`;
    const res = await postImport(t, tenant.slug, file);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { field: 'line 4', message: expect.stringContaining('1 MiB') },
    ]);
  });
});

describe('a problem document listing unknown columns', () => {
  it('lists the first 50 (each cut to 64 characters) and says how many there were', async () => {
    const names = Array.from({ length: 99 }, (_, i) => `col${i}_${'n'.repeat(200)}`);
    const csv = await postImport(t, tenant.slug, `external_id,${names.join(',')}\nu1\n`);
    expect(csv.status).toBe(400);
    const errors = csv.body.errors as { field: string }[];
    expect(errors).toHaveLength(50);
    expect(csv.body.error_count).toBe(99);
    expect(errors[0].field).toBe(`col0_${'n'.repeat(59)}…`);
    // NDJSON: 20,000 unknown keys in one line under 1 MiB; the answer stays small.
    const keys = Object.fromEntries(
      Array.from({ length: 20_000 }, (_, i) => [`k${i}_${'q'.repeat(30)}`, 'v']),
    );
    const ndjson = await postImport(
      t,
      tenant.slug,
      `${JSON.stringify({ external_id: 'u1', ...keys })}\n`,
      'application/x-ndjson',
    );
    expect(ndjson.status).toBe(400);
    expect(ndjson.body.errors).toHaveLength(50);
    expect(ndjson.body.error_count).toBe(20_000);
    expect(JSON.stringify(ndjson.body).length).toBeLessThan(8 * 1024);
  });
});
