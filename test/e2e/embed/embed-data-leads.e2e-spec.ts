/**
 * The Embed Data API's figures through the life of bonuses, and its leads and partners lists
 * (seed 4.1; docs/money.md.2, 4). Setup: embed-data-suite.
 */
import { createLead, registerConversion } from '../../factories/money.factory';
import { createTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { adminApi } from '../../utils/api-client';
import {
  embedDataSuite,
  ISO_MS,
  LEAD_LABELS,
  type LeadStatus,
  money,
  type Bonus,
} from '../../utils/embed-data-suite';

describe('embed data: figures, leads and partners', () => {
  const d = embedDataSuite();

  describe('figures through the life of bonuses', () => {
    it('pending on accrual, cleared on approval, out on rejection and reversal', async () => {
      const u = await upsertUser(d.t, d.tenant.key, { full_name: 'Life Upline' });
      const p = await upsertUser(d.t, d.tenant.key, {
        full_name: 'Life Partner',
        referrer_user_id: u.serviceUserId,
      });
      const leads: string[] = [];
      for (let i = 0; i < 3; i++) leads.push(await createLead(d.t, d.tenant.key, p.serviceUserId));
      await d.expectFigures(p, 0, 0);

      const amounts = [100_000, 50_000, 30_000];
      const conversions: Awaited<ReturnType<typeof registerConversion>>[] = [];
      for (let i = 0; i < 3; i++) {
        conversions.push(
          await registerConversion(d.t, d.tenant.key, {
            lead_id: leads[i],
            amount_kopecks: amounts[i],
            external_order_id: `life-${d.tenant.slug}-${i}`,
          }),
        );
      }
      const mine = (i: number) =>
        conversions[i].cascaded_bonuses.find((b) => b.user_id === p.serviceUserId)!.bonus_id;
      const theirs = (i: number) =>
        conversions[i].cascaded_bonuses.find((b) => b.user_id === u.serviceUserId)!.bonus_id;
      await d.expectFigures(p, 0, 10_000 + 5_000 + 3_000);
      await d.expectFigures(u, 0, 3_000 + 1_500 + 900);

      await d.approve(mine(0));
      await d.expectFigures(p, 10_000, 5_000 + 3_000);

      await d.reject(mine(1));
      await d.expectFigures(p, 10_000, 3_000);

      await d.approve(theirs(1));
      await d.expectFigures(u, 1_500, 3_000 + 900);

      // Reversing writes off approved and pending amounts alike.
      await d.reverse(conversions[0].conversion_id);
      await d.expectFigures(p, 0, 3_000);
      await d.expectFigures(u, 1_500, 900);

      await d.reverse(conversions[1].conversion_id);
      await d.expectFigures(u, 0, 900);
      const { cabinet } = await d.expectFigures(p, 0, 3_000);

      // Every status counts as a lead; the statuses show in the transactions.
      expect(cabinet.kpi.leads_count).toBe(3);
      const status = new Map(cabinet.transactions.map((x: Bonus) => [x.bonus_id, x.status]));
      expect(status.get(mine(0))).toBe('reversed');
      expect(status.get(mine(1))).toBe('rejected');
      expect(status.get(mine(2))).toBe('pending');
    });

    it('a lead bonus is a transaction without tier; rejecting the lead takes it out', async () => {
      const lt = await createTenant(d.t, {
        program: {
          lead_bonus_kopecks: 700,
          tiers: [{ tier: 'referrer', percent_bp: 1000 }],
          grace_period_hours: 336,
        },
      });
      const p = await upsertUser(d.t, lt.key, { full_name: 'Lead Bonus' });
      const leadId = await createLead(d.t, lt.key, p.serviceUserId);
      const before = await d.ok('cabinet', p.memberId, '', lt);
      expect(before.kpi).toMatchObject({
        leads_count: 1,
        pending_kopecks: 700,
        cleared_kopecks: 0,
      });
      expect(before.transactions).toEqual([
        expect.objectContaining({
          status: 'pending',
          amount_kopecks: 700,
          amount_formatted: money(700),
          currency: 'RUB',
          source_type: 'lead',
          source_id: leadId,
          tier: null,
        }),
      ]);

      await d.setLeadStatus(leadId, 'rejected', lt);
      const after = await d.ok('cabinet', p.memberId, '', lt);
      expect(after.kpi).toMatchObject({ leads_count: 1, pending_kopecks: 0, cleared_kopecks: 0 });
      expect(after.transactions[0]).toMatchObject({ source_id: leadId, status: 'rejected' });
      expect(after.recent_leads[0]).toMatchObject({
        id: leadId,
        status: 'rejected',
        status_human: 'Отклонён',
      });
    });
  });

  describe('leads', () => {
    it('filters by status, newest first, with filters and pagination', async () => {
      const expectIds = (status: LeadStatus | 'all') =>
        d.leadIds
          .map((id, i) => ({ id, status: d.leadStatuses[i] }))
          .filter((l) => status === 'all' || l.status === status)
          .map((l) => l.id)
          .reverse();

      const byDefault = await d.ok('leads', d.partner.memberId);
      expect(Object.keys(byDefault).sort()).toEqual(
        ['filters', 'leads', 'pagination', 'tenant', 'user'].sort(),
      );
      expect(byDefault.filters).toEqual({ status: 'all' });
      expect(byDefault.pagination).toEqual({ page: 1, page_size: 20, total: 7, total_pages: 1 });
      expect(byDefault.leads.map((l: { id: string }) => l.id)).toEqual(expectIds('all'));

      for (const status of ['all', 'new', 'processed', 'converted', 'rejected'] as const) {
        const body = await d.ok('leads', d.partner.memberId, `&status=${status}`);
        const ids = expectIds(status);
        expect(body.filters).toEqual({ status });
        expect(body.pagination).toEqual({
          page: 1,
          page_size: 20,
          total: ids.length,
          total_pages: 1,
        });
        expect(body.leads.map((l: { id: string }) => l.id)).toEqual(ids);
        for (const item of body.leads) {
          expect(Object.keys(item)).toEqual(
            expect.arrayContaining([
              'id',
              'status',
              'status_human',
              'contact_name',
              'relative_time',
            ]),
          );
          expect(item.status_human).toBe(LEAD_LABELS.ru[item.status as LeadStatus]);
          if (status !== 'all') expect(item.status).toBe(status);
        }
      }

      const first = await d.ok('leads', d.partner.memberId, '&status=new&page_size=3');
      expect(first.pagination).toEqual({ page: 1, page_size: 3, total: 4, total_pages: 2 });
      const second = await d.ok('leads', d.partner.memberId, '&status=new&page_size=3&page=2');
      expect(second.pagination).toEqual({ page: 2, page_size: 3, total: 4, total_pages: 2 });
      expect([...first.leads, ...second.leads].map((l: { id: string }) => l.id)).toEqual(
        expectIds('new'),
      );
      const exact = await d.ok('leads', d.partner.memberId, '&page_size=7');
      expect(exact.pagination.total_pages).toBe(1);
      const seven = await d.ok('leads', d.partner.memberId, '&page_size=2');
      expect(seven.pagination).toEqual({ page: 1, page_size: 2, total: 7, total_pages: 4 });
    });

    it('is empty with total_pages 0 when nothing matches', async () => {
      const none = await d.ok('leads', d.children[2].memberId);
      expect(none.leads).toEqual([]);
      expect(none.pagination).toEqual({ page: 1, page_size: 20, total: 0, total_pages: 0 });
      const filtered = await d.ok('leads', d.children[0].memberId, '&status=converted');
      expect(filtered.leads).toEqual([]);
      expect(filtered.filters).toEqual({ status: 'converted' });
      expect(filtered.pagination).toEqual({ page: 1, page_size: 20, total: 0, total_pages: 0 });
    });
  });

  describe('partners', () => {
    it('lists direct referrals newest first and shows deactivation', async () => {
      const body = await d.ok('partners', d.partner.memberId);
      expect(Object.keys(body).sort()).toEqual(['pagination', 'partners', 'tenant', 'user'].sort());
      expect(body.user).toMatchObject({
        id_surrogate: d.partner.memberId,
        display_name: 'Мария Иванова',
        badge: { role_label: 'Партнёр' },
      });
      expect(body.pagination).toEqual({ page: 1, page_size: 20, total: 3, total_pages: 1 });
      const expected = [...d.children].reverse();
      expect(body.partners).toHaveLength(3);
      body.partners.forEach((item: Record<string, unknown>, i: number) => {
        expect(item).toEqual({
          user_id: expected[i].memberId,
          display_name: `Child ${3 - i}`,
          partnership_role: 'partner',
          joined_at: expect.stringMatching(ISO_MS),
          is_active: true,
        });
      });
      const joined = body.partners.map((p: { joined_at: string }) => p.joined_at);
      expect([...joined].sort().reverse()).toEqual(joined);

      const deactivated = await adminApi(d.t, d.t.adminToken).setMemberActive(
        d.tenant.slug,
        d.children[1].memberId,
        false,
      );
      expect(deactivated.status).toBe(200);
      const after = await d.ok('partners', d.partner.memberId);
      expect(
        after.partners.map((p: { user_id: string; is_active: boolean }) => [
          p.user_id,
          p.is_active,
        ]),
      ).toEqual([
        [d.children[2].memberId, true],
        [d.children[1].memberId, false],
        [d.children[0].memberId, true],
      ]);

      const page1 = await d.ok('partners', d.partner.memberId, '&page_size=2');
      const page2 = await d.ok('partners', d.partner.memberId, '&page_size=2&page=2');
      expect(page1.pagination).toEqual({ page: 1, page_size: 2, total: 3, total_pages: 2 });
      expect(page2.pagination).toEqual({ page: 2, page_size: 2, total: 3, total_pages: 2 });
      expect(
        [...page1.partners, ...page2.partners].map((p: { user_id: string }) => p.user_id),
      ).toEqual(expected.map((c) => c.memberId));

      const none = await d.ok('partners', d.children[2].memberId);
      expect(none.partners).toEqual([]);
      expect(none.pagination).toEqual({ page: 1, page_size: 20, total: 0, total_pages: 0 });
    });
  });
});
