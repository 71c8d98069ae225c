/**
 * What a bounty pays (docs/money.md, "Bounties"): one pending bonus (`source_type` bounty) to a
 * partner whose own conversions in the period reach the threshold, exactly once when twenty
 * conversions cross it together, counted once in the balance, with `bonus.pending` and
 * `bounty.reached`; kept after a reversal; nothing for partners outside its group, conversions
 * outside its period, or revenue in another currency. Setup: bounties-suite.
 */
import { eventsOf } from '../../factories/money.factory';
import { upsertUser, type UpsertedMember } from '../../factories/users.factory';
import { adminApi } from '../../utils/api-client';
import { bountiesSuite, type Progress } from '../../utils/bounties-suite';

jest.setTimeout(120_000);

describe('bounties: the bonus', () => {
  const s = bountiesSuite();
  let partner: UpsertedMember;

  beforeEach(async () => {
    partner = await upsertUser(s.t, s.tenant.key, { full_name: 'Sprinter' });
  });

  const progress = async (bountyId: string, who = partner): Promise<Progress | undefined> => {
    const res = await s.progressOf(bountyId, '?page_size=100');
    expect(res.status).toBe(200);
    return (res.body.items as Progress[]).find((p) => p.user_id === who.serviceUserId);
  };
  const pendingBalance = async (who = partner) => {
    const [row] = await s.t.db.query(
      `SELECT pending_kopecks::bigint AS pending,
              (SELECT coalesce(sum(amount_kopecks), 0) FROM bonuses
                WHERE tenant_id = $1 AND member_id = $2 AND status = 'pending')::bigint AS summed
         FROM member_balances WHERE tenant_id = $1 AND member_id = $2 AND currency = 'RUB'`,
      [s.tenant.orgId, who.memberId],
    );
    return { pending: Number(row.pending), summed: Number(row.summed) };
  };

  it('Bounties crossed by 20 concurrent conversions: exactly one bonus', async () => {
    // The twentieth crosses it: whichever commits last must see the nineteen others.
    const bounty = await s.bounty({ threshold: 20, amount_kopecks: 123_456 });
    const before = await pendingBalance().catch(() => ({ pending: 0, summed: 0 }));
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => s.sale(partner)));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);

    const bonuses = await s.bountyBonuses(partner);
    expect(bonuses).toEqual([
      {
        id: expect.any(String),
        source_id: bounty.bounty_id,
        amount_kopecks: '123456',
        status: 'pending',
        tier: null,
      },
    ]);
    const balance = await pendingBalance();
    expect(balance.pending).toBe(balance.summed);
    expect(balance.pending - before.pending).toBeGreaterThanOrEqual(123_456);
    const [conversionBonuses] = await s.t.db.query(
      `SELECT coalesce(sum(amount_kopecks), 0)::bigint AS sum FROM bonuses
        WHERE tenant_id = $1 AND member_id = $2 AND source_type <> 'bounty'`,
      [s.tenant.orgId, partner.memberId],
    );
    expect(balance.pending).toBe(Number(conversionBonuses.sum) + 123_456);

    const pending = (await eventsOf(s.t, s.tenant.orgId, 'bonus.pending')).filter(
      (e) => e.payload.source_type === 'bounty',
    );
    expect(pending.map((e) => e.payload)).toEqual([
      {
        bonus_id: bonuses[0].id,
        user_id: partner.serviceUserId,
        amount_kopecks: 123_456,
        currency: 'RUB',
        source_type: 'bounty',
        source_id: bounty.bounty_id,
      },
    ]);
    const reached = await eventsOf(s.t, s.tenant.orgId, 'bounty.reached');
    expect(reached.map((e) => e.payload)).toEqual([
      {
        bounty_id: bounty.bounty_id,
        user_id: partner.serviceUserId,
        bonus_id: bonuses[0].id,
        value: 20,
        threshold: 20,
      },
    ]);
    expect(await progress(bounty.bounty_id)).toEqual({
      user_id: partner.serviceUserId,
      value: 20,
      threshold: 20,
      reached: true,
      reached_at: expect.any(String),
      bonus_id: bonuses[0].id,
    });
    const listed = await adminApi(s.t, s.manager).listBonuses(s.tenant.slug, {
      user_id: partner.serviceUserId,
      page_size: 100,
    });
    expect(
      (listed.body.items as { source_type: string }[]).filter((b) => b.source_type === 'bounty'),
    ).toHaveLength(1);
  });

  it('a reversal that drops the partner below the threshold does not take the bonus back', async () => {
    const bounty = await s.bounty({ threshold: 2 });
    const first = await s.sale(partner);
    await s.sale(partner);
    expect(await s.bountyBonuses(partner)).toHaveLength(1);
    expect((await s.reverse(first.conversion_id)).status).toBe(200);
    expect(await s.bountyBonuses(partner)).toEqual([
      expect.objectContaining({ status: 'pending', source_id: bounty.bounty_id }),
    ]);
    expect(await progress(bounty.bounty_id)).toMatchObject({ value: 1, reached: true });
    await s.sale(partner); // back at the threshold: still one bonus
    expect(await s.bountyBonuses(partner)).toHaveLength(1);
  });

  it('pays only partners of its group', async () => {
    const gold = await s.group({ slug: 'gold' });
    const bounty = await s.bounty({ threshold: 1, group_id: gold.group_id });
    const insider = await upsertUser(s.t, s.tenant.key, { full_name: 'Insider' });
    expect((await s.moveMember(insider.serviceUserId, gold.group_id)).status).toBe(200);
    await s.sale(partner);
    await s.sale(insider);
    expect(await s.bountyBonuses(partner)).toEqual([]);
    expect(await s.bountyBonuses(insider)).toHaveLength(1);
    expect(await progress(bounty.bounty_id)).toBeUndefined();
    expect(await progress(bounty.bounty_id, insider)).toMatchObject({ value: 1, reached: true });
  });

  it('counts only conversions within its period', async () => {
    await s.sale(partner); // before the bounty starts
    const bounty = await s.bounty({ threshold: 2, starts_at: new Date().toISOString() });
    await s.sale(partner);
    expect(await s.bountyBonuses(partner)).toEqual([]);
    expect(await progress(bounty.bounty_id)).toMatchObject({ value: 1, reached: false });
    const ended = await s.updateBounty(bounty.bounty_id, { ends_at: new Date().toISOString() });
    expect(ended.status).toBe(200);
    await s.sale(partner); // after it ended
    await s.sale(partner);
    expect(await s.bountyBonuses(partner)).toEqual([]);
    expect(await progress(bounty.bounty_id)).toMatchObject({ value: 1, reached: false });
    const future = await s.bounty({ starts_at: new Date(Date.now() + 3_600_000).toISOString() });
    await s.sale(partner);
    expect(await progress(future.bounty_id)).toBeUndefined();
  });

  it('counts whole days from the rollup and the parts of days at its ends from conversions', async () => {
    const day = 24 * 3_600_000;
    const midnight = Math.floor(Date.now() / day) * day;
    const startsAt = new Date(midnight - 3 * day + 12 * 3_600_000); // three days ago, noon
    const sales = [];
    for (let i = 0; i < 4; i++) sales.push(await s.sale(partner));
    const backdate = async (conversionId: string, at: number) =>
      s.t.db.query(`UPDATE conversions SET created_at = $3 WHERE tenant_id = $1 AND id = $2`, [
        s.tenant.orgId,
        conversionId,
        new Date(at),
      ]);
    await backdate(sales[0].conversion_id, midnight - 3 * day + 10 * 3_600_000); // before noon
    await backdate(sales[1].conversion_id, midnight - 3 * day + 13 * 3_600_000); // the first part-day
    await backdate(sales[2].conversion_id, midnight - 2 * day + 5 * 3_600_000); // a whole day
    // sales[3]: today, a whole day of an open-ended bounty
    const open = await s.bounty({ threshold: 100, starts_at: startsAt.toISOString() });
    expect(await progress(open.bounty_id)).toMatchObject({ value: 3 });
    const closed = await s.bounty({
      threshold: 100,
      starts_at: startsAt.toISOString(),
      ends_at: new Date(midnight - 2 * day + 4 * 3_600_000).toISOString(), // before sales[2]
    });
    expect(await progress(closed.bounty_id)).toMatchObject({ value: 1 });
  });

  it('counts revenue in its own currency', async () => {
    const bounty = await s.bounty({
      metric: 'revenue_kopecks',
      threshold: 30_000,
      amount_kopecks: 1_000,
      currency: 'RUB',
    });
    await s.sale(partner, 20_000, 'USD');
    await s.sale(partner, 20_000, 'RUB');
    expect(await s.bountyBonuses(partner)).toEqual([]);
    expect(await progress(bounty.bounty_id)).toMatchObject({ value: 20_000, reached: false });
    await s.sale(partner, 10_000, 'RUB');
    expect(await s.bountyBonuses(partner)).toEqual([
      expect.objectContaining({ amount_kopecks: '1000', source_id: bounty.bounty_id }),
    ]);
  });

  it('a bounty of 0 marks the partner as reached without a bonus', async () => {
    const bounty = await s.bounty({ threshold: 1, amount_kopecks: 0 });
    await s.sale(partner);
    expect(await s.bountyBonuses(partner)).toEqual([]);
    expect(await progress(bounty.bounty_id)).toMatchObject({ reached: true, bonus_id: null });
  });
});
