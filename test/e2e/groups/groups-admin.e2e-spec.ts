/**
 * Partner groups over the Admin API (docs/partners.md): the default group, creating, listing,
 * reading and changing groups, who may do which, another tenant's ids and credentials, and bad
 * input (a 4xx, never a 5xx). Setup: groups-suite.
 */
import fc from 'fast-check';
import { createStaffToken, createTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { HOSTILE_JSON, HOSTILE_NUMBERS, HOSTILE_TEXT } from '../../utils/fuzz/hostile-values';
import { GROUP_ID, type Group, groupsSuite } from '../../utils/groups-suite';
import { expectProblem } from '../../utils/problem';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const PROGRAM = {
  lead_bonus_kopecks: 500,
  tiers: [{ tier: 'referrer', percent_bp: 2500 }],
  grace_period_hours: 24,
};

describe('partner groups: the Admin API', () => {
  const s = groupsSuite();

  describe('the default group', () => {
    it('exists for a new tenant, is listed, and new members join it', async () => {
      const list = await s.listGroups();
      expect(list.status).toBe(200);
      expect(list.body).toEqual({
        items: [
          {
            group_id: expect.stringMatching(GROUP_ID),
            slug: 'default',
            name: 'Default',
            program: null,
            signup: { enabled: false, auto_approve: false, fields: [] },
            promote_to: null,
            members_count: 0,
            created_at: expect.stringMatching(ISO_MS),
          },
        ],
        pagination: { page: 1, page_size: 20, total: 1, total_pages: 1 },
      });
      const member = await upsertUser(s.t, s.tenant.key);
      const defaultGroup = list.body.items[0] as Group;
      expect(await s.groupOf(member.memberId)).toBe(defaultGroup.group_id);
      const again = await s.getGroup(defaultGroup.group_id, s.viewer);
      expect(again.status).toBe(200);
      expect(again.body.members_count).toBe(1);
    });

    it('the slug default is taken: 409 conflict', async () => {
      expectProblem(await s.createGroup({ slug: 'default', name: 'Again' }), 409, 'conflict');
    });
  });

  describe('create, read, change', () => {
    it('creates a group with every field and reads it back', async () => {
      const target = await s.group({ slug: 'gold', name: 'Gold' });
      const body = {
        slug: 'bloggers',
        name: 'Bloggers',
        program: PROGRAM,
        signup: {
          enabled: true,
          auto_approve: true,
          fields: [
            { name: 'site', label: 'Your site', type: 'url', required: true },
            {
              name: 'kind',
              label: 'Where?',
              type: 'select',
              required: false,
              options: ['Blog', 'YouTube'],
            },
          ],
        },
        promote_to: { group_id: target.group_id, min_conversions: 10, window_days: 30 },
      };
      const res = await s.createGroup(body, s.owner);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        group_id: expect.stringMatching(GROUP_ID),
        ...body,
        members_count: 0,
        created_at: expect.stringMatching(ISO_MS),
      });
      const read = await s.getGroup(res.body.group_id, s.viewer);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(res.body);
      const audit = await s.t.db.query(
        `SELECT action, target_id FROM audit_log WHERE tenant_id = $1 AND action = 'group.created'`,
        [s.tenant.orgId],
      );
      expect(audit.map((a: { target_id: string }) => a.target_id)).toContain(res.body.group_id);
    });

    it('omitted fields take the defaults: the tenant program, closed signup, no promotion', async () => {
      const res = await s.createGroup({ slug: 'plain', name: 'Plain' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        program: null,
        signup: { enabled: false, auto_approve: false, fields: [] },
        promote_to: null,
      });
    });

    it("a program is completed with the defaults as the tenant's is", async () => {
      const res = await s.createGroup({
        slug: 'partial',
        name: 'Partial',
        program: { tiers: [{ tier: 'referrer', percent_bp: 700 }] },
      });
      expect(res.status).toBe(201);
      expect(res.body.program).toEqual({
        lead_bonus_kopecks: 0,
        tiers: [{ tier: 'referrer', percent_bp: 700 }],
        grace_period_hours: 336,
      });
    });

    it('PATCH changes the fields given, null clears program and promotion', async () => {
      const other = await s.group({ slug: 'silver' });
      const group = await s.group({
        slug: 'vip',
        program: PROGRAM,
        promote_to: { group_id: other.group_id, min_revenue_kopecks: 100, window_days: 7 },
      });
      const renamed = await s.updateGroup(group.group_id, { name: 'VIP partners' });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({ name: 'VIP partners', slug: 'vip', program: PROGRAM });
      const cleared = await s.updateGroup(group.group_id, { program: null, promote_to: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body).toMatchObject({ program: null, promote_to: null, name: 'VIP partners' });
      expect((await s.getGroup(group.group_id)).body).toEqual(cleared.body);
      // The slug stays: it is not a field of the change.
      expectProblem(
        await s.updateGroup(group.group_id, { slug: 'other' }),
        400,
        'validation_failed',
      );
    });

    it('lists newest first, paginated', async () => {
      for (const slug of ['g-1', 'g-2', 'g-3']) await s.group({ slug });
      const page = await s.listGroups('?page=1&page_size=2', s.viewer);
      expect(page.status).toBe(200);
      expect(page.body.items.map((g: Group) => g.slug)).toEqual(['g-3', 'g-2']);
      expect(page.body.pagination).toEqual({ page: 1, page_size: 2, total: 4, total_pages: 2 });
      const last = await s.listGroups('?page=2&page_size=2');
      expect(last.body.items.map((g: Group) => g.slug)).toEqual(['g-1', 'default']);
      expectProblem(await s.listGroups('?page_size=101'), 400, 'validation_failed');
    });
  });

  describe('promotion', () => {
    it('an unknown target is 404 group_not_found; a loop is 400', async () => {
      expectProblem(
        await s.createGroup({
          slug: 'lost',
          name: 'Lost',
          promote_to: {
            group_id: 'grp_01ARZ3NDEKTSV4RRFFQ69G5FAV',
            min_conversions: 1,
            window_days: 1,
          },
        }),
        404,
        'group_not_found',
      );
      const a = await s.group({ slug: 'a-group' });
      const b = await s.group({
        slug: 'b-group',
        promote_to: { group_id: a.group_id, min_conversions: 1, window_days: 1 },
      });
      const loop = await s.updateGroup(a.group_id, {
        promote_to: { group_id: b.group_id, min_conversions: 5, window_days: 30 },
      });
      expectProblem(loop, 400, 'validation_failed');
      expect(loop.body.errors).toEqual([
        { field: 'promote_to.group_id', message: expect.any(String) },
      ]);
      const self = await s.updateGroup(a.group_id, {
        promote_to: { group_id: a.group_id, min_conversions: 5, window_days: 30 },
      });
      expectProblem(self, 400, 'validation_failed');
      // Without a threshold there is nothing to reach.
      expectProblem(
        await s.updateGroup(a.group_id, { promote_to: { group_id: b.group_id, window_days: 30 } }),
        400,
        'validation_failed',
      );
    });
  });

  describe('roles and tenants', () => {
    it('a viewer reads but does not write', async () => {
      const group = await s.group({ slug: 'readable' });
      expect((await s.listGroups('', s.viewer)).status).toBe(200);
      expect((await s.getGroup(group.group_id, s.viewer)).status).toBe(200);
      expectProblem(await s.createGroup({ slug: 'nope', name: 'N' }, s.viewer), 403, 'forbidden');
      expectProblem(await s.updateGroup(group.group_id, { name: 'N' }, s.viewer), 403, 'forbidden');
      const member = await upsertUser(s.t, s.tenant.key);
      expectProblem(
        await s.moveMember(member.memberId, group.group_id, s.viewer),
        403,
        'forbidden',
      );
      expect((await s.createGroup({ slug: 'owned', name: 'O' }, s.owner)).status).toBe(201);
    });

    it("another tenant's group is not found, and its staff is refused here", async () => {
      const other = await createTenant(s.t);
      const otherManager = await createStaffToken(s.t, other.slug, 'manager');
      const theirs = await s.createGroup({ slug: 'theirs', name: 'T' }, otherManager, other.slug);
      expect(theirs.status).toBe(201);
      expectProblem(await s.getGroup(theirs.body.group_id), 404, 'group_not_found');
      expectProblem(
        await s.updateGroup(theirs.body.group_id, { name: 'Mine' }),
        404,
        'group_not_found',
      );
      const member = await upsertUser(s.t, s.tenant.key);
      expectProblem(
        await s.moveMember(member.memberId, theirs.body.group_id),
        404,
        'group_not_found',
      );
      const mine = await s.group({ slug: 'mine' });
      expectProblem(await s.getGroup(mine.group_id, otherManager), 403, 'forbidden');
      expectProblem(await s.listGroups('', otherManager), 403, 'forbidden');
      expectProblem(
        await s.createGroup({ slug: 'intruder', name: 'I' }, otherManager),
        403,
        'forbidden',
      );
      // Their promotion cannot point at our group either.
      expectProblem(
        await s.createGroup(
          {
            slug: 'cross',
            name: 'C',
            promote_to: { group_id: mine.group_id, min_conversions: 1, window_days: 1 },
          },
          otherManager,
          other.slug,
        ),
        404,
        'group_not_found',
      );
    });
  });

  describe('bad input', () => {
    it.each([
      ['slug with capitals', { slug: 'Bloggers' }, 'slug'],
      ['slug of one character', { slug: 'a' }, 'slug'],
      ['slug starting with a dash', { slug: '-ab' }, 'slug'],
      ['slug over 63 characters', { slug: 'a'.repeat(64) }, 'slug'],
      ['missing name', { name: undefined }, 'name'],
      ['empty name', { name: '' }, 'name'],
      [
        'program with a wrong tier',
        { program: { tiers: [{ tier: 'upline_1', percent_bp: 10 }] } },
        'program.tiers',
      ],
      [
        'program over 100 %',
        { program: { tiers: [{ tier: 'referrer', percent_bp: 10001 }] } },
        'program.tiers.0.percent_bp',
      ],
      ['program null', { program: null }, 'program'],
      ['signup as a string', { signup: 'open' }, 'signup'],
      ['signup.enabled not boolean', { signup: { enabled: 'yes' } }, 'signup.enabled'],
      [
        'a field of unknown type',
        { signup: { fields: [{ name: 'a', label: 'A', type: 'date', required: true }] } },
        'signup.fields.0.type',
      ],
      [
        'a select without options',
        { signup: { fields: [{ name: 'a', label: 'A', type: 'select', required: true }] } },
        'signup.fields.0.options',
      ],
      [
        'options on a text field',
        {
          signup: {
            fields: [{ name: 'a', label: 'A', type: 'text', required: true, options: ['x'] }],
          },
        },
        'signup.fields.0.options',
      ],
      [
        'two fields of one name',
        {
          signup: {
            fields: [
              { name: 'a', label: 'A', type: 'text', required: true },
              { name: 'a', label: 'B', type: 'url', required: false },
            ],
          },
        },
        'signup.fields.1.name',
      ],
      [
        'eleven fields',
        {
          signup: {
            fields: Array.from({ length: 11 }, (_, i) => ({
              name: `f${i}`,
              label: 'F',
              type: 'text',
              required: false,
            })),
          },
        },
        'signup.fields',
      ],
      [
        'a field name with spaces',
        { signup: { fields: [{ name: 'my field', label: 'A', type: 'text', required: true }] } },
        'signup.fields.0.name',
      ],
      [
        'promote_to without group',
        { promote_to: { min_conversions: 1, window_days: 1 } },
        'promote_to.group_id',
      ],
      [
        'promote_to window 0',
        {
          promote_to: {
            group_id: 'grp_01ARZ3NDEKTSV4RRFFQ69G5FAV',
            min_conversions: 1,
            window_days: 0,
          },
        },
        'promote_to.window_days',
      ],
      ['unknown field', { colour: 'red' }, 'colour'],
    ])('400 validation_failed: %s', async (_name, patch, field) => {
      const res = await s.createGroup({ slug: 'valid-slug', name: 'Valid', ...patch });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors?.map((e: { field: string }) => e.field)).toContain(field);
      expect((await s.listGroups()).body.pagination.total).toBe(1);
    });

    it('move: a bad group id is 400, an unknown member 404 user_not_found', async () => {
      const group = await s.group({ slug: 'target' });
      const member = await upsertUser(s.t, s.tenant.key);
      expectProblem(await s.moveMember(member.memberId, 'default'), 400, 'validation_failed');
      expectProblem(await s.moveMember(member.memberId, 42), 400, 'validation_failed');
      expectProblem(
        await s.moveMember('mbr_01ARZ3NDEKTSV4RRFFQ69G5FAV', group.group_id),
        404,
        'user_not_found',
      );
      expectProblem(
        await s.moveMember(member.memberId, 'grp_01ARZ3NDEKTSV4RRFFQ69G5FAV'),
        404,
        'group_not_found',
      );
      expectProblem(await s.getGroup('not-an-id'), 404, 'group_not_found');
    });

    it('any create body answers 201 or a 4xx problem, never a 5xx (property)', async () => {
      const hostile = fc.oneof(
        fc.constantFrom(...HOSTILE_TEXT, ...HOSTILE_NUMBERS, ...HOSTILE_JSON),
        fc.jsonValue({ maxDepth: 3 }),
      );
      const field = <T>(valid: fc.Arbitrary<T>) =>
        fc.option(fc.oneof(valid, hostile), { nil: undefined });
      const signupField = fc.record(
        {
          name: field(fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/)),
          label: field(fc.string({ maxLength: 20 })),
          type: field(fc.constantFrom('text', 'url', 'textarea', 'select')),
          required: field(fc.boolean()),
          options: field(fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 })),
        },
        { requiredKeys: [] },
      );
      const body = fc.record(
        {
          slug: field(fc.stringMatching(/^[a-z0-9][a-z0-9-]{1,20}$/)),
          name: field(fc.string({ maxLength: 30 })),
          program: field(
            fc.record(
              {
                lead_bonus_kopecks: field(fc.integer()),
                tiers: field(
                  fc.array(
                    fc.record(
                      {
                        tier: field(fc.constantFrom('referrer', 'upline_1')),
                        percent_bp: field(fc.integer({ min: -5, max: 20000 })),
                      },
                      { requiredKeys: [] },
                    ),
                    { maxLength: 3 },
                  ),
                ),
                grace_period_hours: field(fc.integer()),
              },
              { requiredKeys: [] },
            ),
          ),
          signup: field(
            fc.record(
              {
                enabled: field(fc.boolean()),
                auto_approve: field(fc.boolean()),
                fields: field(fc.array(signupField, { maxLength: 12 })),
              },
              { requiredKeys: [] },
            ),
          ),
          promote_to: field(
            fc.record(
              {
                group_id: field(fc.constant('grp_01ARZ3NDEKTSV4RRFFQ69G5FAV')),
                min_conversions: field(fc.integer()),
                window_days: field(fc.integer()),
              },
              { requiredKeys: [] },
            ),
          ),
        },
        { requiredKeys: [] },
      );
      await fc.assert(
        fc.asyncProperty(body, async (b) => {
          const res = await s.createGroup(b);
          if (res.status === 201) {
            expect(res.body.group_id).toMatch(GROUP_ID);
            expect(res.body.signup.fields.length).toBeLessThanOrEqual(10);
          } else {
            expect(res.status).toBeGreaterThanOrEqual(400);
            expect(res.status).toBeLessThan(500);
            expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
          }
        }),
        { numRuns: 120 },
      );
    });
  });

  describe('concurrency', () => {
    it('ten concurrent creates of one slug: one 201, nine 409 conflict', async () => {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => s.createGroup({ slug: 'race', name: `Race ${i}` })),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([201, ...Array(9).fill(409)]);
      for (const a of answers.filter((x) => x.status === 409)) expectProblem(a, 409, 'conflict');
      const [{ n }] = await s.t.db.query(
        `SELECT count(*)::int AS n FROM groups WHERE tenant_id = $1 AND slug = 'race'`,
        [s.tenant.orgId],
      );
      expect(n).toBe(1);
    });
  });
});
