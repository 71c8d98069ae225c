/**
 * Money under real concurrency over HTTP: parallel approvals, reversals, conversions and the
 * approval sweep (also across two app instances and through the Bull worker). Setup: money-suite.
 */
import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { BONUSES_QUEUE } from '../../../src/bonuses/bonuses.queue';
import { BonusesService } from '../../../src/bonuses/bonuses.service';
import { createLead, eventsOf, registerConversion } from '../../factories/money.factory';
import { createStaffToken, createTenant } from '../../factories/tenants.factory';
import { createChain, upsertUser } from '../../factories/users.factory';
import { createTestApp } from '../../utils/create-test-app';
import { moneySuite, TIERS } from '../../utils/money-suite';

describe('money: races', () => {
  const s = moneySuite();

  describe('races (real concurrency over HTTP)', () => {
    it('20 parallel approvals of one bonus: exactly one 200 and one bonus.approved', async () => {
      const partner = await upsertUser(s.t, s.tenant.key);
      const created = await s.admin().createBonus(s.tenant.slug, {
        user_id: partner.serviceUserId,
        amount_kopecks: 1000,
        currency: 'RUB',
        reason: 'race',
      });
      const results = await Promise.all(
        Array.from({ length: 20 }, () => s.approve(created.body.bonus_id)),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, ...Array(19).fill(409)]);
      for (const r of results.filter((x) => x.status === 409)) {
        expect(r.body.code).toBe('invalid_transition');
      }
      expect(await eventsOf(s.t, s.tenant.orgId, 'bonus.approved')).toHaveLength(1);
      expect(await s.auditOf('bonus.approved')).toHaveLength(1);
    });

    it('parallel reversals of one conversion: one 200, one conversion.reversed', async () => {
      const { leadId } = await s.chainWithLead(3);
      const conv = await registerConversion(s.t, s.tenant.key, {
        lead_id: leadId,
        amount_kopecks: 100_000,
        external_order_id: 'race-rv',
      });
      const results = await Promise.all(
        Array.from({ length: 10 }, () => s.reverse(conv.conversion_id)),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, ...Array(9).fill(409)]);
      for (const r of results.filter((x) => x.status === 409)) {
        expect(r.body.code).toBe('already_reversed');
      }
      const winner = results.find((r) => r.status === 200)!;
      expect(winner.body.written_off).toHaveLength(3);
      expect(await eventsOf(s.t, s.tenant.orgId, 'conversion.reversed')).toHaveLength(1);
      const reversed = await s.listBonuses({ status: 'reversed' });
      expect(reversed.body.pagination.total).toBe(3);
    });

    it('approve racing reverse ends consistent: reversed, and events match what happened', async () => {
      const { leadId } = await s.chainWithLead(1);
      for (let round = 0; round < 6; round++) {
        const conv = await registerConversion(s.t, s.tenant.key, {
          lead_id: leadId,
          amount_kopecks: 10_000,
          external_order_id: `race-${round}`,
        });
        const bonusId = conv.cascaded_bonuses[0].bonus_id;
        const [approved, reversed] = await Promise.all([
          s.approve(bonusId),
          s.reverse(conv.conversion_id),
        ]);
        expect(reversed.status).toBe(200);
        expect([200, 409]).toContain(approved.status);
        // Pending or approved, the bonus is written off either way.
        expect(reversed.body.written_off.map((b: { bonus_id: string }) => b.bonus_id)).toEqual([
          bonusId,
        ]);
        const final = await s.bonus(bonusId);
        expect(final.status).toBe('reversed');
        const approvedEvents = (await eventsOf(s.t, s.tenant.orgId, 'bonus.approved')).filter(
          (e) => e.payload.bonus_id === bonusId,
        );
        if (approved.status === 200) {
          expect(approvedEvents).toHaveLength(1);
          expect(final.approved_at).toBe(approved.body.approved_at);
        } else {
          expect(approved.body.code).toBe('invalid_transition');
          expect(approvedEvents).toHaveLength(0);
          expect(final.approved_at).toBeNull();
        }
        const reversedEvents = (await eventsOf(s.t, s.tenant.orgId, 'conversion.reversed')).filter(
          (e) => e.payload.conversion_id === conv.conversion_id,
        );
        expect(reversedEvents).toHaveLength(1);
      }
    });

    it('one order registered at once for two leads: one conversion, the other 409', async () => {
      const { referrer } = await s.chainWithLead(1);
      for (let round = 0; round < 3; round++) {
        const leadA = await createLead(s.t, s.tenant.key, referrer.serviceUserId);
        const leadB = await createLead(s.t, s.tenant.key, referrer.serviceUserId);
        const results = await Promise.all(
          [leadA, leadB, leadA, leadB].map((lead_id) =>
            s.register({ lead_id, amount_kopecks: 5_000, external_order_id: `dup-${round}` }),
          ),
        );
        const ok = results.filter((r) => r.status === 200);
        const conflicts = results.filter((r) => r.status === 409);
        expect(ok.length + conflicts.length).toBe(4);
        expect(ok.length).toBeGreaterThanOrEqual(1);
        expect(new Set(ok.map((r) => r.body.conversion_id)).size).toBe(1);
        for (const r of conflicts) expect(r.body.code).toBe('external_order_id_conflict');
        const rows: { lead_id: string }[] = await s.t.db.query(
          `SELECT lead_id FROM conversions WHERE tenant_id = $1 AND external_order_id = $2`,
          [s.tenant.orgId, `dup-${round}`],
        );
        expect(rows).toHaveLength(1);
        const loser = rows[0].lead_id === leadA ? leadB : leadA;
        expect(await s.leadStatus(rows[0].lead_id)).toBe('converted');
        expect(await s.leadStatus(loser)).toBe('new');
      }
      const cascaded = await eventsOf(s.t, s.tenant.orgId, 'conversion.cascaded');
      expect(cascaded).toHaveLength(3);
      expect((await s.counts()).bonuses).toBe(3);
    });

    it('rejecting a lead while it converts: one wins, the other 409, the state agrees', async () => {
      const { referrer } = await s.chainWithLead(1);
      for (let round = 0; round < 4; round++) {
        const leadId = await createLead(s.t, s.tenant.key, referrer.serviceUserId);
        const [conv, rej] = await Promise.all([
          s.register({ lead_id: leadId, amount_kopecks: 5_000, external_order_id: `lr-${round}` }),
          s.fed().setLeadStatus(leadId, { status: 'rejected' }),
        ]);
        expect([conv.status, rej.status].sort()).toEqual([200, 409]);
        const status = await s.leadStatus(leadId);
        const [{ count }] = await s.t.db.query(
          `SELECT count(*)::int AS count FROM conversions WHERE tenant_id = $1 AND lead_id = $2`,
          [s.tenant.orgId, leadId],
        );
        if (conv.status === 200) {
          expect(status).toBe('converted');
          expect(count).toBe(1);
          expect(rej.body.code).toBe('invalid_transition');
        } else {
          expect(status).toBe('rejected');
          expect(count).toBe(0);
          expect(conv.body.code).toBe('invalid_transition');
        }
      }
    });

    it('a staff approval racing the sweep approves once with one event', async () => {
      const due = await createTenant(s.t, { program: { grace_period_hours: 0 } });
      const owner = await createStaffToken(s.t, due.slug, 'owner');
      const partner = await upsertUser(s.t, due.key);
      const sweeper = s.t.app.get(BonusesService);
      for (let round = 0; round < 4; round++) {
        const created = await s.admin(owner).createBonus(due.slug, {
          user_id: partner.serviceUserId,
          amount_kopecks: 100,
          currency: 'RUB',
          reason: 'r',
        });
        const [res] = await Promise.all([
          s.admin(owner).approveBonus(due.slug, created.body.bonus_id),
          sweeper.approveDue(),
        ]);
        expect([200, 409]).toContain(res.status);
        const events = (await eventsOf(s.t, due.orgId, 'bonus.approved')).filter(
          (e) => e.payload.bonus_id === created.body.bonus_id,
        );
        expect(events).toHaveLength(1);
      }
    });

    it('two sweeps at once (two app instances) approve each due bonus once, one event each', async () => {
      const due = await createTenant(s.t, { program: { tiers: TIERS, grace_period_hours: 0 } });
      const chain = await createChain(s.t, due.key, 3);
      const bonusIds: string[] = [];
      for (let i = 0; i < 10; i++) {
        const leadId = await createLead(s.t, due.key, chain[2].serviceUserId);
        const conv = await registerConversion(s.t, due.key, {
          lead_id: leadId,
          amount_kopecks: 10_000 + i,
          external_order_id: `sweep-${i}`,
        });
        bonusIds.push(...conv.cascaded_bonuses.map((b) => b.bonus_id));
      }
      expect(bonusIds).toHaveLength(30);
      const [{ lagging }] = await s.t.db.query(
        `SELECT count(*)::int AS lagging FROM bonuses WHERE tenant_id = $1 AND due_at > now()`,
        [due.orgId],
      );
      expect(lagging).toBe(0);

      const t2 = await createTestApp();
      try {
        const a = s.t.app.get(BonusesService);
        const b = t2.app.get(BonusesService);
        expect(a).not.toBe(b);
        // Small batches so the sweeps interleave over several transactions each; every batch
        // touches the same three partners.
        await Promise.all([2, 3, 2, 3, 2, 3].map((size, i) => (i % 2 ? b : a).approveDue(size)));
      } finally {
        await t2.close();
      }
      const rows: { id: string; status: string }[] = await s.t.db.query(
        `SELECT id, status FROM bonuses WHERE tenant_id = $1`,
        [due.orgId],
      );
      expect(rows.map((r) => r.status)).toEqual(Array(30).fill('approved'));
      const events = await eventsOf(s.t, due.orgId, 'bonus.approved');
      expect(events.map((e) => e.payload.bonus_id as string).sort()).toEqual([...bonusIds].sort());
    });

    it('the worker’s repeatable sweep (Bull) approves a grace-0 bonus within seconds', async () => {
      const prefix = `${process.env.TEST_QUEUE_PREFIX ?? 'test'}:sweep${randomBytes(3).toString('hex')}`;
      const worker = await createTestApp({ BONUS_APPROVAL_SWEEP_MS: '500', QUEUE_PREFIX: prefix });
      const completed: unknown[] = [];
      try {
        const queue = worker.app.get<Queue>(getQueueToken(BONUSES_QUEUE), { strict: false });
        queue.on('completed', (_job, result) => completed.push(result));

        const due = await createTenant(s.t, { program: { grace_period_hours: 0 } });
        const owner = await createStaffToken(s.t, due.slug, 'owner');
        const partner = await upsertUser(s.t, due.key);
        const created = await s.admin(owner).createBonus(due.slug, {
          user_id: partner.serviceUserId,
          amount_kopecks: 4_200,
          currency: 'RUB',
          reason: 'sweep',
        });
        expect(created.status).toBe(201);
        expect(created.body.status).toBe('pending');

        let status = 'pending';
        const deadline = Date.now() + 8_000;
        while (status === 'pending' && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 200));
          const list = await s.admin(owner).listBonuses(due.slug);
          status = list.body.items[0].status;
        }
        expect(status).toBe('approved');
        const repeatable = await queue.getRepeatableJobs();
        expect(repeatable.map((j) => Number(j.every))).toEqual([500]);
        // The worker's own repeatable job ran (not only some other process's sweep), which may
        // finish just after another process's sweep approved the bonus.
        for (let i = 0; i < 50 && completed.length === 0; i++) {
          await new Promise((r) => setTimeout(r, 100));
        }
        expect(completed.length).toBeGreaterThan(0);
        const events = await eventsOf(s.t, due.orgId, 'bonus.approved');
        expect(events.map((e) => e.payload.bonus_id)).toEqual([created.body.bonus_id]);
      } finally {
        await worker.close();
        const redis = new Redis(worker.config.redisUrl);
        const keys = await redis.keys(`${prefix}:*`);
        if (keys.length) await redis.del(...keys);
        redis.disconnect();
      }
    });
  });
});
