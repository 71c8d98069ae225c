/**
 * The Embed Data API's cabinet and bonuses bodies (seed 2.2, 4.1; docs/embedding.md): every field, the newest
 * leads and transactions, totals and accounts per currency. Setup: embed-data-suite.
 */
import { createLead, registerConversion } from '../../factories/money.factory';
import { upsertUser } from '../../factories/users.factory';
import {
  embedDataSuite,
  ISO_MS,
  LEAD_LABELS,
  money,
  recentTimes,
  type Bonus,
  withoutTimes,
} from '../../utils/embed-data-suite';

describe('embed data: cabinet and bonuses', () => {
  const d = embedDataSuite();

  describe('cabinet', () => {
    it('has every field of the seed and docs/embedding.md', async () => {
      const res = await d.embed('cabinet', d.partner.memberId);
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(d.origin);
      const body = res.body;
      expect(Object.keys(body).sort()).toEqual(
        ['balance', 'kpi', 'recent_leads', 'tenant', 'transactions', 'user'].sort(),
      );
      expect(body.user).toEqual({
        id_surrogate: d.partner.memberId,
        display_name: 'Мария Иванова',
        badge: { role_label: 'Партнёр' },
        claim_required: true,
      });
      expect(body.tenant).toEqual({ slug: d.tenant.slug, display_name: `Tenant ${d.tenant.slug}` });

      // Pending: the referrer bonus (10 % of 123 456) and manual 0..8; approved: manual 9.
      const referrerBonus = Math.floor((123_456 * 1000) / 10_000);
      const pending =
        referrerBonus + d.manual.slice(0, 9).reduce((s, b) => s + b.amount_kopecks, 0);
      const cleared = d.manual[9].amount_kopecks;
      expect(body.kpi).toEqual({
        leads_count: 7,
        cleared_kopecks: cleared,
        pending_kopecks: pending,
        cleared_formatted: money(cleared),
        pending_formatted: money(pending),
        clicks_count: 0,
      });
      // Nothing in a payout yet: all that is approved is available, and payable by the next
      // (manual) run, which needs the default minimum of 1 000,00 ₽.
      expect(body.balance).toEqual({
        currency: 'RUB',
        available_kopecks: cleared,
        in_payout_kopecks: 0,
        paid_kopecks: 0,
        pending_kopecks: pending,
        available_formatted: money(cleared),
        in_payout_formatted: money(0),
        paid_formatted: money(0),
        pending_formatted: money(pending),
        next_payout: {
          schedule: 'manual',
          date: null,
          date_formatted: null,
          minimum_kopecks: 100_000,
          minimum_formatted: money(100_000),
          payable_kopecks: cleared,
          payable_formatted: money(cleared),
          remaining_kopecks: 100_000 - cleared,
          remaining_formatted: money(100_000 - cleared),
        },
      });
    });

    it('lists the 5 newest leads as lead items', async () => {
      const body = await d.ok('cabinet', d.partner.memberId);
      const times = recentTimes('ru-RU');
      expect(body.recent_leads).toHaveLength(5);
      expect(body.recent_leads.map((l: { id: string }) => l.id)).toEqual(
        [...d.leadIds].reverse().slice(0, 5),
      );
      body.recent_leads.forEach((item: Record<string, unknown>, i: number) => {
        const n = 7 - i;
        const status = d.leadStatuses[n - 1];
        expect(item).toMatchObject({
          id: d.leadIds[n - 1],
          status,
          status_human: LEAD_LABELS.ru[status],
          contact_name: `Contact ${n}`,
        });
        expect(times).toContain(item.relative_time);
      });
    });

    it('lists the 10 newest transactions with every field', async () => {
      const body = await d.ok('cabinet', d.partner.memberId);
      const all = await d.bonusesOf(d.partner);
      expect(all).toHaveLength(12);
      const newest = [...all]
        .sort((a, b) =>
          a.created_at === b.created_at
            ? b.bonus_id.localeCompare(a.bonus_id)
            : b.created_at.localeCompare(a.created_at),
        )
        .slice(0, 10);
      const times = recentTimes('ru-RU');
      expect(body.transactions.map((x: Bonus) => x.bonus_id)).toEqual(
        newest.map((b) => b.bonus_id),
      );
      body.transactions.forEach((item: Record<string, unknown>, i: number) => {
        const b = newest[i];
        expect(item).toEqual({
          bonus_id: b.bonus_id,
          status: b.status,
          status_human: expect.any(String),
          amount_kopecks: b.amount_kopecks,
          amount_formatted: money(b.amount_kopecks, b.currency),
          currency: 'RUB',
          source_type: b.source_type,
          source_id: b.source_id,
          tier: b.tier,
          rule: b.rule,
          explanation: b.explanation,
          created_at: b.created_at,
          relative_time: expect.any(String),
        });
        expect(item.created_at).toMatch(ISO_MS);
        expect(times).toContain(item.relative_time);
        expect((item.status_human as string).length).toBeGreaterThan(0);
      });
      // The conversion's bonus carries its source and tier; manual ones have no tier.
      const fromConversion = body.transactions.find((x: Bonus) => x.source_type === 'conversion');
      expect(fromConversion).toMatchObject({
        source_id: d.conversionId,
        tier: 'referrer',
        status: 'pending',
        amount_kopecks: 12_345,
      });
      for (const x of body.transactions.filter((y: Bonus) => y.source_type === 'manual')) {
        expect(x.tier).toBeNull();
      }
      // The two oldest manual bonuses fell off the list.
      const ids = body.transactions.map((x: Bonus) => x.bonus_id);
      expect(ids).not.toContain(d.manual[0].bonus_id);
      expect(ids).not.toContain(d.manual[1].bonus_id);
      // Different statuses get different human labels.
      const humans = new Map<string, string>(
        body.transactions.map((x: Bonus & { status_human: string }) => [x.status, x.status_human]),
      );
      expect(new Set(humans.keys())).toEqual(new Set(['pending', 'approved', 'rejected']));
      expect(new Set(humans.values()).size).toBe(3);
    });

    it('counts leads per referrer only', async () => {
      const child = await d.ok('cabinet', d.children[0].memberId);
      expect(child.kpi.leads_count).toBe(1);
      const fresh = await d.ok('cabinet', d.children[2].memberId);
      expect(fresh).toMatchObject({
        kpi: {
          leads_count: 0,
          cleared_kopecks: 0,
          pending_kopecks: 0,
          cleared_formatted: money(0),
          pending_formatted: money(0),
          clicks_count: 0,
        },
        recent_leads: [],
        transactions: [],
      });
    });
  });

  describe('bonuses', () => {
    it('pages the transactions newest first with totals and accounts', async () => {
      const full = await d.ok('bonuses', d.partner.memberId, '&page_size=100');
      expect(Object.keys(full).sort()).toEqual(
        ['accounts', 'balance', 'pagination', 'tenant', 'totals', 'transactions', 'user'].sort(),
      );
      expect(full.user.id_surrogate).toBe(d.partner.memberId);
      expect(full.tenant).toEqual({ slug: d.tenant.slug, display_name: `Tenant ${d.tenant.slug}` });
      expect(full.transactions).toHaveLength(12);
      expect(full.pagination).toEqual({ page: 1, page_size: 100, total: 12, total_pages: 1 });

      const cabinet = await d.ok('cabinet', d.partner.memberId);
      expect(full.balance).toEqual(cabinet.balance);
      expect(full.totals).toEqual({
        cleared_kopecks: cabinet.kpi.cleared_kopecks,
        pending_kopecks: cabinet.kpi.pending_kopecks,
        cleared_formatted: cabinet.kpi.cleared_formatted,
        pending_formatted: cabinet.kpi.pending_formatted,
        currency: 'RUB',
      });
      expect(full.accounts).toEqual([
        {
          currency: 'RUB',
          cleared_kopecks: full.totals.cleared_kopecks,
          pending_kopecks: full.totals.pending_kopecks,
          cleared_formatted: full.totals.cleared_formatted,
          pending_formatted: full.totals.pending_formatted,
          // docs/payouts.md: nothing paid out yet, so everything cleared is available.
          available_kopecks: full.totals.cleared_kopecks,
          in_payout_kopecks: 0,
          paid_kopecks: 0,
          available_formatted: full.totals.cleared_formatted,
          in_payout_formatted: money(0),
          paid_formatted: money(0),
        },
      ]);
      // The cabinet's 10 are the first 10 of the full list.
      expect(withoutTimes(cabinet.transactions)).toEqual(
        withoutTimes(full.transactions.slice(0, 10)),
      );

      const defaults = await d.ok('bonuses', d.partner.memberId);
      expect(defaults.pagination).toEqual({ page: 1, page_size: 20, total: 12, total_pages: 1 });

      const pages: Bonus[] = [];
      for (let page = 1; page <= 3; page++) {
        const body = await d.ok('bonuses', d.partner.memberId, `&page=${page}&page_size=5`);
        expect(body.pagination).toEqual({ page, page_size: 5, total: 12, total_pages: 3 });
        pages.push(...body.transactions);
      }
      expect(pages.map((x: Bonus) => x.bonus_id)).toEqual(
        full.transactions.map((x: Bonus) => x.bonus_id),
      );
      const beyond = await d.ok('bonuses', d.partner.memberId, '&page=4&page_size=5');
      expect(beyond.transactions).toEqual([]);
      expect(beyond.pagination).toEqual({ page: 4, page_size: 5, total: 12, total_pages: 3 });
      expect(beyond.totals).toEqual(full.totals);
    });

    it('keeps one account per currency; totals stay in the tenant currency', async () => {
      const p = await upsertUser(d.t, d.tenant.key, {
        full_name: 'Two Currencies',
        referrer_user_id: d.upline.serviceUserId,
      });
      const l1 = await createLead(d.t, d.tenant.key, p.serviceUserId);
      const l2 = await createLead(d.t, d.tenant.key, p.serviceUserId);
      const usd = await registerConversion(d.t, d.tenant.key, {
        lead_id: l1,
        amount_kopecks: 20_005,
        currency: 'USD',
        external_order_id: `usd-${d.tenant.slug}`,
      });
      await registerConversion(d.t, d.tenant.key, {
        lead_id: l2,
        amount_kopecks: 10_000,
        external_order_id: `rub-${d.tenant.slug}`,
      });
      await d.approve(usd.cascaded_bonuses[0].bonus_id);

      const body = await d.ok('bonuses', p.memberId);
      expect(body.totals).toEqual({
        cleared_kopecks: 0,
        pending_kopecks: 1000,
        cleared_formatted: money(0),
        pending_formatted: money(1000),
        currency: 'RUB',
      });
      const accounts = [...body.accounts].sort((a, b) => a.currency.localeCompare(b.currency));
      expect(accounts).toEqual([
        {
          currency: 'RUB',
          cleared_kopecks: 0,
          pending_kopecks: 1000,
          cleared_formatted: money(0),
          pending_formatted: money(1000),
          available_kopecks: 0,
          in_payout_kopecks: 0,
          paid_kopecks: 0,
          available_formatted: money(0),
          in_payout_formatted: money(0),
          paid_formatted: money(0),
        },
        {
          currency: 'USD',
          cleared_kopecks: 2000,
          pending_kopecks: 0,
          cleared_formatted: money(2000, 'USD'),
          pending_formatted: money(0, 'USD'),
          available_kopecks: 2000,
          in_payout_kopecks: 0,
          paid_kopecks: 0,
          available_formatted: money(2000, 'USD'),
          in_payout_formatted: money(0, 'USD'),
          paid_formatted: money(0, 'USD'),
        },
      ]);
      const usdItem = body.transactions.find((x: Bonus) => x.currency === 'USD');
      expect(usdItem).toMatchObject({
        amount_kopecks: 2000,
        amount_formatted: money(2000, 'USD'),
        status: 'approved',
        source_id: usd.conversion_id,
        tier: 'referrer',
      });
      // The cabinet's KPIs are the tenant currency's too.
      const cabinet = await d.ok('cabinet', p.memberId);
      expect(cabinet.kpi).toMatchObject({ cleared_kopecks: 0, pending_kopecks: 1000 });
    });
  });
});
