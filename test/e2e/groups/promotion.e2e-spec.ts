/**
 * docs/partners.md, "Promotion" (SPEC 15): after a conversion, a referrer whose own conversions in
 * the window reach every threshold of their group's `promote_to` moves to that group
 * (`partner.group_changed`, reason `promotion`), once under concurrent conversions, on through a
 * chain of promotions, and from then on is paid by the new group's program. Refunded conversions
 * do not count; nobody is demoted.
 */
import { createLead, eventsOf } from '../../factories/money.factory';
import { upsertUser, type UpsertedMember } from '../../factories/users.factory';
import { type Group, groupsSuite } from '../../utils/groups-suite';

jest.setTimeout(60_000);

describe('promotion between groups', () => {
  const g = groupsSuite();
  let partner: UpsertedMember;
  let orders = 0;

  beforeEach(async () => {
    partner = await upsertUser(g.t, g.tenant.key, { full_name: 'Climber' });
  });

  const defaultGroup = async (): Promise<Group> =>
    ((await g.listGroups()).body.items as Group[]).find((x) => x.slug === 'default')!;
  const newGroup = async (slug: string, body: Record<string, unknown> = {}) => {
    const res = await g.createGroup({ slug, name: slug, ...body });
    expect(res.status).toBe(201);
    return res.body as Group;
  };
  const promote = async (group: Group, promote_to: Record<string, unknown>) => {
    const res = await g.updateGroup(group.group_id, { promote_to });
    expect(res.status).toBe(200);
  };
  const sale = async (amount = 10_000) => {
    const leadId = await createLead(g.t, g.tenant.key, partner.serviceUserId, {
      contact: { name: 'Customer', email: `c${++orders}@example.org` },
    });
    const res = await g.fed().registerConversion({
      lead_id: leadId,
      amount_kopecks: amount,
      currency: 'RUB',
      external_order_id: `p-${orders}`,
    });
    expect(res.status).toBe(200);
    return res.body;
  };
  const groupOf = async () =>
    (
      await g.t.db.query<{ group_id: string }[]>(
        `SELECT group_id FROM members WHERE tenant_id = $1 AND service_user_id = $2`,
        [g.tenant.orgId, partner.serviceUserId],
      )
    )[0].group_id;
  const promotions = async () =>
    (await eventsOf(g.t, g.tenant.orgId, 'partner.group_changed'))
      .map((e) => e.payload as { user_id: string; to_group_id: string; reason: string })
      .filter((d) => d.user_id === partner.serviceUserId);

  it('moves the referrer at the threshold, and the new group’s program pays from then on', async () => {
    const gold = await newGroup('gold', {
      program: { tiers: [{ tier: 'referrer', percent_bp: 3000 }] },
    });
    await promote(await defaultGroup(), {
      group_id: gold.group_id,
      min_conversions: 2,
      window_days: 30,
    });
    const first = await sale();
    expect(first.cascaded_bonuses.map((b: { amount_kopecks: number }) => b.amount_kopecks)).toEqual(
      [1_000],
    );
    expect(await groupOf()).not.toBe(gold.group_id);
    await sale(); // the second: the threshold is reached, paid still by the default program
    expect(await groupOf()).toBe(gold.group_id);
    expect(await promotions()).toEqual([
      expect.objectContaining({ to_group_id: gold.group_id, reason: 'promotion' }),
    ]);
    const third = await sale();
    expect(third.cascaded_bonuses.map((b: { amount_kopecks: number }) => b.amount_kopecks)).toEqual(
      [3_000],
    );
    expect(await promotions()).toHaveLength(1); // gold promotes nowhere: nothing more
  });

  it('counts revenue in the window without refunds, and chains promotions', async () => {
    const gold = await newGroup('gold');
    const silver = await newGroup('silver', {
      promote_to: { group_id: gold.group_id, min_conversions: 1, window_days: 7 },
    });
    await promote(await defaultGroup(), {
      group_id: silver.group_id,
      min_revenue_kopecks: 50_000,
      window_days: 30,
    });
    const refunded = await sale(40_000);
    const reversed = await g.t
      .http()
      .post(`/federation/v1/conversions/${refunded.conversion_id}/reverse`)
      .set('X-Service-Tenant-Key', g.tenant.key)
      .send({ reason: 'refund' });
    expect(reversed.status).toBe(200);
    await sale(20_000); // 20 000 counted: the refunded 40 000 does not
    expect(await promotions()).toEqual([]);
    await sale(30_000); // 50 000: silver, whose own threshold (one sale) is met too: gold
    expect((await promotions()).map((d) => d.to_group_id)).toEqual([
      silver.group_id,
      gold.group_id,
    ]);
    expect(await groupOf()).toBe(gold.group_id);
  });

  it('promotes once when many conversions cross the threshold together', async () => {
    const gold = await newGroup('gold');
    await promote(await defaultGroup(), {
      group_id: gold.group_id,
      min_conversions: 1,
      window_days: 1,
    });
    const leads = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        createLead(g.t, g.tenant.key, partner.serviceUserId, {
          contact: { name: 'Customer', email: `burst${i}@example.org` },
        }),
      ),
    );
    const results = await Promise.all(
      leads.map((lead_id, i) =>
        g.fed().registerConversion({
          lead_id,
          amount_kopecks: 5_000,
          currency: 'RUB',
          external_order_id: `burst-${i}`,
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(await promotions()).toHaveLength(1);
    expect(await groupOf()).toBe(gold.group_id);
  });
});
