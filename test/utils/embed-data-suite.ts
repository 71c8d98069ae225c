/**
 * The Embed Data API specs' shared setup (test/e2e/embed/embed-data-*.e2e-spec.ts; seed 2.2, 4.1;
 * docs/embedding.md, 3.2, 4): one app per file and one partner P (referred by U) with children, 7 leads of
 * every status and 12 bonuses, the reads and the money calls the specs make, and the formats
 * (Intl) they expect. The fields are set by the hooks: read them inside a test.
 */
import { createLead, registerConversion } from '../factories/money.factory';
import { createTenant, type TestTenant } from '../factories/tenants.factory';
import { upsertUser, type UpsertedMember } from '../factories/users.factory';
import { adminApi, embedApi, federationApi } from './api-client';
import { createTestApp, type TestApp } from './create-test-app';

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const LEAD_LABELS = {
  ru: { new: 'Новый', processed: 'В работе', converted: 'Конвертирован', rejected: 'Отклонён' },
  en: { new: 'New', processed: 'In progress', converted: 'Converted', rejected: 'Rejected' },
} as const;
export type LeadStatus = keyof (typeof LEAD_LABELS)['ru'];

/** docs/embedding.md: exactly what Intl prints. */
export function money(kopecks: number, currency = 'RUB', locale = 'ru-RU'): string {
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  }).format(kopecks / 100);
}

/** Every relative time a row made in the last few minutes may show, in `locale`. */
export function recentTimes(locale: string): string[] {
  const rtf = new Intl.RelativeTimeFormat(locale, { numeric: 'always' });
  return [
    ...Array.from({ length: 60 }, (_, i) => rtf.format(-i, 'second')),
    ...Array.from({ length: 5 }, (_, i) => rtf.format(-(i + 1), 'minute')),
  ];
}

export interface Bonus {
  bonus_id: string;
  amount_kopecks: number;
  currency: string;
  source_type: string;
  source_id: string;
  tier: string | null;
  rule: unknown;
  explanation: string | null;
  status: string;
  created_at: string;
}

/** Items without the clock-dependent `relative_time`, to compare reads made moments apart. */
export function withoutTimes(items: Record<string, unknown>[]): Record<string, unknown>[] {
  return items.map(({ relative_time: _relativeTime, ...rest }) => rest);
}

export function embedDataSuite() {
  const s = {} as {
    t: TestApp;
    tenant: TestTenant;
    origin: string;
    upline: UpsertedMember;
    partner: UpsertedMember;
    children: UpsertedMember[];
    leadIds: string[];
    conversionId: string;
    manual: Bonus[];
  };

  /** A Data API read from the tenant's page; `query` goes on as it is (`&locale=en`). */
  const embed = (endpoint: string, userId: string, query = '', on: TestTenant = s.tenant) =>
    embedApi(s.t, `https://${on.slug}.example`, on.slug).raw(
      'get',
      `/embed/v1/data/${endpoint}/${userId}?tenant=${on.slug}${query}`,
    );

  const ok = async (endpoint: string, userId: string, query = '', on: TestTenant = s.tenant) => {
    const res = await embed(endpoint, userId, query, on);
    if (res.status !== 200)
      throw new Error(`${endpoint}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };

  const admin = () => adminApi(s.t, s.t.adminToken);

  async function manualBonus(user: UpsertedMember, amount: number, on: TestTenant = s.tenant) {
    const res = await admin().createBonus(on.slug, {
      user_id: user.serviceUserId,
      amount_kopecks: amount,
      currency: 'RUB',
      reason: 'r',
    });
    expect(res.status).toBe(201);
    return res.body as Bonus;
  }

  async function bonusesOf(user: UpsertedMember): Promise<Bonus[]> {
    const res = await admin().listBonuses(s.tenant.slug, {
      user_id: user.serviceUserId,
      page_size: 100,
    });
    expect(res.status).toBe(200);
    return res.body.items;
  }

  async function approve(bonusId: string) {
    expect((await admin().approveBonus(s.tenant.slug, bonusId)).status).toBe(200);
  }

  async function reject(bonusId: string) {
    const res = await admin().rejectBonus(s.tenant.slug, bonusId, { reason: 'no' });
    expect(res.status).toBe(200);
  }

  async function setLeadStatus(leadId: string, status: LeadStatus, on: TestTenant = s.tenant) {
    const res = await federationApi(s.t, on.key).setLeadStatus(leadId, { status });
    expect(res.status).toBe(200);
  }

  async function reverse(conversionId: string) {
    const res = await federationApi(s.t, s.tenant.key).reverseConversion(conversionId, {
      reason: 'refund',
    });
    expect(res.status).toBe(200);
  }

  /** The cabinet KPIs and the bonuses totals/RUB account agree with the given sums. */
  async function expectFigures(user: UpsertedMember, cleared: number, pending: number) {
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
    s.t = await createTestApp();
    s.tenant = await createTenant(s.t);
    s.origin = `https://${s.tenant.slug}.example`;
    s.upline = await upsertUser(s.t, s.tenant.key, { full_name: 'Upline' });
    s.partner = await upsertUser(s.t, s.tenant.key, {
      full_name: 'Мария Иванова',
      email: 'maria@example.org',
      referrer_user_id: s.upline.serviceUserId,
    });
    s.children = [];
    for (let i = 1; i <= 3; i++) {
      s.children.push(
        await upsertUser(s.t, s.tenant.key, {
          full_name: `Child ${i}`,
          referrer_user_id: s.partner.serviceUserId,
        }),
      );
    }
    // A grandchild: not a partner (first line) of P.
    await upsertUser(s.t, s.tenant.key, {
      full_name: 'Grandchild',
      referrer_user_id: s.children[0].serviceUserId,
    });
    // A child's lead does not count for P.
    await createLead(s.t, s.tenant.key, s.children[0].serviceUserId, {
      contact: { name: 'Not mine', email: 'x@example.org' },
    });

    s.leadIds = [];
    for (let i = 1; i <= 7; i++) {
      s.leadIds.push(
        await createLead(s.t, s.tenant.key, s.partner.serviceUserId, {
          contact: { name: `Contact ${i}`, email: `c${i}@example.org` },
        }),
      );
    }
    await setLeadStatus(s.leadIds[0], 'processed');
    await setLeadStatus(s.leadIds[1], 'rejected');

    s.manual = [];
    for (let i = 0; i < 5; i++) s.manual.push(await manualBonus(s.partner, 1000 + i));
    const conversion = await registerConversion(s.t, s.tenant.key, {
      lead_id: s.leadIds[2],
      amount_kopecks: 123_456,
      external_order_id: `order-${s.tenant.slug}-1`,
    });
    s.conversionId = conversion.conversion_id;
    for (let i = 5; i < 11; i++) s.manual.push(await manualBonus(s.partner, 1000 + i));
    await approve(s.manual[9].bonus_id);
    await reject(s.manual[10].bonus_id);
  });
  afterAll(() => s.t.close());

  return Object.assign(s, {
    leadStatuses,
    embed,
    ok,
    admin,
    manualBonus,
    bonusesOf,
    approve,
    reject,
    setLeadStatus,
    reverse,
    expectFigures,
  });
}
