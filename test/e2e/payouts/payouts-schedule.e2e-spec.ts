import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { PayoutScheduleWorker } from '../../../src/payouts/payout-schedule.worker';
import {
  PAYOUTS_QUEUE,
  SCHEDULED_RUNS_CRON,
  SCHEDULED_RUNS_JOB,
} from '../../../src/payouts/payouts.queue';
import { createLead, eventsOf } from '../../factories/money.factory';
import { approveBonus, invariantViolations } from '../../factories/payouts.factory';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { newRunId } from '../../utils/test-env';

/**
 * docs/payouts.md §6: the worker runs a tenant's payouts on its schedule's day, once, however many
 * workers run. Two worker apps (PROCESS_ROLE=worker) share this file's own Bull prefix, real Redis
 * and the run's PostgreSQL; the day's repeatable job is made to fire now (promoted), then fired
 * again on both workers at once.
 */
jest.setTimeout(120_000);

const LEAD_BONUS = 700;

describe('Payouts: the schedule worker (e2e)', () => {
  let a: TestApp;
  let b: TestApp;
  let queue: Queue;
  /** ISO weekday (1 = Monday) and UTC date of the day the test runs on. */
  let weekday: number;
  let day: string;

  beforeAll(async () => {
    // The worker decides by the UTC day at which it runs: keep the whole file inside one day.
    const msToMidnight = 86_400_000 - (Date.now() % 86_400_000);
    if (msToMidnight < 90_000) await new Promise((r) => setTimeout(r, msToMidnight + 1000));
    const now = new Date();
    weekday = now.getUTCDay() || 7;
    day = now.toISOString().slice(0, 10);
    const env = { PROCESS_ROLE: 'worker', QUEUE_PREFIX: `paysched_${newRunId()}` };
    a = await createTestApp(env);
    b = await createTestApp(env);
    queue = a.app.get<Queue>(getQueueToken(PAYOUTS_QUEUE));
  });
  afterAll(async () => {
    await queue?.obliterate({ force: true }).catch(() => undefined);
    await b?.close();
    await a?.close();
  });

  /** A tenant with minimum 1 and one partner holding two approved lead bonuses. */
  async function tenantWith(schedule: string) {
    const tenant = await createTenant(a, {
      program: { lead_bonus_kopecks: LEAD_BONUS, grace_period_hours: 0 },
      payouts: { minimum_kopecks: 1, schedule },
    });
    const partner = await upsertUser(a, tenant.key);
    for (const n of [1, 2]) {
      const lead = await createLead(a, tenant.key, partner.serviceUserId, {
        contact: { name: 'Buyer', email: `buyer${n}@example.org` },
      });
      const [bonus]: { id: string }[] = await a.db.query(
        `SELECT id FROM bonuses WHERE tenant_id = $1 AND source_id = $2`,
        [tenant.orgId, lead],
      );
      await approveBonus(a, tenant.slug, bonus.id);
    }
    return { tenant, partner };
  }

  interface RunRow {
    id: string;
    trigger: string;
    schedule_key: string;
    payouts_count: number;
    total: number;
  }
  const runsOf = (tenant: TestTenant) =>
    a.db.query<RunRow[]>(
      `SELECT id, trigger, schedule_key, payouts_count, total_kopecks::int AS total
         FROM payout_runs WHERE tenant_id = $1 ORDER BY id`,
      [tenant.orgId],
    );

  async function until(what: string, check: () => Promise<boolean>, ms = 30_000) {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  /** Nothing waiting or running on the queue (the next day's repeat stays delayed). */
  const queueIdle = async () => {
    const counts = await queue.getJobCounts();
    return counts.waiting === 0 && counts.active === 0;
  };

  it('fires the repeatable job: the scheduled tenant gets one run, the others none', async () => {
    const scheduled = await tenantWith(`weekly:${weekday}`);
    const manual = await tenantWith('manual');
    const otherDay = await tenantWith(`weekly:${(weekday % 7) + 1}`);

    // Both workers registered the daily job; Bull keeps it once.
    await until('the repeatable job', async () => (await queue.getRepeatableJobs()).length > 0);
    const repeatable = await queue.getRepeatableJobs();
    expect(repeatable).toHaveLength(1);
    expect(repeatable[0]).toMatchObject({
      name: SCHEDULED_RUNS_JOB,
      cron: SCHEDULED_RUNS_CRON,
      tz: 'UTC',
    });
    expect(await runsOf(scheduled.tenant)).toEqual([]);

    // Midnight, now: the delayed occurrence is promoted and one of the two workers takes it.
    const [next] = (await queue.getDelayed()).filter((j) => j.name === SCHEDULED_RUNS_JOB);
    expect(next).toBeDefined();
    await next.promote();
    await until('the scheduled run', async () => (await runsOf(scheduled.tenant)).length > 0);
    await until('the queue to drain', queueIdle);

    const [run, ...more] = await runsOf(scheduled.tenant);
    expect(more).toEqual([]);
    expect(run).toMatchObject({
      trigger: 'schedule',
      schedule_key: day,
      payouts_count: 1,
      total: 2 * LEAD_BONUS,
    });
    const payouts: { member_id: string; amount_kopecks: string; status: string }[] =
      await a.db.query(
        `SELECT member_id, amount_kopecks, status FROM payouts WHERE tenant_id = $1 AND run_id = $2`,
        [scheduled.tenant.orgId, run.id],
      );
    expect(payouts).toEqual([
      {
        member_id: scheduled.partner.memberId,
        amount_kopecks: String(2 * LEAD_BONUS),
        status: 'pending',
      },
    ]);
    expect(await eventsOf(a, scheduled.tenant.orgId, 'payout.created')).toHaveLength(1);
    expect(await invariantViolations(a, scheduled.tenant.orgId)).toEqual([]);

    // No schedule, or another day's: no run, the balance waits.
    for (const other of [manual, otherDay]) {
      expect(await runsOf(other.tenant)).toEqual([]);
      expect(await eventsOf(a, other.tenant.orgId, 'payout.created')).toEqual([]);
      const [balance]: { available_kopecks: string }[] = await a.db.query(
        `SELECT available_kopecks FROM ledger_balances WHERE tenant_id = $1 AND member_id = $2`,
        [other.tenant.orgId, other.partner.memberId],
      );
      expect(Number(balance.available_kopecks)).toBe(2 * LEAD_BONUS);
    }
  });

  it('fired several times at once on both workers, the day still has one run per tenant', async () => {
    const scheduled = await tenantWith(`weekly:${weekday}`);
    const manual = await tenantWith('manual');

    // Two more occurrences through Bull (either worker may take each) racing direct calls of
    // both workers' schedules, as a double fire or a retried job would.
    await Promise.all([queue.add(SCHEDULED_RUNS_JOB, {}), queue.add(SCHEDULED_RUNS_JOB, {})]);
    const direct = await Promise.all(
      [a, b, a, b].map((t) => t.app.get(PayoutScheduleWorker).runDue(new Date())),
    );
    await until('the queue to drain', queueIdle);

    const runs = await runsOf(scheduled.tenant);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ trigger: 'schedule', schedule_key: day, payouts_count: 1 });
    // At most one of the direct calls made it (the Bull jobs may have been first).
    expect(direct.filter((n) => n > 0).length).toBeLessThanOrEqual(1);
    const items: { n: number }[] = await a.db.query(
      `SELECT count(*)::int AS n FROM payouts, unnest(item_ids) AS item_id
        WHERE tenant_id = $1 GROUP BY item_id`,
      [scheduled.tenant.orgId],
    );
    expect(items).toEqual([{ n: 1 }, { n: 1 }]);
    expect(await eventsOf(a, scheduled.tenant.orgId, 'payout.created')).toHaveLength(1);
    expect(await invariantViolations(a, scheduled.tenant.orgId)).toEqual([]);
    expect(await runsOf(manual.tenant)).toEqual([]);
  });
});
