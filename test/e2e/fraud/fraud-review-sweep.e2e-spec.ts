import { BonusesService } from '../../../src/bonuses/bonuses.service';
import { eventsOf } from '../../factories/money.factory';
import { federation } from '../../factories/fraud.factory';
import { createStaffToken, createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser, UpsertedMember } from '../../factories/users.factory';
import { adminApi } from '../../utils/api-client';
import { createTestApp, TestApp } from '../../utils/create-test-app';

/**
 * docs/fraud.md, "Flagged bonuses": the grace-period sweep never approves a flagged bonus, not even
 * while staff approve it at the same moment; staff approval clears the review, once.
 */
jest.setTimeout(90_000);

describe('fraud: the sweep and flagged bonuses', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let manager: string;
  let partner: UpsertedMember;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    // Grace 0: every bonus is due at once, so only the flag can hold one back.
    tenant = await createTenant(t, {
      program: { lead_bonus_kopecks: 500, grace_period_hours: 0 },
    });
    manager = await createStaffToken(t, tenant.slug, 'manager');
    partner = await upsertUser(t, tenant.key);
  });

  const sweep = () => t.app.get(BonusesService).approveDue(7);
  async function leadBonus(email: string): Promise<string> {
    const res = await federation(t, tenant, '/federation/v1/leads', {
      referrer_user_id: partner.serviceUserId,
      contact: { name: 'C', email },
    });
    const [bonus] = await t.db.query(
      `SELECT id FROM bonuses WHERE tenant_id = $1 AND source_id = $2`,
      [tenant.orgId, res.body.lead_id],
    );
    return bonus.id;
  }
  const statusOf = async (ids: string[]) =>
    (
      await t.db.query(
        `SELECT id, status, review FROM bonuses WHERE tenant_id = $1 AND id = ANY($2) ORDER BY id`,
        [tenant.orgId, ids],
      )
    ).map((r: { id: string; status: string; review: { status: string } | null }) => ({
      id: r.id,
      status: r.status,
      review: r.review?.status ?? null,
    }));

  it('sweeps running at once approve every due honest bonus and no flagged one', async () => {
    const flagged = await Promise.all(
      Array.from({ length: 12 }, (_, i) => leadBonus(`f${i}@mailinator.com`)),
    );
    const honest = await Promise.all(
      Array.from({ length: 12 }, (_, i) => leadBonus(`h${i}@gmail.com`)),
    );
    await Promise.all(Array.from({ length: 6 }, sweep));
    await sweep();
    for (const b of await statusOf(flagged))
      expect(b).toMatchObject({ status: 'pending', review: 'flagged' });
    for (const b of await statusOf(honest))
      expect(b).toMatchObject({ status: 'approved', review: null });
    const approved = (await eventsOf(t, tenant.orgId, 'bonus.approved')).map(
      (e) => e.payload.bonus_id,
    );
    expect([...approved].sort()).toEqual([...honest].sort());
  });

  it('staff approving flagged bonuses while sweeps run: each approved once, by staff, review cleared', async () => {
    const flagged = await Promise.all(
      Array.from({ length: 10 }, (_, i) => leadBonus(`r${i}@mailinator.com`)),
    );
    const approve = (id: string) => adminApi(t, manager).approveBonus(tenant.slug, id);
    const click = (id: string) => approve(id).then((res) => ({ id, res }));
    const clicks = flagged.flatMap((id) => [click(id), click(id)]);
    const sweeps = Array.from({ length: 6 }, sweep);
    const [answers] = await Promise.all([Promise.all(clicks), Promise.all(sweeps)]);

    for (const id of flagged) {
      const mine = answers.filter((a) => a.id === id).map((a) => a.res);
      expect(mine.map((a) => a.status).sort()).toEqual([200, 409]);
      const ok = mine.find((a) => a.status === 200)!;
      expect(ok.body.review).toMatchObject({ status: 'cleared' });
      expect(ok.body.review!.signals.map((s) => s.code)).toEqual(['disposable_email']);
    }
    for (const b of await statusOf(flagged))
      expect(b).toMatchObject({ status: 'approved', review: 'cleared' });
    const approved = (await eventsOf(t, tenant.orgId, 'bonus.approved')).map(
      (e) => e.payload.bonus_id,
    );
    expect([...approved].sort()).toEqual([...flagged].sort());
    // Every approval is the staff's own, in the audit log.
    const [{ count }] = await t.db.query(
      `SELECT count(*)::int AS count FROM audit_log WHERE tenant_id = $1 AND action = 'bonus.approved'`,
      [tenant.orgId],
    );
    expect(count).toBe(flagged.length);
  });

  it('staff may reject a flagged bonus; the review stays flagged on the rejected bonus', async () => {
    const id = await leadBonus('x@mailinator.com');
    const res = await adminApi(t, manager).rejectBonus(tenant.slug, id, {
      reason: 'fake customer',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'rejected', review: { status: 'flagged' } });
  });
});
