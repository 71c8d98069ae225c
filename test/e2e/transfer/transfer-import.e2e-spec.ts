// docs/import-export.md: a member import gives exactly the network the same members upserted one by
// one would give, whatever the row order; it is idempotent; it is refused with every error kind
// on its line and then writes nothing.
import fc from 'fast-check';
import { createStaffToken, createTenant } from '../../factories/tenants.factory';
import { networkOf, postImport, runImport, waitForImport } from '../../factories/transfer.factory';
import { upsertUser } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

jest.setTimeout(120_000);

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

interface Person {
  id: string;
  referrer: string | null;
  name: string;
}

const HEADER = 'external_id,full_name,email,role,referrer_external_id,joined_at';
const csvOf = (people: Person[]) =>
  [HEADER, ...people.map((p) => `${p.id},${p.name},${p.id}@example.com,,${p.referrer ?? ''},`)]
    .join('\n')
    .concat('\n');

/** A random forest: each member's referrer is one made before it (or none). */
const forest = fc
  .array(fc.tuple(fc.nat(), fc.boolean()), { minLength: 1, maxLength: 25 })
  .map((picks) =>
    picks.map(([pick, hasReferrer], i): Person => ({
      id: `p${i}`,
      referrer: i > 0 && hasReferrer ? `p${pick % i}` : null,
      name: `Person ${i}`,
    })),
  );

/** Upserts in creation order, each with its referrer's service user id. */
async function upsertOneByOne(
  key: string,
  people: Person[],
  ids = new Map<string, string>(),
): Promise<void> {
  for (const p of people) {
    const body: Record<string, unknown> = {
      external_id: p.id,
      full_name: p.name,
      email: `${p.id}@example.com`,
    };
    if (p.referrer) body.referrer_user_id = ids.get(p.referrer);
    ids.set(p.id, (await upsertUser(t, key, body)).serviceUserId);
  }
}

describe('import into a tenant', () => {
  it('gives the network, depths and counters one-by-one upserts give, in any row order', async () => {
    await fc.assert(
      fc.asyncProperty(forest, fc.nat(), async (people, seed) => {
        const [a, b] = [await createTenant(t), await createTenant(t)];
        await upsertOneByOne(a.key, people);
        const shuffled = [...people].sort(
          (x, y) => ((x.id.length * 31 + seed) % 7) - ((y.id.length * 17 + seed) % 5) || 0,
        );
        shuffled.reverse();
        const result = await runImport(t, b.slug, csvOf(shuffled));
        expect(result).toMatchObject({ status: 'succeeded', created: people.length, errors: [] });
        expect(await networkOf(t, b.slug)).toEqual(await networkOf(t, a.slug));
      }),
      { numRuns: 8 },
    );
  });

  it('hangs existing trees under the file and the file under existing members', async () => {
    await fc.assert(
      fc.asyncProperty(forest, fc.nat({ max: 24 }), async (people, split) => {
        // The first `split` members exist already (upserted without referrers when the file gives
        // them one later), the rest come in the file; the file sets every referrer.
        const [a, b] = [await createTenant(t), await createTenant(t)];
        const cut = Math.min(split, people.length);
        const existing = people.slice(0, cut).map((p) => ({ ...p, referrer: null }));
        await upsertOneByOne(a.key, existing);
        await upsertOneByOne(b.key, existing);
        // One by one: the rest in order, then the referrers of the existing ones.
        const ids = new Map<string, string>();
        for (const p of existing) {
          ids.set(p.id, (await upsertUser(t, a.key, { external_id: p.id })).serviceUserId);
        }
        await upsertOneByOne(a.key, people.slice(cut), ids);
        for (const p of people.slice(0, cut).filter((x) => x.referrer)) {
          await upsertUser(t, a.key, { external_id: p.id, referrer_user_id: ids.get(p.referrer!) });
        }

        const result = await runImport(t, b.slug, csvOf([...people].reverse()));
        expect(result).toMatchObject({
          status: 'succeeded',
          created: people.length - cut,
          updated: people.slice(0, cut).filter((p) => p.referrer).length,
        });
        expect(await networkOf(t, b.slug)).toEqual(await networkOf(t, a.slug));
      }),
      { numRuns: 6 },
    );
  });

  it('is idempotent: the same file again leaves every row unchanged', async () => {
    const tenant = await createTenant(t);
    const people: Person[] = Array.from({ length: 30 }, (_, i) => ({
      id: `m${i}`,
      referrer: i ? `m${Math.floor(i / 3)}` : null,
      name: `M ${i}`,
    }));
    const file = csvOf(people.reverse());
    const first = await runImport(t, tenant.slug, file);
    expect(first).toMatchObject({ status: 'succeeded', created: 30, updated: 0, unchanged: 0 });
    const before = await t.db.query(
      `SELECT m.* FROM members m JOIN tenants x ON x.id = m.tenant_id AND x.slug = $1 ORDER BY m.id`,
      [tenant.slug],
    );
    const again = await runImport(t, tenant.slug, file);
    expect(again).toMatchObject({
      status: 'succeeded',
      rows_total: 30,
      rows_done: 30,
      created: 0,
      updated: 0,
      unchanged: 30,
    });
    const after = await t.db.query(
      `SELECT m.* FROM members m JOIN tenants x ON x.id = m.tenant_id AND x.slug = $1 ORDER BY m.id`,
      [tenant.slug],
    );
    expect(after).toEqual(before);
  });

  it('reads NDJSON, keeps joined_at and role, and reports a changed field as updated', async () => {
    const tenant = await createTenant(t);
    const lines = [
      { external_id: 'n1', full_name: 'Root', role: 'leader', joined_at: '2024-03-01T10:00:00Z' },
      { external_id: 'n2', referrer_external_id: 'n1', email: null },
    ];
    const file = lines.map((l) => JSON.stringify(l)).join('\n');
    const result = await runImport(t, tenant.slug, file, 'application/x-ndjson');
    expect(result).toMatchObject({ status: 'succeeded', created: 2 });
    const [root] = await t.db.query(
      `SELECT m.role, m.created_at FROM members m JOIN tenants x ON x.id = m.tenant_id
        WHERE x.slug = $1 AND m.external_id = 'n1'`,
      [tenant.slug],
    );
    expect(root.role).toBe('leader');
    expect(new Date(root.created_at).toISOString()).toBe('2024-03-01T10:00:00.000Z');
    const changed = await runImport(
      t,
      tenant.slug,
      JSON.stringify({ external_id: 'n2', full_name: 'Renamed' }),
      'application/x-ndjson',
    );
    expect(changed).toMatchObject({ status: 'succeeded', updated: 1, unchanged: 0 });
  });

  it('is for the owner or the platform only, and takes only CSV or NDJSON', async () => {
    const tenant = await createTenant(t);
    const manager = await createStaffToken(t, tenant.slug, 'manager');
    const owner = await createStaffToken(t, tenant.slug, 'owner');
    const file = `${HEADER}\nx1,,,,,\n`;
    expect((await postImport(t, tenant.slug, file, 'text/csv', manager)).status).toBe(403);
    const byOwner = await postImport(t, tenant.slug, file, 'text/csv', owner);
    expect(byOwner.status).toBe(202);
    expect(byOwner.body.status).toBe('running');
    await waitForImport(t, tenant.slug, byOwner.body.import_id as string);
    const json = await postImport(t, tenant.slug, '{"external_id":"x"}', 'application/json');
    expect(json).toMatchObject({ status: 415, body: { code: 'unsupported_media_type' } });
    const other = await createTenant(t);
    const res = await t
      .http()
      .get(`/admin/v1/tenants/${other.slug}/imports/${byOwner.body.import_id as string}`)
      .set('Authorization', `Bearer ${t.adminToken}`);
    expect(res.status).toBe(404);
  });
});
