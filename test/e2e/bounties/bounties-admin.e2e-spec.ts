/**
 * Bounties over the Admin API (docs/money.md, "Bounties"): creating, listing, ending and reading
 * the partners' progress, who may do which, another tenant's ids, audit entries, and bad input (a
 * 400 with the field, never a 5xx). Setup: bounties-suite.
 */
import { createStaffToken, createTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { BOUNTY_ID, type Bounty, bountiesSuite, type Progress } from '../../utils/bounties-suite';
import { expectProblem } from '../../utils/problem';

jest.setTimeout(60_000);

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const VALID = {
  name: 'December sprint',
  metric: 'conversions',
  threshold: 10,
  amount_kopecks: 500_000,
  currency: 'RUB',
  starts_at: '2026-12-01',
  ends_at: '2027-01-01T00:00:00+03:00',
};

describe('bounties: the Admin API', () => {
  const s = bountiesSuite();

  it('creates a bounty, lists it and reads it back, with an audit entry', async () => {
    const group = await s.group({ slug: 'gold' });
    const res = await s.createBounty({ ...VALID, group_id: group.group_id });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      bounty_id: expect.stringMatching(BOUNTY_ID),
      name: 'December sprint',
      group_id: group.group_id,
      metric: 'conversions',
      threshold: 10,
      amount_kopecks: 500_000,
      currency: 'RUB',
      starts_at: '2026-12-01T00:00:00.000Z',
      ends_at: '2026-12-31T21:00:00.000Z',
      reached_count: 0,
      created_at: expect.stringMatching(ISO_MS),
    });
    const older = res.body as Bounty;
    const open = await s.createBounty({ ...VALID, name: 'Forever', ends_at: undefined });
    expect(open.status).toBe(201);
    expect(open.body.ends_at).toBeNull();
    expect(open.body.group_id).toBeNull();

    const list = await s.listBounties('?page_size=1', s.viewer);
    expect(list.status).toBe(200);
    expect(list.body.items.map((b: Bounty) => b.name)).toEqual(['Forever']);
    expect(list.body.pagination).toEqual({ page: 1, page_size: 1, total: 2, total_pages: 2 });
    const one = await s.t
      .http()
      .get(`/admin/v1/tenants/${s.tenant.slug}/bounties/${older.bounty_id}`)
      .set('Authorization', `Bearer ${s.viewer}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(older);

    const audit: { action: string; target_id: string }[] = await s.t.db.query(
      `SELECT action, target_id FROM audit_log WHERE tenant_id = $1 AND action LIKE 'bounty.%'`,
      [s.tenant.orgId],
    );
    expect(audit.map((a) => a.target_id).sort()).toEqual(
      [older.bounty_id, open.body.bounty_id].sort(),
    );
  });

  it('ends a bounty with PATCH (audited), and refuses an end before its start', async () => {
    const bounty = await s.bounty({ starts_at: '2026-12-01T00:00:00Z' });
    const ended = await s.updateBounty(bounty.bounty_id, {
      ends_at: '2026-12-15T12:00Z',
      name: 'Short',
    });
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ name: 'Short', ends_at: '2026-12-15T12:00:00.000Z' });
    const reopened = await s.updateBounty(bounty.bounty_id, { ends_at: null });
    expect(reopened.body.ends_at).toBeNull();
    const early = await s.updateBounty(bounty.bounty_id, { ends_at: '2026-11-30' });
    expectProblem(early, 400, 'validation_failed');
    expect(early.body.errors).toEqual([{ field: 'ends_at', message: 'must be after starts_at' }]);
    const [row] = await s.t.db.query(
      `SELECT count(*)::int AS n FROM audit_log WHERE tenant_id = $1 AND action = 'bounty.updated'`,
      [s.tenant.orgId],
    );
    expect(row.n).toBe(2);
  });

  it.each([
    ['threshold', { threshold: 0 }],
    ['threshold', { threshold: 2.5 }],
    ['amount_kopecks', { amount_kopecks: -1 }],
    ['amount_kopecks', { amount_kopecks: '100' }],
    ['currency', { currency: 'rub' }],
    ['currency', { currency: 'RUBL' }],
    ['metric', { metric: 'clicks' }],
    ['starts_at', { starts_at: 'yesterday' }],
    ['ends_at', { ends_at: '2026-11-30' }],
    ['ends_at', { ends_at: '2026-12-01' }],
    ['name', { name: '' }],
    ['group_id', { group_id: 'gold' }],
  ])('refuses a bad %s: 400 with the field', async (field, change) => {
    const res = await s.createBounty({ ...VALID, ...change });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it('an unknown group, or another tenant’s: 404 group_not_found', async () => {
    const other = await createTenant(s.t);
    const otherManager = await createStaffToken(s.t, other.slug, 'manager');
    const theirs = await s.createGroup(
      { slug: 'theirs', name: 'Theirs' },
      otherManager,
      other.slug,
    );
    expect(theirs.status).toBe(201);
    expectProblem(
      await s.createBounty({ ...VALID, group_id: theirs.body.group_id }),
      404,
      'group_not_found',
    );
    expect((await s.listBounties()).body.items).toEqual([]);
  });

  it('viewers read, managers and owners write; another tenant’s bounty is not found', async () => {
    expect((await s.createBounty(VALID, s.viewer)).status).toBe(403);
    expect((await s.createBounty(VALID, s.owner)).status).toBe(201);
    const bounty = await s.bounty();
    expect((await s.updateBounty(bounty.bounty_id, { name: 'x' }, s.viewer)).status).toBe(403);
    expect((await s.progressOf(bounty.bounty_id, '', s.viewer)).status).toBe(200);

    const other = await createTenant(s.t);
    const otherManager = await createStaffToken(s.t, other.slug, 'manager');
    expectProblem(
      await s.progressOf(bounty.bounty_id, '', otherManager, other.slug),
      404,
      'bounty_not_found',
    );
    expectProblem(
      await s.updateBounty(bounty.bounty_id, { name: 'theirs' }, otherManager, other.slug),
      404,
      'bounty_not_found',
    );
    expect((await s.listBounties('', otherManager, other.slug)).body.items).toEqual([]);
    // This tenant's token on the other tenant's path: refused before any bounty is read.
    expect((await s.listBounties('', s.manager, other.slug)).status).toBe(403);
  });

  it('lists progress furthest first, paginated, and marks who reached it', async () => {
    const bounty = await s.bounty({ threshold: 2, amount_kopecks: 70_000 });
    const [ann, bob] = await Promise.all([
      upsertUser(s.t, s.tenant.key, { full_name: 'Ann' }),
      upsertUser(s.t, s.tenant.key, { full_name: 'Bob' }),
    ]);
    await s.sale(ann);
    await s.sale(bob);
    await s.sale(ann);
    const res = await s.progressOf(bounty.bounty_id, '?page_size=1');
    expect(res.status).toBe(200);
    const bonus = (await s.bountyBonuses(ann))[0];
    expect(res.body).toEqual({
      bounty_id: bounty.bounty_id,
      items: [
        {
          user_id: ann.serviceUserId,
          value: 2,
          threshold: 2,
          reached: true,
          reached_at: expect.stringMatching(ISO_MS),
          bonus_id: bonus.id,
        },
      ],
      pagination: { page: 1, page_size: 1, total: 2, total_pages: 2 },
    });
    const second = await s.progressOf(bounty.bounty_id, '?page=2&page_size=1');
    expect(second.body.items as Progress[]).toEqual([
      {
        user_id: bob.serviceUserId,
        value: 1,
        threshold: 2,
        reached: false,
        reached_at: null,
        bonus_id: null,
      },
    ]);
    expect((await s.listBounties()).body.items[0].reached_count).toBe(1);
    expectProblem(
      await s.progressOf(bounty.bounty_id, '?page_size=1000'),
      400,
      'validation_failed',
    );
  });
});
