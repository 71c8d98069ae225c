import { MEMBER_SEARCH_TEXT } from '../../../src/database/migrations/1795740000000-ConsoleRollups';
import { admin } from '../../factories/payouts.factory';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { createTestApp, type TestApp } from '../../utils/create-test-app';
import { orgSignIn } from '../../utils/pages-http';
import { until } from '../../utils/until';

/**
 * The partners search (docs/console.md, docs/security.md "Partner search"): a search the trigram
 * index cannot serve (fewer than 3 letters or digits in a row) is refused, on the Admin API
 * (400 problem), the console page (its message) and the CSV link (400); a search it can serve is
 * answered through ix_members_search, not by reading every partner of the tenant.
 */
jest.setTimeout(120_000);

const PARTNERS = 30_000;

let t: TestApp;
let org: TestTenant;
let cookie: string;

beforeAll(async () => {
  t = await createTestApp();
  org = await createTenant(t, { locale: 'en-US' });
  cookie = await orgSignIn(t.http, await createStaffToken(t, org.slug, 'viewer'));
  const tag = org.orgId.slice(-8);
  await t.db.query(
    `INSERT INTO service_users (id) SELECT 'usr_srch' || $2 || n FROM generate_series(1, $1::int) n`,
    [PARTNERS, tag],
  );
  await t.db.query(
    `INSERT INTO members (tenant_id, id, service_user_id, external_id, full_name, email,
                          root_member_id)
     SELECT $1, 'mbr_srch' || $3 || n, 'usr_srch' || $3 || n, 'crm-' || n,
            'Partner ' || md5(n::text), 'p' || n || '@example.org', 'mbr_srch' || $3 || n
       FROM generate_series(1, $2::int) n`,
    [org.orgId, PARTNERS, tag],
  );
  await t.db.query('ANALYZE members');
});
afterAll(() => t.close());

const api = (q: string) =>
  t
    .http()
    .get(`/admin/v1/tenants/${org.slug}/users?q=${encodeURIComponent(q)}`)
    .set(admin(t));

it('refuses a search with fewer than 3 letters or digits in a row, everywhere', async () => {
  for (const q of ['ab', ' ab ', 'a.b', '%_', 'a b c', 'я']) {
    const res = await api(q);
    expect([q, res.status]).toEqual([q, 400]);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors).toEqual([
      { field: 'q', message: 'must hold at least 3 letters or digits in a row' },
    ]);
    const page = await t
      .http()
      .get(`/org/${org.slug}/partners?q=${encodeURIComponent(q)}`)
      .set('Cookie', cookie);
    expect(page.text).toContain('q: must hold at least 3 letters or digits in a row');
    expect(page.text).not.toContain('data-partner=');
    const csv = await t
      .http()
      .get(`/org/${org.slug}/partners.csv?q=${encodeURIComponent(q)}`)
      .set('Cookie', cookie);
    expect([q, csv.status]).toEqual([q, 400]);
  }
  // No search at all, three in a row, and a whole id are served.
  for (const q of ['', '   ', 'p12@', 'crm-29999', `mbr_srch${org.orgId.slice(-8)}7`]) {
    expect([q, (await api(q)).status]).toEqual([q, 200]);
  }
});

it('answers a 3-character search through the trigram index', async () => {
  const search = `m.tenant_id = $1 AND ${MEMBER_SEARCH_TEXT.replace(/\b(full_name|email|external_id)\b/g, 'm.$1')} LIKE $2`;
  const plan = async (pattern: string) =>
    (
      await t.db.query<{ 'QUERY PLAN': string }[]>(
        `EXPLAIN SELECT m.id FROM members m WHERE ${search}`,
        [org.orgId, pattern],
      )
    )
      .map((r) => r['QUERY PLAN'])
      .join('\n');
  // Three characters in a row are a trigram the index looks up ...
  const three = await plan('%9a9%');
  expect(three).toContain('Bitmap Index Scan on ix_members_search');
  expect(three).not.toMatch(/Seq Scan on members/);
  // ... two are not: the index has nothing to look up, every partner of the tenant is read.
  expect(await plan('%9a%')).not.toContain('ix_members_search');

  // And the service's own query took it: the index's scan count went up with the request.
  const scans = async () => {
    const [row] = await t.db.query<{ n: string }[]>(
      `SELECT idx_scan::text AS n FROM pg_stat_user_indexes WHERE indexrelname = 'ix_members_search'`,
    );
    return Number(row.n);
  };
  const before = await scans();
  const res = await api('9A9');
  expect(res.status).toBe(200);
  expect(res.body.pagination.total).toBeGreaterThan(0);
  await until('the search to count as an index scan', async () => (await scans()) > before);
});
