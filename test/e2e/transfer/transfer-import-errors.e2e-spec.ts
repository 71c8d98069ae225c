// docs/import-export.md: a bad file is refused as a whole: every error kind on its line (the CSV
// header is line 1), nothing written; an unknown column is a 400 before anything starts; an
// import racing federation upserts of the same external ids leaves one member each.
import { createTenant, type TestTenant } from '../../factories/tenants.factory';
import { networkOf, postImport, runImport } from '../../factories/transfer.factory';
import { upsertUser } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

jest.setTimeout(120_000);

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const HEADER = 'external_id,full_name,email,role,referrer_external_id,joined_at';

async function memberCount(tenant: TestTenant): Promise<number> {
  const [{ n }] = await t.db.query(
    `SELECT count(*)::int AS n FROM members m JOIN tenants x ON x.id = m.tenant_id WHERE x.slug = $1`,
    [tenant.slug],
  );
  return n;
}

describe('a bad import file', () => {
  it('reports every error kind with its line and writes nothing', async () => {
    const tenant = await createTenant(t);
    const a = await upsertUser(t, tenant.key, { external_id: 'a' });
    await upsertUser(t, tenant.key, { external_id: 'b', referrer_user_id: a.serviceUserId });
    const before = await networkOf(t, tenant.slug);
    const file = [
      HEADER, // 1
      'ok1,Fine,ok1@example.com,partner,,', // 2
      'bad-email,X,not-an-email,,,', // 3
      'bad-role,X,,president,,', // 4
      'bad-date,X,,,,yesterday', // 5
      'ok1,Again,,,,', // 6 duplicate of line 2
      'orphan,X,,,nobody,', // 7
      'c1,X,,,c2,', // 8 cycle c1 -> c2 -> c1
      'c2,X,,,c1,', // 9
      'b,X,,,ok1,', // 10: b already has referrer a
      'self,X,,,self,', // 11
      ',no id,,,,', // 12
      '"quoted, ok",X,,,,', // 13 fine
      'too,many,fields,,,,,', // 14
    ].join('\r\n');
    const result = await runImport(t, tenant.slug, file);
    expect(result.status).toBe('failed');
    expect(result.errors.map((e) => [e.line, e.code])).toEqual([
      [3, 'validation_failed'],
      [4, 'validation_failed'],
      [5, 'validation_failed'],
      [6, 'duplicate_external_id'],
      [7, 'referrer_not_found'],
      [8, 'referral_cycle'],
      [9, 'referral_cycle'],
      [10, 'referrer_conflict'],
      [11, 'referral_cycle'],
      [12, 'validation_failed'],
      [14, 'validation_failed'],
    ]);
    expect(result.error_count).toBe(11);
    expect(result.errors[0].message).toMatch(/email/);
    expect(await networkOf(t, tenant.slug)).toEqual(before);
  });

  it('counts lines of a quoted field spanning lines from where its record starts', async () => {
    const tenant = await createTenant(t);
    const file = `${HEADER}\n"x1","two\nlines",,,,\n\nx2,,bad,,,\n"x3,,,,,\n`;
    const result = await runImport(t, tenant.slug, file);
    // Line 4 is blank (skipped); the unclosed quote of line 6 fails the file from there.
    expect(result.errors).toEqual([
      expect.objectContaining({
        line: 5,
        code: 'validation_failed',
        message: 'email must be an email',
      }),
      expect.objectContaining({ line: 6, code: 'validation_failed' }),
    ]);
  });

  it('of 10,000 rows with one bad line at the end writes nothing', async () => {
    const tenant = await createTenant(t);
    const rows = Array.from(
      { length: 9_999 },
      (_, i) => `r${i},Row ${i},,,${i ? `r${Math.floor(i / 2)}` : ''},`,
    );
    const file = [HEADER, ...rows, 'last,Last,,,missing-referrer,'].join('\n');
    const result = await runImport(t, tenant.slug, file);
    expect(result).toMatchObject({ status: 'failed', rows_total: 10_000, rows_done: 0 });
    expect(result.errors).toEqual([
      expect.objectContaining({ line: 10_001, code: 'referrer_not_found' }),
    ]);
    expect(await memberCount(tenant)).toBe(0);
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM pg_tables WHERE tablename LIKE 'import_rows_%'`,
    );
    expect(n).toBe(0);
  });

  it('with an unknown column is a 400 before anything starts', async () => {
    const tenant = await createTenant(t);
    const csv = await postImport(t, tenant.slug, `external_id,nickname\nu1,x\n`);
    expect(csv.status).toBe(400);
    expect(csv.body).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'nickname', message: 'is not an import column' }],
    });
    const ndjson = await postImport(
      t,
      tenant.slug,
      '{"external_id":"u1"}\n{"external_id":"u2","vk_id":"1"}\n',
      'application/x-ndjson',
    );
    expect(ndjson.status).toBe(400);
    const noId = await postImport(t, tenant.slug, `full_name\nx\n`);
    expect(noId.status).toBe(400);
    expect(await memberCount(tenant)).toBe(0);
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM imports i JOIN tenants x ON x.id = i.tenant_id WHERE x.slug = $1`,
      [tenant.slug],
    );
    expect(n).toBe(0);
  });

  it('reports an NDJSON line that is not JSON, or a value that is not a string', async () => {
    const tenant = await createTenant(t);
    const file = '{"external_id":"u1"}\n\n{oops\n{"external_id":42}\n';
    const result = await runImport(t, tenant.slug, file, 'application/x-ndjson');
    expect(result.errors.map((e) => [e.line, e.code])).toEqual([
      [3, 'validation_failed'],
      [4, 'validation_failed'],
    ]);
  });
});

describe('an import racing federation upserts of the same external ids', () => {
  it('leaves one member each, with the tree the import asked for', async () => {
    const tenant = await createTenant(t);
    const ids = Array.from({ length: 200 }, (_, i) => `race${i}`);
    const file = [
      HEADER,
      ...ids.map((id, i) => `${id},Name ${i},,,${i ? `race${Math.floor(i / 2)}` : ''},`),
    ].join('\n');
    const upserts = ids.map((id) => upsertUser(t, tenant.key, { external_id: id, full_name: 'X' }));
    const [result] = await Promise.all([runImport(t, tenant.slug, file), ...upserts]);
    expect(result.status).toBe('succeeded');
    const network = await networkOf(t, tenant.slug);
    expect(network.map((m) => m.external_id).sort()).toEqual([...ids].sort());
    const byId = new Map(network.map((m) => [m.external_id, m]));
    for (let i = 1; i < ids.length; i++) {
      expect(byId.get(ids[i])!.referrer).toBe(`race${Math.floor(i / 2)}`);
    }
    expect(byId.get('race0')!.downline_count).toBe(199);
  });
});
