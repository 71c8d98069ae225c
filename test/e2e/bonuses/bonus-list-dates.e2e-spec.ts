import type { Response } from 'supertest';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser, UpsertedMember } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

/**
 * The admin bonus list's creation-time window (README.md): `created_from` inclusive,
 * `created_to` exclusive, alone or together, at the exact boundaries. The bonuses' `created_at`
 * are set in the database, so every boundary is hit to the millisecond (and below it).
 */

function expectProblem(res: Response, status: number, code: string) {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
}

/** Each bonus's stored `created_at` (PostgreSQL keeps microseconds). */
const STORED = {
  oct31Last: '2026-10-31 23:59:59.999+00',
  nov1: '2026-11-01 00:00:00+00',
  nov1Micro: '2026-11-01 00:00:00.0005+00',
  nov15Noon: '2026-11-15 12:00:00+00',
  nov30Last: '2026-11-30 23:59:59.999+00',
  dec1: '2026-12-01 00:00:00+00',
  dec1Plus1ms: '2026-12-01 00:00:00.001+00',
} as const;
type Name = keyof typeof STORED;
const ALL = Object.keys(STORED) as Name[];

describe('admin bonus list: created_from inclusive, created_to exclusive (README.md)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let partner: UpsertedMember;
  let other: UpsertedMember;
  /** Bonus id → name, and name → bonus id. */
  const names = new Map<string, Name>();
  const ids = {} as Record<Name, string>;

  const list = (query: string) =>
    t
      .http()
      .get(`/admin/v1/tenants/${tenant.slug}/bonuses?page_size=100${query}`)
      .set('Authorization', `Bearer ${t.adminToken}`);

  /** The names of the bonuses listed, in the order listed (newest first). */
  async function listed(query: string): Promise<Name[]> {
    const res = await list(query);
    if (res.status !== 200) throw new Error(`${query}: ${res.status} ${JSON.stringify(res.body)}`);
    const items = res.body.items as { bonus_id: string }[];
    expect(res.body.pagination.total).toBe(items.length);
    return items.map((b) => names.get(b.bonus_id)!);
  }

  /** `names` newest first, as the list orders them. */
  const newestFirst = (...subset: Name[]) => ALL.filter((n) => subset.includes(n)).reverse();

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    partner = await upsertUser(t, tenant.key, { full_name: 'Dated' });
    other = await upsertUser(t, tenant.key, { full_name: 'Other' });
    for (const [i, name] of ALL.entries()) {
      const res = await t
        .http()
        .post(`/admin/v1/tenants/${tenant.slug}/bonuses`)
        .set('Authorization', `Bearer ${t.adminToken}`)
        .send({
          user_id: partner.serviceUserId,
          amount_kopecks: 100 + i,
          currency: 'RUB',
          reason: name,
        });
      expect(res.status).toBe(201);
      ids[name] = res.body.bonus_id;
      names.set(res.body.bonus_id, name);
      await t.db.query(`UPDATE bonuses SET created_at = $1 WHERE tenant_id = $2 AND id = $3`, [
        STORED[name],
        tenant.orgId,
        res.body.bonus_id,
      ]);
    }
  });
  afterAll(() => t.close());

  /** What each query lists, all of them asked before one comparison (every mismatch shows). */
  async function expectWindows(cases: [string, Name[]][]) {
    const actual: Record<string, Name[]> = {};
    const expected: Record<string, Name[]> = {};
    for (const [query, names] of cases) {
      actual[query] = await listed(query);
      expected[query] = newestFirst(...names);
    }
    expect(actual).toEqual(expected);
  }

  it('takes created_from inclusive and created_to exclusive, alone or together, at every boundary', async () => {
    // The stored microseconds are cut, not rounded, to the millisecond of created_at, so the
    // bounds (to the millisecond) agree with the created_at every answer shows.
    expect(await listed('')).toEqual(newestFirst(...ALL));
    const res = await list('');
    const created = Object.fromEntries(
      (res.body.items as { bonus_id: string; created_at: string }[]).map((b) => [
        names.get(b.bonus_id),
        b.created_at,
      ]),
    );
    expect(created).toEqual({
      oct31Last: '2026-10-31T23:59:59.999Z',
      nov1: '2026-11-01T00:00:00.000Z',
      nov1Micro: '2026-11-01T00:00:00.000Z',
      nov15Noon: '2026-11-15T12:00:00.000Z',
      nov30Last: '2026-11-30T23:59:59.999Z',
      dec1: '2026-12-01T00:00:00.000Z',
      dec1Plus1ms: '2026-12-01T00:00:00.001Z',
    });

    await expectWindows([
      // only created_from: inclusive
      [
        '&created_from=2026-11-01',
        ['nov1', 'nov1Micro', 'nov15Noon', 'nov30Last', 'dec1', 'dec1Plus1ms'],
      ],
      [
        '&created_from=2026-11-01T00:00:00.000Z',
        ['nov1', 'nov1Micro', 'nov15Noon', 'nov30Last', 'dec1', 'dec1Plus1ms'],
      ],
      ['&created_from=2026-11-01T00:00:00.001Z', ['nov15Noon', 'nov30Last', 'dec1', 'dec1Plus1ms']],
      ['&created_from=2026-12-01T00:00:00.001Z', ['dec1Plus1ms']],
      ['&created_from=2026-12-01T00:00:00.002Z', []],
      ['&created_from=2026-10-31T23:59:59.999Z', ALL],
      // only created_to: exclusive
      ['&created_to=2026-12-01', ['oct31Last', 'nov1', 'nov1Micro', 'nov15Noon', 'nov30Last']],
      [
        '&created_to=2026-12-01T00:00:00.001Z',
        ['oct31Last', 'nov1', 'nov1Micro', 'nov15Noon', 'nov30Last', 'dec1'],
      ],
      ['&created_to=2026-11-01', ['oct31Last']],
      ['&created_to=2026-11-01T00:00:00.001Z', ['oct31Last', 'nov1', 'nov1Micro']],
      ['&created_to=2026-10-31T23:59:59.999Z', []],
      // both: [created_from, created_to)
      [
        '&created_from=2026-11-01&created_to=2026-12-01',
        ['nov1', 'nov1Micro', 'nov15Noon', 'nov30Last'],
      ],
      ['&created_from=2026-11-15T12:00:00Z&created_to=2026-11-15T12:00:00.001Z', ['nov15Noon']],
      [
        '&created_from=2026-11-30T23:59:59.999Z&created_to=2026-12-01T00:00:00.001Z',
        ['nov30Last', 'dec1'],
      ],
      [
        '&created_from=2026-11-01T00:00:00.001Z&created_to=2026-12-01T00:00:00.001Z',
        ['nov15Noon', 'nov30Last', 'dec1'],
      ],
      ['&created_from=2026-10-01&created_to=2027-01-01', ALL],
    ]);
  });

  it('lists nothing when created_from equals created_to, even with a bonus exactly there', async () => {
    await expectWindows([
      ['&created_from=2026-12-01&created_to=2026-12-01', []],
      ['&created_from=2026-11-15T12:00:00.000Z&created_to=2026-11-15T12:00:00.000Z', []],
      ['&created_from=2026-11-01T00:00:00Z&created_to=2026-11-01T00:00:00.000Z', []],
      ['&created_from=2026-11-01T03:00%2B03:00&created_to=2026-11-01', []],
    ]);
  });

  it('reads offsets as the instants they name, and a time without one as UTC', async () => {
    await expectWindows([
      [
        '&created_from=2026-11-01T03:00:00%2B03:00&created_to=2026-11-30T19:00-05:00',
        ['nov1', 'nov1Micro', 'nov15Noon', 'nov30Last'],
      ],
      [
        '&created_from=2026-11-01T00:00&created_to=2026-12-01T00:00:00',
        ['nov1', 'nov1Micro', 'nov15Noon', 'nov30Last'],
      ],
      ['&created_from=2026-11-15T17:30%2B05:30&created_to=2026-11-15T12:00:00.001Z', ['nov15Noon']],
    ]);
  });

  it('pages within the window and combines it with the other filters', async () => {
    const window = '&created_from=2026-11-01&created_to=2026-12-01';
    const res = await t
      .http()
      .get(`/admin/v1/tenants/${tenant.slug}/bonuses?page_size=3&page=2${window}`)
      .set('Authorization', `Bearer ${t.adminToken}`);
    expect(res.body.pagination).toEqual({ page: 2, page_size: 3, total: 4, total_pages: 2 });
    expect(res.body.items.map((b: { bonus_id: string }) => names.get(b.bonus_id))).toEqual([
      'nov1',
    ]);
    expect(await listed(`${window}&user_id=${partner.serviceUserId}`)).toEqual(
      newestFirst('nov1', 'nov1Micro', 'nov15Noon', 'nov30Last'),
    );
    expect(await listed(`${window}&user_id=${other.serviceUserId}`)).toEqual([]);
    expect(await listed(`${window}&status=pending`)).toEqual(
      newestFirst('nov1', 'nov1Micro', 'nov15Noon', 'nov30Last'),
    );
    expect(await listed(`${window}&status=approved`)).toEqual([]);
  });

  it('refuses created_to before created_from with 400 validation_failed naming created_to', async () => {
    for (const query of [
      '&created_from=2026-12-01&created_to=2026-11-01',
      '&created_from=2026-11-15T12:00:00.001Z&created_to=2026-11-15T12:00:00.000Z',
      '&created_from=2026-11-01T00:00:00%2B01:00&created_to=2026-10-31T22:59:59.999Z',
    ]) {
      const res = await list(query);
      expectProblem(res, 400, 'validation_failed');
      expect({ query, errors: res.body.errors }).toEqual({
        query,
        errors: [{ field: 'created_to', message: 'must not be before created_from' }],
      });
    }
  });

  it('refuses a bound that is not an instant it can read with 400 validation_failed', async () => {
    const refused: Record<string, string[]> = {};
    const bad = [
      '2026-02-30',
      '2026-13-01',
      '2026-11-01T24:00Z',
      '2026-11-01T10:60Z',
      '2026-11-01T10:00:60Z',
      '2026-W45',
      '2026-305',
      '20261101',
      '2026-11-01 10:00',
      '2026-11-01T10:00:00.1234Z',
      '2026-11-01T10:00+3',
      '2026-11-01T10:00+24:00',
      '2026-11-01Z',
      '0999-01-01',
      'yesterday',
      '',
    ];
    for (const value of bad) {
      for (const field of ['created_from', 'created_to']) {
        const res = await list(`&${field}=${encodeURIComponent(value)}`);
        refused[`${field}=${value}`] =
          res.status === 400 && res.body.code === 'validation_failed'
            ? res.body.errors.map((e: { field: string }) => e.field)
            : [`${res.status} ${res.body.code}`];
      }
    }
    expect(refused).toEqual(
      Object.fromEntries(
        bad.flatMap((v) => [
          [`created_from=${v}`, ['created_from']],
          [`created_to=${v}`, ['created_to']],
        ]),
      ),
    );
  });
});
