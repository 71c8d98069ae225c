import type { Response } from 'supertest';
import { ulid } from 'ulid';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser, UpsertedMember } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

/**
 * GET /embed/v1/data/referral-tree/:user_id (seed 2.2, 4.1; docs/embedding.md): levels by depth ordered by
 * joined_at then id, max_depth, hit_depth_cap, total_downline over the whole downline (also after a
 * subtree is attached later), and the 1000-node cut. Trees are built through the Federation API.
 */

interface TreeNode {
  user_id: string;
  display_name: string;
  depth: number;
  parent_user_id: string | null;
}

/** The network as the test built it: child → parent, by surrogate id. */
class Model {
  readonly parent = new Map<string, string | null>();
  readonly children = new Map<string, string[]>();
  readonly names = new Map<string, string>();
  /** joined_at (ms) of each member, read back from the database. */
  joined = new Map<string, number>();

  add(member: UpsertedMember, parent: UpsertedMember | null, name: string) {
    this.parent.set(member.memberId, parent?.memberId ?? null);
    this.names.set(member.memberId, name);
    this.children.set(member.memberId, this.children.get(member.memberId) ?? []);
    if (parent) this.children.get(parent.memberId)!.push(member.memberId);
  }

  /** Re-hangs a root under a new parent (an attach through upsert). */
  attach(root: string, parent: string) {
    this.parent.set(root, parent);
    this.children.get(parent)!.push(root);
  }

  /** Descendants of `id` by relative depth: [[id], children, grandchildren, …]. */
  levels(id: string): string[][] {
    const levels: string[][] = [[id]];
    for (;;) {
      const next = levels[levels.length - 1].flatMap((p) => this.children.get(p) ?? []);
      if (!next.length) return levels;
      levels.push(next);
    }
  }

  downline(id: string): number {
    return this.levels(id).reduce((sum, level) => sum + level.length, 0) - 1;
  }

  height(id: string): number {
    return this.levels(id).length - 1;
  }

  /** docs/embedding.md's order inside a level: joined_at, then id. */
  order(ids: string[]): string[] {
    return [...ids].sort((a, b) => {
      const d = this.joined.get(a)! - this.joined.get(b)!;
      if (d !== 0) return d;
      return a < b ? -1 : a > b ? 1 : 0;
    });
  }

  /** The levels the endpoint should return for `id` and `maxDepth` (no node budget). */
  expected(id: string, maxDepth: number): TreeNode[][] {
    return this.levels(id)
      .slice(0, maxDepth + 1)
      .map((level, depth) =>
        this.order(level).map((m) => ({
          user_id: m,
          display_name: this.names.get(m)!,
          depth,
          parent_user_id: depth === 0 ? null : this.parent.get(m)!,
        })),
      );
  }
}

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

function expectProblem(res: Response, status: number, code: string) {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
}

describe('embed data: referral tree', () => {
  let t: TestApp;
  let tenant: TestTenant;
  const model = new Model();

  const treeRes = (userId: string, query = '') =>
    t
      .http()
      .get(`/embed/v1/data/referral-tree/${userId}?tenant=${tenant.slug}${query}`)
      .set('Origin', `https://${tenant.slug}.example`);

  const tree = async (userId: string, query = '') => {
    const res = await treeRes(userId, query);
    if (res.status !== 200) throw new Error(`tree: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };

  async function member(name: string, parent: UpsertedMember | null): Promise<UpsertedMember> {
    const m = await upsertUser(t, tenant.key, {
      full_name: name,
      ...(parent ? { referrer_user_id: parent.serviceUserId } : {}),
    });
    model.add(m, parent, name);
    return m;
  }

  /** Reads every member's joined_at back, for the expected order inside a level. */
  async function refreshJoined() {
    const rows: { id: string; ms: string }[] = await t.db.query(
      `SELECT id, (extract(epoch from created_at) * 1000)::bigint::text AS ms
         FROM members WHERE tenant_id = $1`,
      [tenant.orgId],
    );
    model.joined = new Map(rows.map((r) => [r.id, Number(r.ms)]));
  }

  /**
   * `count` direct referrals of `parent` in one transaction of bulk SQL (1100 federation upserts
   * take the tenant's tree lock one by one and are too slow here). It does what the upsert does
   * to the network: depth and root from the parent, and the parent's and its upline's
   * downline_count and deepest_depth grown. Joined_at values repeat and do not follow the ids,
   * so the order inside the level depends on the id tie-break.
   */
  async function bulkChildren(parent: UpsertedMember, count: number): Promise<UpsertedMember[]> {
    const made = Array.from({ length: count }, (_, i) => ({
      memberId: `mbr_${ulid()}`,
      serviceUserId: `usr_${ulid()}`,
      externalId: `bulk-${parent.memberId}-${i}`,
      name: `K${i}`,
      at: new Date(Date.UTC(2026, 0, 1) + ((i * 37) % 500)).toISOString(),
    }));
    await t.db.transaction(async (m) => {
      await m.query(`SELECT pg_advisory_xact_lock(hashtext('referral-tree:' || $1))`, [
        tenant.orgId,
      ]);
      const [p]: { depth: number; root_member_id: string }[] = await m.query(
        `SELECT depth, root_member_id FROM members WHERE tenant_id = $1 AND id = $2`,
        [tenant.orgId, parent.memberId],
      );
      await m.query(`INSERT INTO service_users (id) SELECT unnest($1::text[])`, [
        made.map((k) => k.serviceUserId),
      ]);
      await m.query(
        `INSERT INTO members (tenant_id, id, service_user_id, external_id, full_name,
                              referrer_member_id, depth, root_member_id, deepest_depth,
                              created_at, updated_at)
         SELECT $1, k.id, k.usr, k.ext, k.name, $2, $3::int, $4, $3::int, k.at, k.at
           FROM unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::timestamptz[])
                AS k(id, usr, ext, name, at)`,
        [
          tenant.orgId,
          parent.memberId,
          p.depth + 1,
          p.root_member_id,
          made.map((k) => k.memberId),
          made.map((k) => k.serviceUserId),
          made.map((k) => k.externalId),
          made.map((k) => k.name),
          made.map((k) => k.at),
        ],
      );
      await m.query(
        `WITH RECURSIVE up AS (
           SELECT id, referrer_member_id FROM members WHERE tenant_id = $1 AND id = $2
           UNION ALL
           SELECT x.id, x.referrer_member_id FROM up
             JOIN members x ON x.tenant_id = $1 AND x.id = up.referrer_member_id)
         UPDATE members SET downline_count = downline_count + $3,
                            deepest_depth = greatest(deepest_depth, $4::int)
          WHERE tenant_id = $1 AND id IN (SELECT id FROM up)`,
        [tenant.orgId, parent.memberId, count, p.depth + 1],
      );
    });
    const kids = made.map((k) => ({
      memberId: k.memberId,
      serviceUserId: k.serviceUserId,
      externalId: k.externalId,
      body: {} as UpsertedMember['body'],
    }));
    kids.forEach((k, i) => model.add(k, parent, made[i].name));
    return kids;
  }

  /** The whole answer checked against the model (no node budget involved). */
  async function expectTree(id: string, maxDepth?: number) {
    const depth = maxDepth ?? 3;
    const body = await tree(id, maxDepth === undefined ? '' : `&max_depth=${maxDepth}`);
    const levels = model.expected(id, depth);
    expect(body.levels).toEqual(levels);
    expect(body.root).toEqual(levels[0][0]);
    expect(body).toMatchObject({
      total_downline: model.downline(id),
      hit_depth_cap: model.height(id) > depth,
      max_depth: depth,
    });
    expect(body).not.toHaveProperty('truncated');
    return body;
  }

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
  });
  afterAll(() => t.close());

  it('returns the root at depth 0 and each level ordered by joined_at, across parents', async () => {
    const r = await member('Root', null);
    const a = await member('A', r);
    const b = await member('B', r);
    const a1 = await member('A1', a);
    const b1 = await member('B1', b);
    const a2 = await member('A2', a);
    const a1x = await member('A1x', a1);
    const a1xy = await member('A1xy', a1x);
    await refreshJoined();

    const body = await tree(r.memberId);
    expect(Object.keys(body).sort()).toEqual(
      ['hit_depth_cap', 'levels', 'max_depth', 'root', 'tenant', 'total_downline', 'user'].sort(),
    );
    expect(body.user).toMatchObject({ id_surrogate: r.memberId, display_name: 'Root' });
    expect(body.tenant).toEqual({ slug: tenant.slug, display_name: `Tenant ${tenant.slug}` });
    expect(body.root).toEqual({
      user_id: r.memberId,
      display_name: 'Root',
      depth: 0,
      parent_user_id: null,
    });
    expect(body.levels).toEqual([
      [body.root],
      [
        { user_id: a.memberId, display_name: 'A', depth: 1, parent_user_id: r.memberId },
        { user_id: b.memberId, display_name: 'B', depth: 1, parent_user_id: r.memberId },
      ],
      [
        { user_id: a1.memberId, display_name: 'A1', depth: 2, parent_user_id: a.memberId },
        { user_id: b1.memberId, display_name: 'B1', depth: 2, parent_user_id: b.memberId },
        { user_id: a2.memberId, display_name: 'A2', depth: 2, parent_user_id: a.memberId },
      ],
      [{ user_id: a1x.memberId, display_name: 'A1x', depth: 3, parent_user_id: a1.memberId }],
    ]);
    // Default max_depth 3; A1xy at depth 4 lies beyond it.
    expect(body).toMatchObject({ max_depth: 3, hit_depth_cap: true, total_downline: 7 });
    expect(body).not.toHaveProperty('truncated');
    expect(a1xy.memberId).toMatch(/^mbr_/);

    // Depths are relative to the requested member.
    const fromA = await expectTree(a.memberId);
    expect(fromA.levels.map((l: TreeNode[]) => l.length)).toEqual([1, 2, 1, 1]);
    expect(fromA.root).toEqual({
      user_id: a.memberId,
      display_name: 'A',
      depth: 0,
      parent_user_id: null,
    });
    expect(fromA.hit_depth_cap).toBe(false);
    await expectTree(r.memberId, 4);
    const leaf = await expectTree(a1xy.memberId);
    expect(leaf).toMatchObject({ levels: [[leaf.root]], total_downline: 0, hit_depth_cap: false });
  });

  it('breaks joined_at ties by id', async () => {
    const p = await member('Tie parent', null);
    const s1 = await member('S1', p);
    const s2 = await member('S2', p);
    const s3 = await member('S3', p);
    // S2 and S3 joined at the same instant, before S1.
    await t.db.query(
      `UPDATE members SET created_at = $3::timestamptz + CASE WHEN id = $2 THEN interval '1 second' ELSE interval '0' END
        WHERE tenant_id = $1 AND id = ANY($4)`,
      [tenant.orgId, s1.memberId, '2026-01-01T00:00:00.000Z', [s1, s2, s3].map((s) => s.memberId)],
    );
    await refreshJoined();
    const body = await expectTree(p.memberId);
    const ids = [s2, s3].map((s) => s.memberId).sort();
    expect(body.levels[1].map((n: TreeNode) => n.user_id)).toEqual([...ids, s1.memberId]);
  });

  it('takes max_depth 1..20 (default 3) and refuses anything else', async () => {
    // A chain 20 deep: c[0] … c[20].
    const chain: UpsertedMember[] = [await member('C0', null)];
    for (let i = 1; i <= 20; i++) chain.push(await member(`C${i}`, chain[i - 1]));
    await refreshJoined();

    for (let d = 1; d <= 20; d++) {
      const body = await tree(chain[0].memberId, `&max_depth=${d}`);
      expect(body.levels).toEqual(model.expected(chain[0].memberId, d));
      expect(body.levels).toHaveLength(d + 1);
      expect(body.max_depth).toBe(d);
      expect(body.total_downline).toBe(20);
      // Cut exactly when something lies deeper than max_depth: false at 20.
      expect({ d, hit: body.hit_depth_cap }).toEqual({ d, hit: d < 20 });
    }
    const byDefault = await tree(chain[0].memberId);
    expect(byDefault).toMatchObject({ max_depth: 3, hit_depth_cap: true });
    expect(byDefault.levels).toHaveLength(4);

    // Exactly at max_depth is no cut; one deeper is.
    expect((await tree(chain[17].memberId)).hit_depth_cap).toBe(false);
    expect((await tree(chain[16].memberId)).hit_depth_cap).toBe(true);
    expect((await tree(chain[1].memberId, '&max_depth=19')).hit_depth_cap).toBe(false);
    expect((await tree(chain[1].memberId, '&max_depth=18')).hit_depth_cap).toBe(true);

    for (const bad of ['0', '21', 'abc', '-1', '2.5', '']) {
      expectProblem(
        await treeRes(chain[0].memberId, `&max_depth=${bad}`),
        400,
        'validation_failed',
      );
    }
    expectProblem(await treeRes(chain[0].memberId, '&page=1'), 400, 'validation_failed');
  });

  it('counts the whole downline and the depth cap right on a random tree of 60', async () => {
    const random = prng(20261121);
    const nodes: UpsertedMember[] = [await member('N0', null)];
    for (let i = 1; i < 60; i++) {
      // Half the time a recent node (deep branches), else any earlier one (wide ones).
      const j =
        random() < 0.5 ? Math.max(0, i - 1 - Math.floor(random() * 3)) : Math.floor(random() * i);
      nodes.push(await member(`N${i}`, nodes[j]));
    }
    await refreshJoined();
    const root = nodes[0].memberId;
    expect(model.downline(root)).toBe(59);
    expect(model.height(root)).toBeGreaterThan(3);

    const sample = [0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 59].map((i) => nodes[i].memberId);
    for (const id of sample) {
      for (const d of [1, 3, model.height(id), 20].filter((x) => x >= 1 && x <= 20)) {
        const body = await expectTree(id, d);
        const returned = body.levels.flat().length;
        expect(returned).toBe(
          model
            .levels(id)
            .slice(0, d + 1)
            .flat().length,
        );
      }
    }
    // With max_depth at least the height, every member of the subtree is returned exactly once.
    const full = await tree(root, '&max_depth=20');
    const ids = full.levels.flat().map((n: TreeNode) => n.user_id);
    expect(new Set(ids).size).toBe(60);
    expect(new Set(ids)).toEqual(new Set(nodes.map((n) => n.memberId)));
  });

  it('keeps the counters right when a subtree gets a referrer later', async () => {
    // R → X → Y, and R → Z.
    const r = await member('R', null);
    const x = await member('X', r);
    const y = await member('Y', x);
    await member('Z', r);
    // A separate tree: S0 → S1 → S2 → S3, S1 → S1b, S0 → S0b (6 members, 3 deep).
    const s0 = await member('S0', null);
    const s1 = await member('S1', s0);
    const s2 = await member('S2', s1);
    const s3 = await member('S3', s2);
    await member('S1b', s1);
    await member('S0b', s0);
    await refreshJoined();

    await expectTree(r.memberId);
    expect((await tree(r.memberId)).hit_depth_cap).toBe(false);
    expect((await tree(r.memberId)).total_downline).toBe(3);

    const attached = await upsertUser(t, tenant.key, {
      external_id: s0.externalId,
      referrer_user_id: y.serviceUserId,
    });
    expect(attached.memberId).toBe(s0.memberId);
    expect(attached.body.referrer_user_id).toBe(y.serviceUserId);
    model.attach(s0.memberId, y.memberId);

    // Every new ancestor grew by the subtree's 6 members.
    const before = { r: 3, x: 1, y: 0 };
    for (const [node, was] of [
      [r, before.r],
      [x, before.x],
      [y, before.y],
    ] as const) {
      const body = await tree(node.memberId);
      expect(body.total_downline).toBe(was + 6);
    }
    // R's deepest is now S3 at 2 + 1 + 3 = 6.
    expect(model.height(r.memberId)).toBe(6);
    for (const d of [3, 5, 6, 7]) await expectTree(r.memberId, d);
    expect((await tree(r.memberId, '&max_depth=5')).hit_depth_cap).toBe(true);
    expect((await tree(r.memberId, '&max_depth=6')).hit_depth_cap).toBe(false);
    // Inside the attached tree, depths stay relative.
    const fromS0 = await expectTree(s0.memberId);
    expect(fromS0.root.parent_user_id).toBeNull();
    expect(fromS0.total_downline).toBe(5);
    await expectTree(s1.memberId, 1);
    await expectTree(x.memberId, 5);

    // A member joining below the attached tree counts for every ancestor, old and new.
    await member('S4', s3);
    await refreshJoined();
    expect((await tree(r.memberId)).total_downline).toBe(10);
    expect((await tree(s0.memberId)).total_downline).toBe(6);
    expect((await tree(r.memberId, '&max_depth=6')).hit_depth_cap).toBe(true);
    await expectTree(r.memberId, 7);
    await expectTree(y.memberId, 20);
  });

  describe('the 1000-node cut', () => {
    let q: UpsertedMember;
    let kids: UpsertedMember[];
    let grandchild: UpsertedMember;

    beforeAll(async () => {
      q = await member('Q', null);
      kids = await bulkChildren(q, 1100);
      // One more level through the API: its counters must add up with the bulk ones.
      grandchild = await member('G', kids[0]);
      await refreshJoined();
    });

    it('returns 1000 nodes (root + 999) in order and says truncated', async () => {
      const body = await tree(q.memberId);
      expect(body.truncated).toBe(true);
      expect(body.levels).toHaveLength(2);
      expect(body.levels[0]).toEqual([body.root]);
      expect(body.levels[1]).toHaveLength(999);
      expect(body.levels.flat()).toHaveLength(1000);
      const first999 = model.order(kids.map((k) => k.memberId)).slice(0, 999);
      expect(body.levels[1].map((n: TreeNode) => n.user_id)).toEqual(first999);
      for (const n of body.levels[1] as TreeNode[]) {
        expect(n).toMatchObject({ depth: 1, parent_user_id: q.memberId });
      }
      // The counters are not cut: 1100 children and one grandchild (depth 2 ≤ 3).
      expect(body).toMatchObject({ total_downline: 1101, hit_depth_cap: false, max_depth: 3 });

      const one = await tree(q.memberId, '&max_depth=1');
      expect(one).toMatchObject({ truncated: true, hit_depth_cap: true, total_downline: 1101 });
      expect(one.levels.flat()).toHaveLength(1000);
    });

    it('fills levels in order: a deeper level only after the whole one above', async () => {
      // M → M1 joined after Q's network; then Q's network is hung under M.
      const m = await member('M', null);
      const m1 = await member('M1', m);
      const res = await upsertUser(t, tenant.key, {
        external_id: q.externalId,
        referrer_user_id: m.serviceUserId,
      });
      expect(res.body.referrer_user_id).toBe(m.serviceUserId);
      model.attach(q.memberId, m.memberId);
      await refreshJoined();

      const body = await tree(m.memberId);
      expect(body.truncated).toBe(true);
      expect(body.levels.map((l: TreeNode[]) => l.length)).toEqual([1, 2, 997]);
      // Q joined before M1.
      expect(body.levels[1].map((n: TreeNode) => n.user_id)).toEqual([q.memberId, m1.memberId]);
      expect(body.levels[2].map((n: TreeNode) => n.user_id)).toEqual(
        model.order(kids.map((k) => k.memberId)).slice(0, 997),
      );
      expect(body).toMatchObject({ total_downline: 1103, hit_depth_cap: false });
      expect((await tree(m.memberId, '&max_depth=2')).hit_depth_cap).toBe(true);
      expect(model.downline(m.memberId)).toBe(1103);
    });

    it('has no truncated key when nothing was cut', async () => {
      const small = await expectTree(kids[0].memberId);
      expect(small.levels).toEqual([
        [small.root],
        [
          {
            user_id: grandchild.memberId,
            display_name: 'G',
            depth: 1,
            parent_user_id: kids[0].memberId,
          },
        ],
      ]);
      expect(small).toMatchObject({ total_downline: 1, hit_depth_cap: false });
    });
  });
});
