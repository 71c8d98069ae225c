import type { Response } from 'supertest';
import { createLead, registerConversion } from '../factories/money.factory';
import { createTenant, TestTenant } from '../factories/tenants.factory';
import { upsertUser, UpsertedUser } from '../factories/users.factory';
import { createTestApp, TestApp } from '../utils/create-test-app';

/**
 * The Embed Data API's bodies (seed 2.2, 4.1; SPEC 1, 3.2, 4): cabinet, bonuses, leads and
 * partners, their figures through the life of bonuses, locales, validation and tenant isolation.
 */

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const LEAD_LABELS = {
  ru: { new: 'Новый', processed: 'В работе', converted: 'Конвертирован', rejected: 'Отклонён' },
  en: { new: 'New', processed: 'In progress', converted: 'Converted', rejected: 'Rejected' },
} as const;
type LeadStatus = keyof (typeof LEAD_LABELS)['ru'];

/** SPEC 1: exactly what Intl prints. */
function money(kopecks: number, currency = 'RUB', locale = 'ru-RU'): string {
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  }).format(kopecks / 100);
}

/** Every relative time a row made in the last few minutes may show, in `locale`. */
function recentTimes(locale: string): string[] {
  const rtf = new Intl.RelativeTimeFormat(locale, { numeric: 'always' });
  return [
    ...Array.from({ length: 60 }, (_, i) => rtf.format(-i, 'second')),
    ...Array.from({ length: 5 }, (_, i) => rtf.format(-(i + 1), 'minute')),
  ];
}

function expectProblem(res: Response, status: number, code: string) {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ type: 'about:blank', status, code });
}

interface Bonus {
  bonus_id: string;
  amount_kopecks: number;
  currency: string;
  source_type: string;
  source_id: string;
  tier: string | null;
  status: string;
  created_at: string;
}

jest.setTimeout(30_000);

describe('embed data: cabinet, bonuses, leads, partners', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let origin: string;

  const embed = (endpoint: string, userId: string, query = '', on: TestTenant = tenant) =>
    t
      .http()
      .get(`/embed/v1/data/${endpoint}/${userId}?tenant=${on.slug}${query}`)
      .set('Origin', `https://${on.slug}.example`);

  const ok = async (endpoint: string, userId: string, query = '', on: TestTenant = tenant) => {
    const res = await embed(endpoint, userId, query, on);
    if (res.status !== 200)
      throw new Error(`${endpoint}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };

  const admin = (method: 'get' | 'post', path: string) =>
    t
      .http()
      [method](`/admin/v1/tenants/${tenant.slug}${path}`)
      .set('Authorization', `Bearer ${t.adminToken}`);

  async function manualBonus(user: UpsertedUser, amount: number, on: TestTenant = tenant) {
    const res = await t
      .http()
      .post(`/admin/v1/tenants/${on.slug}/bonuses`)
      .set('Authorization', `Bearer ${t.adminToken}`)
      .send({ user_id: user.serviceUserId, amount_kopecks: amount, currency: 'RUB', reason: 'r' });
    expect(res.status).toBe(201);
    return res.body as Bonus;
  }

  async function bonusesOf(user: UpsertedUser): Promise<Bonus[]> {
    const res = await admin('get', `/bonuses?user_id=${user.serviceUserId}&page_size=100`);
    expect(res.status).toBe(200);
    return res.body.items;
  }

  async function approve(bonusId: string) {
    expect((await admin('post', `/bonuses/${bonusId}/approve`)).status).toBe(200);
  }

  async function reject(bonusId: string) {
    const res = await admin('post', `/bonuses/${bonusId}/reject`).send({ reason: 'no' });
    expect(res.status).toBe(200);
  }

  async function setLeadStatus(leadId: string, status: string, on: TestTenant = tenant) {
    const res = await t
      .http()
      .post(`/federation/v1/leads/${leadId}/status`)
      .set('X-Service-Tenant-Key', on.key)
      .send({ status });
    expect(res.status).toBe(200);
  }

  async function reverse(conversionId: string) {
    const res = await t
      .http()
      .post(`/federation/v1/conversions/${conversionId}/reverse`)
      .set('X-Service-Tenant-Key', tenant.key)
      .send({ reason: 'refund' });
    expect(res.status).toBe(200);
  }

  /** The cabinet KPIs and the bonuses totals/RUB account agree with the given sums. */
  async function expectFigures(user: UpsertedUser, cleared: number, pending: number) {
    const cabinet = await ok('cabinet', user.memberId);
    expect(cabinet.kpi).toMatchObject({
      cleared_kopecks: cleared,
      pending_kopecks: pending,
      cleared_formatted: money(cleared),
      pending_formatted: money(pending),
    });
    const bonuses = await ok('bonuses', user.memberId);
    expect(bonuses.totals).toEqual({
      cleared_kopecks: cleared,
      pending_kopecks: pending,
      cleared_formatted: money(cleared),
      pending_formatted: money(pending),
      currency: 'RUB',
    });
    const rub = bonuses.accounts.filter((a: { currency: string }) => a.currency === 'RUB');
    expect(rub.length).toBeLessThanOrEqual(1);
    expect(rub[0] ?? { cleared_kopecks: 0, pending_kopecks: 0 }).toMatchObject({
      cleared_kopecks: cleared,
      pending_kopecks: pending,
    });
    return { cabinet, bonuses };
  }

  // The main partner P (referred by U) with children, 7 leads of every status and 12 bonuses.
  let upline: UpsertedUser;
  let partner: UpsertedUser;
  let children: UpsertedUser[];
  let leadIds: string[];
  let conversionId: string;
  let manual: Bonus[];
  const leadStatuses: LeadStatus[] = [
    'processed',
    'rejected',
    'converted',
    'new',
    'new',
    'new',
    'new',
  ];

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    origin = `https://${tenant.slug}.example`;
    upline = await upsertUser(t, tenant.key, { full_name: 'Upline' });
    partner = await upsertUser(t, tenant.key, {
      full_name: 'Мария Иванова',
      email: 'maria@example.org',
      referrer_user_id: upline.serviceUserId,
    });
    children = [];
    for (let i = 1; i <= 3; i++) {
      children.push(
        await upsertUser(t, tenant.key, {
          full_name: `Child ${i}`,
          referrer_user_id: partner.serviceUserId,
        }),
      );
    }
    // A grandchild: not a partner (first line) of P.
    await upsertUser(t, tenant.key, {
      full_name: 'Grandchild',
      referrer_user_id: children[0].serviceUserId,
    });
    // A child's lead does not count for P.
    await createLead(t, tenant.key, children[0].serviceUserId, {
      contact: { name: 'Not mine', email: 'x@example.org' },
    });

    leadIds = [];
    for (let i = 1; i <= 7; i++) {
      leadIds.push(
        await createLead(t, tenant.key, partner.serviceUserId, {
          contact: { name: `Contact ${i}`, email: `c${i}@example.org` },
        }),
      );
    }
    await setLeadStatus(leadIds[0], 'processed');
    await setLeadStatus(leadIds[1], 'rejected');

    manual = [];
    for (let i = 0; i < 5; i++) manual.push(await manualBonus(partner, 1000 + i));
    const conversion = await registerConversion(t, tenant.key, {
      lead_id: leadIds[2],
      amount_kopecks: 123_456,
      external_order_id: `order-${tenant.slug}-1`,
    });
    conversionId = conversion.conversion_id;
    for (let i = 5; i < 11; i++) manual.push(await manualBonus(partner, 1000 + i));
    await approve(manual[9].bonus_id);
    await reject(manual[10].bonus_id);
  });
  afterAll(() => t.close());

  describe('cabinet', () => {
    it('has every field of the seed and SPEC 4', async () => {
      const res = await embed('cabinet', partner.memberId);
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      const body = res.body;
      expect(Object.keys(body).sort()).toEqual(
        ['kpi', 'recent_leads', 'tenant', 'transactions', 'user'].sort(),
      );
      expect(body.user).toEqual({
        id_surrogate: partner.memberId,
        display_name: 'Мария Иванова',
        badge: { role_label: 'Партнёр' },
        claim_required: true,
      });
      expect(body.tenant).toEqual({ slug: tenant.slug, display_name: `Tenant ${tenant.slug}` });

      // Pending: the referrer bonus (10 % of 123 456) and manual 0..8; approved: manual 9.
      const referrerBonus = Math.floor((123_456 * 1000) / 10_000);
      const pending = referrerBonus + manual.slice(0, 9).reduce((s, b) => s + b.amount_kopecks, 0);
      const cleared = manual[9].amount_kopecks;
      expect(body.kpi).toEqual({
        leads_count: 7,
        cleared_kopecks: cleared,
        pending_kopecks: pending,
        cleared_formatted: money(cleared),
        pending_formatted: money(pending),
        clicks_count: 0,
      });
    });

    it('lists the 5 newest leads as lead items', async () => {
      const body = await ok('cabinet', partner.memberId);
      const times = recentTimes('ru-RU');
      expect(body.recent_leads).toHaveLength(5);
      expect(body.recent_leads.map((l: { id: string }) => l.id)).toEqual(
        [...leadIds].reverse().slice(0, 5),
      );
      body.recent_leads.forEach((item: Record<string, unknown>, i: number) => {
        const n = 7 - i;
        const status = leadStatuses[n - 1];
        expect(item).toMatchObject({
          id: leadIds[n - 1],
          status,
          status_human: LEAD_LABELS.ru[status],
          contact_name: `Contact ${n}`,
        });
        expect(times).toContain(item.relative_time);
      });
    });

    it('lists the 10 newest transactions with every field', async () => {
      const body = await ok('cabinet', partner.memberId);
      const all = await bonusesOf(partner);
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
        source_id: conversionId,
        tier: 'referrer',
        status: 'pending',
        amount_kopecks: 12_345,
      });
      for (const x of body.transactions.filter((y: Bonus) => y.source_type === 'manual')) {
        expect(x.tier).toBeNull();
      }
      // The two oldest manual bonuses fell off the list.
      const ids = body.transactions.map((x: Bonus) => x.bonus_id);
      expect(ids).not.toContain(manual[0].bonus_id);
      expect(ids).not.toContain(manual[1].bonus_id);
      // Different statuses get different human labels.
      const humans = new Map<string, string>(
        body.transactions.map((x: Bonus & { status_human: string }) => [x.status, x.status_human]),
      );
      expect(new Set(humans.keys())).toEqual(new Set(['pending', 'approved', 'rejected']));
      expect(new Set(humans.values()).size).toBe(3);
    });

    it('counts leads per referrer only', async () => {
      const child = await ok('cabinet', children[0].memberId);
      expect(child.kpi.leads_count).toBe(1);
      const fresh = await ok('cabinet', children[2].memberId);
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
      const full = await ok('bonuses', partner.memberId, '&page_size=100');
      expect(Object.keys(full).sort()).toEqual(
        ['accounts', 'pagination', 'tenant', 'totals', 'transactions', 'user'].sort(),
      );
      expect(full.user.id_surrogate).toBe(partner.memberId);
      expect(full.tenant).toEqual({ slug: tenant.slug, display_name: `Tenant ${tenant.slug}` });
      expect(full.transactions).toHaveLength(12);
      expect(full.pagination).toEqual({ page: 1, page_size: 100, total: 12, total_pages: 1 });

      const cabinet = await ok('cabinet', partner.memberId);
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

      const defaults = await ok('bonuses', partner.memberId);
      expect(defaults.pagination).toEqual({ page: 1, page_size: 20, total: 12, total_pages: 1 });

      const pages: Bonus[] = [];
      for (let page = 1; page <= 3; page++) {
        const body = await ok('bonuses', partner.memberId, `&page=${page}&page_size=5`);
        expect(body.pagination).toEqual({ page, page_size: 5, total: 12, total_pages: 3 });
        pages.push(...body.transactions);
      }
      expect(pages.map((x: Bonus) => x.bonus_id)).toEqual(
        full.transactions.map((x: Bonus) => x.bonus_id),
      );
      const beyond = await ok('bonuses', partner.memberId, '&page=4&page_size=5');
      expect(beyond.transactions).toEqual([]);
      expect(beyond.pagination).toEqual({ page: 4, page_size: 5, total: 12, total_pages: 3 });
      expect(beyond.totals).toEqual(full.totals);
    });

    it('keeps one account per currency; totals stay in the tenant currency', async () => {
      const p = await upsertUser(t, tenant.key, {
        full_name: 'Two Currencies',
        referrer_user_id: upline.serviceUserId,
      });
      const l1 = await createLead(t, tenant.key, p.serviceUserId);
      const l2 = await createLead(t, tenant.key, p.serviceUserId);
      const usd = await registerConversion(t, tenant.key, {
        lead_id: l1,
        amount_kopecks: 20_005,
        currency: 'USD',
        external_order_id: `usd-${tenant.slug}`,
      });
      await registerConversion(t, tenant.key, {
        lead_id: l2,
        amount_kopecks: 10_000,
        external_order_id: `rub-${tenant.slug}`,
      });
      await approve(usd.cascaded_bonuses[0].bonus_id);

      const body = await ok('bonuses', p.memberId);
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
      const cabinet = await ok('cabinet', p.memberId);
      expect(cabinet.kpi).toMatchObject({ cleared_kopecks: 0, pending_kopecks: 1000 });
    });
  });

  describe('figures through the life of bonuses', () => {
    it('pending on accrual, cleared on approval, out on rejection and reversal', async () => {
      const u = await upsertUser(t, tenant.key, { full_name: 'Life Upline' });
      const p = await upsertUser(t, tenant.key, {
        full_name: 'Life Partner',
        referrer_user_id: u.serviceUserId,
      });
      const leads: string[] = [];
      for (let i = 0; i < 3; i++) leads.push(await createLead(t, tenant.key, p.serviceUserId));
      await expectFigures(p, 0, 0);

      const amounts = [100_000, 50_000, 30_000];
      const conversions: Awaited<ReturnType<typeof registerConversion>>[] = [];
      for (let i = 0; i < 3; i++) {
        conversions.push(
          await registerConversion(t, tenant.key, {
            lead_id: leads[i],
            amount_kopecks: amounts[i],
            external_order_id: `life-${tenant.slug}-${i}`,
          }),
        );
      }
      const mine = (i: number) =>
        conversions[i].cascaded_bonuses.find((b) => b.user_id === p.serviceUserId)!.bonus_id;
      const theirs = (i: number) =>
        conversions[i].cascaded_bonuses.find((b) => b.user_id === u.serviceUserId)!.bonus_id;
      await expectFigures(p, 0, 10_000 + 5_000 + 3_000);
      await expectFigures(u, 0, 3_000 + 1_500 + 900);

      await approve(mine(0));
      await expectFigures(p, 10_000, 5_000 + 3_000);

      await reject(mine(1));
      await expectFigures(p, 10_000, 3_000);

      await approve(theirs(1));
      await expectFigures(u, 1_500, 3_000 + 900);

      // Reversing writes off approved and pending amounts alike.
      await reverse(conversions[0].conversion_id);
      await expectFigures(p, 0, 3_000);
      await expectFigures(u, 1_500, 900);

      await reverse(conversions[1].conversion_id);
      await expectFigures(u, 0, 900);
      const { cabinet } = await expectFigures(p, 0, 3_000);

      // Every status counts as a lead; the statuses show in the transactions.
      expect(cabinet.kpi.leads_count).toBe(3);
      const status = new Map(cabinet.transactions.map((x: Bonus) => [x.bonus_id, x.status]));
      expect(status.get(mine(0))).toBe('reversed');
      expect(status.get(mine(1))).toBe('rejected');
      expect(status.get(mine(2))).toBe('pending');
    });

    it('a lead bonus is a transaction without tier; rejecting the lead takes it out', async () => {
      const lt = await createTenant(t, {
        program: {
          lead_bonus_kopecks: 700,
          tiers: [{ tier: 'referrer', percent_bp: 1000 }],
          grace_period_hours: 336,
        },
      });
      const p = await upsertUser(t, lt.key, { full_name: 'Lead Bonus' });
      const leadId = await createLead(t, lt.key, p.serviceUserId);
      const before = await ok('cabinet', p.memberId, '', lt);
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

      await setLeadStatus(leadId, 'rejected', lt);
      const after = await ok('cabinet', p.memberId, '', lt);
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
        leadIds
          .map((id, i) => ({ id, status: leadStatuses[i] }))
          .filter((l) => status === 'all' || l.status === status)
          .map((l) => l.id)
          .reverse();

      const byDefault = await ok('leads', partner.memberId);
      expect(Object.keys(byDefault).sort()).toEqual(
        ['filters', 'leads', 'pagination', 'tenant', 'user'].sort(),
      );
      expect(byDefault.filters).toEqual({ status: 'all' });
      expect(byDefault.pagination).toEqual({ page: 1, page_size: 20, total: 7, total_pages: 1 });
      expect(byDefault.leads.map((l: { id: string }) => l.id)).toEqual(expectIds('all'));

      for (const status of ['all', 'new', 'processed', 'converted', 'rejected'] as const) {
        const body = await ok('leads', partner.memberId, `&status=${status}`);
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

      const first = await ok('leads', partner.memberId, '&status=new&page_size=3');
      expect(first.pagination).toEqual({ page: 1, page_size: 3, total: 4, total_pages: 2 });
      const second = await ok('leads', partner.memberId, '&status=new&page_size=3&page=2');
      expect(second.pagination).toEqual({ page: 2, page_size: 3, total: 4, total_pages: 2 });
      expect([...first.leads, ...second.leads].map((l: { id: string }) => l.id)).toEqual(
        expectIds('new'),
      );
      const exact = await ok('leads', partner.memberId, '&page_size=7');
      expect(exact.pagination.total_pages).toBe(1);
      const seven = await ok('leads', partner.memberId, '&page_size=2');
      expect(seven.pagination).toEqual({ page: 1, page_size: 2, total: 7, total_pages: 4 });
    });

    it('is empty with total_pages 0 when nothing matches', async () => {
      const none = await ok('leads', children[2].memberId);
      expect(none.leads).toEqual([]);
      expect(none.pagination).toEqual({ page: 1, page_size: 20, total: 0, total_pages: 0 });
      const filtered = await ok('leads', children[0].memberId, '&status=converted');
      expect(filtered.leads).toEqual([]);
      expect(filtered.filters).toEqual({ status: 'converted' });
      expect(filtered.pagination).toEqual({ page: 1, page_size: 20, total: 0, total_pages: 0 });
    });
  });

  describe('partners', () => {
    it('lists direct referrals newest first and shows deactivation', async () => {
      const body = await ok('partners', partner.memberId);
      expect(Object.keys(body).sort()).toEqual(['pagination', 'partners', 'tenant', 'user'].sort());
      expect(body.user).toMatchObject({
        id_surrogate: partner.memberId,
        display_name: 'Мария Иванова',
        badge: { role_label: 'Партнёр' },
      });
      expect(body.pagination).toEqual({ page: 1, page_size: 20, total: 3, total_pages: 1 });
      const expected = [...children].reverse();
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

      const deactivated = await admin('post', `/users/${children[1].memberId}/deactivate`);
      expect(deactivated.status).toBe(200);
      const after = await ok('partners', partner.memberId);
      expect(
        after.partners.map((p: { user_id: string; is_active: boolean }) => [
          p.user_id,
          p.is_active,
        ]),
      ).toEqual([
        [children[2].memberId, true],
        [children[1].memberId, false],
        [children[0].memberId, true],
      ]);

      const page1 = await ok('partners', partner.memberId, '&page_size=2');
      const page2 = await ok('partners', partner.memberId, '&page_size=2&page=2');
      expect(page1.pagination).toEqual({ page: 1, page_size: 2, total: 3, total_pages: 2 });
      expect(page2.pagination).toEqual({ page: 2, page_size: 2, total: 3, total_pages: 2 });
      expect(
        [...page1.partners, ...page2.partners].map((p: { user_id: string }) => p.user_id),
      ).toEqual(expected.map((c) => c.memberId));

      const none = await ok('partners', children[2].memberId);
      expect(none.partners).toEqual([]);
      expect(none.pagination).toEqual({ page: 1, page_size: 20, total: 0, total_pages: 0 });
    });
  });

  describe('locale', () => {
    it('defaults to ru-RU and gives English with locale=en', async () => {
      const ru = await ok('cabinet', partner.memberId);
      const en = await ok('cabinet', partner.memberId, '&locale=en');
      expect(ru.user.badge.role_label).toBe('Партнёр');
      expect(en.user.badge.role_label).toBe('Partner');
      expect(en.kpi.cleared_formatted).toBe(money(en.kpi.cleared_kopecks, 'RUB', 'en'));
      expect(en.kpi.pending_formatted).toBe(money(en.kpi.pending_kopecks, 'RUB', 'en'));
      expect(en.kpi.pending_formatted).not.toBe(ru.kpi.pending_formatted);
      const enTimes = recentTimes('en');
      for (const item of en.recent_leads) expect(enTimes).toContain(item.relative_time);
      for (const item of en.transactions) {
        expect(item.amount_formatted).toBe(money(item.amount_kopecks, item.currency, 'en'));
        expect(enTimes).toContain(item.relative_time);
      }
      const ruHumans = new Set(
        ru.transactions.map((x: { status_human: string }) => x.status_human),
      );
      for (const x of en.transactions) expect(ruHumans).not.toContain(x.status_human);

      const explicitRu = await ok('cabinet', partner.memberId, '&locale=ru');
      expect(explicitRu.user.badge.role_label).toBe('Партнёр');
      expect(explicitRu.kpi.pending_formatted).toBe(ru.kpi.pending_formatted);

      for (const [locale, labels] of [
        ['ru', LEAD_LABELS.ru],
        ['en', LEAD_LABELS.en],
      ] as const) {
        for (const status of ['new', 'processed', 'converted', 'rejected'] as const) {
          const body = await ok('leads', partner.memberId, `&status=${status}&locale=${locale}`);
          expect(body.leads.length).toBeGreaterThan(0);
          for (const item of body.leads) expect(item.status_human).toBe(labels[status]);
        }
      }
      const partnersEn = await ok('partners', partner.memberId, '&locale=en');
      expect(partnersEn.user.badge.role_label).toBe('Partner');
      expect(partnersEn.partners[0].partnership_role).toBe('partner');
      const bonusesEn = await ok('bonuses', partner.memberId, '&locale=en');
      expect(bonusesEn.totals.pending_formatted).toBe(
        money(bonusesEn.totals.pending_kopecks, 'RUB', 'en'),
      );
      expect(bonusesEn.accounts[0].pending_formatted).toBe(
        money(bonusesEn.accounts[0].pending_kopecks, 'RUB', 'en'),
      );
    });

    it('labels the role the tenant sets in the upsert, in both locales', async () => {
      const rt = await createTenant(t);
      const ambassador = await upsertUser(t, rt.key, { full_name: 'Amb', role: 'ambassador' });
      const leader = await upsertUser(t, rt.key, {
        full_name: 'Lead',
        role: 'leader',
        referrer_user_id: ambassador.serviceUserId,
      });
      const ru = await ok('cabinet', ambassador.memberId, '', rt);
      const en = await ok('cabinet', ambassador.memberId, '&locale=en', rt);
      expect(ru.user.badge.role_label).toBe('Амбассадор');
      expect(en.user.badge.role_label).toBe('Ambassador');
      const partners = await ok('partners', ambassador.memberId, '', rt);
      expect(
        partners.partners.map((p: { partnership_role: string }) => p.partnership_role),
      ).toEqual(['leader']);
      expect((await ok('cabinet', leader.memberId, '', rt)).user.badge.role_label).toBe('Лидер');

      // A later upsert changes it; one without a role leaves it as it is.
      const promoted = await upsertUser(t, rt.key, {
        external_id: ambassador.externalId,
        role: 'leader',
      });
      expect(promoted.body.action).toBe('updated');
      const unchanged = await upsertUser(t, rt.key, { external_id: ambassador.externalId });
      expect(unchanged.body.action).toBe('unchanged');
      expect(
        (await ok('cabinet', ambassador.memberId, '&locale=en', rt)).user.badge.role_label,
      ).toBe('Leader');

      const refused = await t
        .http()
        .post('/federation/v1/users/upsert')
        .set('X-Service-Tenant-Key', rt.key)
        .send({ external_id: 'someone', role: 'admin' });
      expectProblem(refused, 400, 'validation_failed');
    });

    it("follows an English tenant's locale and currency unless locale=ru", async () => {
      const et = await createTenant(t, { locale: 'en', currency: 'USD' });
      const p = await upsertUser(t, et.key, { full_name: 'English' });
      const leadId = await createLead(t, et.key, p.serviceUserId, {
        contact: { name: 'Buyer', email: 'buyer@example.org' },
      });
      await registerConversion(t, et.key, {
        lead_id: leadId,
        amount_kopecks: 1_234_567,
        currency: 'USD',
        external_order_id: 'en-1',
      });
      const en = await ok('cabinet', p.memberId, '', et);
      expect(en.user.badge.role_label).toBe('Partner');
      expect(en.recent_leads[0].status_human).toBe('Converted');
      expect(en.kpi.pending_kopecks).toBe(123_456);
      expect(en.kpi.pending_formatted).toBe(money(123_456, 'USD', 'en'));
      const ru = await ok('cabinet', p.memberId, '&locale=ru', et);
      expect(ru.user.badge.role_label).toBe('Партнёр');
      expect(ru.recent_leads[0].status_human).toBe('Конвертирован');
      expect(ru.kpi.pending_formatted).toBe(money(123_456, 'USD', 'ru-RU'));
      const bonuses = await ok('bonuses', p.memberId, '', et);
      expect(bonuses.totals).toMatchObject({ currency: 'USD', pending_kopecks: 123_456 });
    });

    it('refuses a locale Intl does not support (any other BCP 47 tag is taken)', async () => {
      for (const endpoint of ['cabinet', 'bonuses', 'leads', 'referral-tree', 'partners']) {
        const res = await embed(endpoint, partner.memberId, '&locale=xx-YY');
        expectProblem(res, 400, 'validation_failed');
      }
    });
  });

  describe('validation and isolation', () => {
    const paged = ['bonuses', 'leads', 'partners'];
    const badPaging = [
      'page=0',
      'page=-1',
      'page=abc',
      'page=1.5',
      'page_size=0',
      'page_size=101',
      'page_size=abc',
    ];

    it.each(paged)('%s: refuses bad paging and unknown parameters', async (endpoint) => {
      for (const q of [...badPaging, 'bogus=1']) {
        const res = await embed(endpoint, partner.memberId, `&${q}`);
        expectProblem(res, 400, 'validation_failed');
        expect(Array.isArray(res.body.errors)).toBe(true);
        expect(res.body.errors.length).toBeGreaterThan(0);
      }
      // The bounds themselves are fine.
      const max = await ok(endpoint, partner.memberId, '&page=1&page_size=100');
      expect(max.pagination).toMatchObject({ page: 1, page_size: 100 });
      const min = await ok(endpoint, partner.memberId, '&page_size=1');
      expect(min.pagination).toMatchObject({ page: 1, page_size: 1 });
    });

    it('leads: refuses an unknown status filter', async () => {
      for (const status of ['bogus', 'NEW', 'pending', '']) {
        const res = await embed('leads', partner.memberId, `&status=${status}`);
        expectProblem(res, 400, 'validation_failed');
      }
    });

    it('cabinet: refuses unknown parameters', async () => {
      expectProblem(await embed('cabinet', partner.memberId, '&bogus=1'), 400, 'validation_failed');
    });

    it('answers an unknown user with 404 user_not_found on every endpoint', async () => {
      for (const endpoint of ['cabinet', 'bonuses', 'leads', 'referral-tree', 'partners']) {
        const res = await embed(endpoint, 'mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T');
        expectProblem(res, 404, 'user_not_found');
        // The service-wide id is not a surrogate id.
        expectProblem(await embed(endpoint, partner.serviceUserId), 404, 'user_not_found');
      }
    });

    it("never shows another tenant's member (indistinguishable from a missing one)", async () => {
      const b = await createTenant(t);
      const theirs = await upsertUser(t, b.key, { full_name: 'Tenant B member' });
      const missingId = 'mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T';
      for (const endpoint of ['cabinet', 'bonuses', 'leads', 'referral-tree', 'partners']) {
        const foreign = await embed(endpoint, partner.memberId, '', b);
        const missing = await embed(endpoint, missingId, '', b);
        expectProblem(foreign, 404, 'user_not_found');
        expectProblem(missing, 404, 'user_not_found');
        const shape = (res: Response, id: string) => {
          const { request_id: _requestId, ...rest } = res.body;
          return { ...rest, detail: String(rest.detail).split(id).join('<id>') };
        };
        expect(shape(foreign, partner.memberId)).toEqual(shape(missing, missingId));
        expect(Object.keys(foreign.body).sort()).toEqual(Object.keys(missing.body).sort());
        expect(foreign.headers['access-control-allow-origin']).toBe(`https://${b.slug}.example`);
        // And the other way round.
        expectProblem(await embed(endpoint, theirs.memberId), 404, 'user_not_found');
      }
      // B's member is readable on B.
      expect((await ok('cabinet', theirs.memberId, '', b)).user.id_surrogate).toBe(theirs.memberId);
    });
  });
});

/** Items without the clock-dependent `relative_time`, to compare reads made moments apart. */
function withoutTimes(items: Record<string, unknown>[]): Record<string, unknown>[] {
  return items.map(({ relative_time: _relativeTime, ...rest }) => rest);
}
