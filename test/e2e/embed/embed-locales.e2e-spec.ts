import type { Response } from 'supertest';
import { createLead, registerConversion } from '../../factories/money.factory';
import { createTenant, TestTenant, uniqueSlug } from '../../factories/tenants.factory';
import { upsertUser, UpsertedMember } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { orgSignIn } from '../../utils/pages-http';

/**
 * Any locale and currency (docs/embedding.md): a tenant may use any BCP 47 locale Intl supports
 * and any ISO 4217 currency Intl knows; the Embed Data API prints its amounts and relative times
 * exactly as Intl does for that locale, with English labels where there is no translation, and
 * `?locale=` takes any such tag too. The admin pages format amounts in the tenant's locale.
 */

/** docs/embedding.md: exactly what Intl prints. */
function money(kopecks: number, currency: string, locale: string): string {
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

const LABELS = {
  en: {
    role: 'Partner',
    lead: { new: 'New', converted: 'Converted' },
    bonus: { pending: 'Pending', approved: 'Approved' },
  },
  ru: {
    role: 'Партнёр',
    lead: { new: 'Новый', converted: 'Конвертирован' },
    bonus: { pending: 'Ожидает', approved: 'Начислен' },
  },
} as const;
type Language = keyof typeof LABELS;

interface Transaction {
  status: string;
  status_human: string;
  amount_kopecks: number;
  amount_formatted: string;
  currency: string;
  relative_time: string;
}
/** What expectStrings reads of a cabinet or a bonuses answer. */
interface Answer {
  user: { badge: { role_label: string } };
  kpi?: Record<string, unknown>;
  recent_leads: { status: string; status_human: string; relative_time: string }[];
  transactions: Transaction[];
  totals?: Record<string, unknown>;
  accounts: { currency: string }[];
}

function expectProblem(res: Response, status: number, code: string) {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
}

jest.setTimeout(60_000);

describe('any locale and currency (docs/embedding.md)', () => {
  let t: TestApp;

  const admin = (method: 'get' | 'post' | 'patch', path: string) =>
    t.http()[method](path).set('Authorization', `Bearer ${t.adminToken}`);

  const embed = (on: TestTenant, read: string, memberId: string, query = '') =>
    t
      .http()
      .get(`/embed/v1/data/${read}/${memberId}?tenant=${on.slug}${query}`)
      .set('Origin', `https://${on.slug}.example`);

  const ok = async (on: TestTenant, read: string, memberId: string, query = '') => {
    const res = await embed(on, read, memberId, query);
    if (res.status !== 200) throw new Error(`${read}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };

  /**
   * A partner with a converted lead (a pending referrer bonus of 123 456 in the tenant's
   * currency), a new lead, an approved manual bonus of 50 000 in the tenant's currency and a
   * pending manual bonus of −2 500 in `other`.
   */
  async function partnerOf(tenant: TestTenant, currency: string, other: string) {
    const partner = await upsertUser(t, tenant.key, { full_name: 'Maria' });
    const leadId = await createLead(t, tenant.key, partner.serviceUserId, {
      contact: { name: 'Buyer', email: 'buyer@example.org' },
    });
    await registerConversion(t, tenant.key, {
      lead_id: leadId,
      amount_kopecks: 1_234_567,
      currency,
      external_order_id: `order-${tenant.slug}`,
    });
    await createLead(t, tenant.key, partner.serviceUserId, {
      contact: { name: 'Second', email: 'second@example.org' },
    });
    const manual = async (amount_kopecks: number, cur: string) => {
      const res = await admin('post', `/admin/v1/tenants/${tenant.slug}/bonuses`).send({
        user_id: partner.serviceUserId,
        amount_kopecks,
        currency: cur,
        reason: 'Campaign',
      });
      expect(res.status).toBe(201);
      return res.body.bonus_id as string;
    };
    const approved = await manual(50_000, currency);
    const approve = await admin(
      'post',
      `/admin/v1/tenants/${tenant.slug}/bonuses/${approved}/approve`,
    );
    expect(approve.status).toBe(200);
    await manual(-2_500, other);
    return partner;
  }

  /** Every human string of a cabinet and a bonuses answer, in `locale` and `language`. */
  function expectStrings(
    cabinet: Answer,
    bonuses: Answer,
    locale: string,
    currency: string,
    other: string,
    language: Language,
  ) {
    const labels = LABELS[language];
    const times = recentTimes(locale);

    expect(cabinet.user.badge.role_label).toBe(labels.role);
    expect(cabinet.kpi).toMatchObject({
      leads_count: 2,
      cleared_kopecks: 50_000,
      pending_kopecks: 123_456,
      cleared_formatted: money(50_000, currency, locale),
      pending_formatted: money(123_456, currency, locale),
    });
    expect(cabinet.recent_leads.map((l) => [l.status, l.status_human])).toEqual([
      ['new', labels.lead.new],
      ['converted', labels.lead.converted],
    ]);
    for (const l of cabinet.recent_leads) expect(times).toContain(l.relative_time);

    for (const body of [cabinet, bonuses]) {
      expect(body.transactions).toHaveLength(3);
      for (const x of body.transactions) {
        expect(x.amount_formatted).toBe(money(x.amount_kopecks, x.currency, locale));
        expect(x.status_human).toBe(labels.bonus[x.status as 'pending' | 'approved']);
        expect(times).toContain(x.relative_time);
      }
    }
    expect(bonuses.user.badge.role_label).toBe(labels.role);
    expect(bonuses.totals).toEqual({
      cleared_kopecks: 50_000,
      pending_kopecks: 123_456,
      cleared_formatted: money(50_000, currency, locale),
      pending_formatted: money(123_456, currency, locale),
      currency,
    });
    const account = (cur: string) => bonuses.accounts.find((a) => a.currency === cur);
    expect(account(other)).toEqual({
      currency: other,
      cleared_kopecks: 0,
      pending_kopecks: -2_500,
      cleared_formatted: money(0, other, locale),
      pending_formatted: money(-2_500, other, locale),
      // The payout balances (docs/payouts.md): nothing approved, nothing paid out.
      available_kopecks: 0,
      in_payout_kopecks: 0,
      paid_kopecks: 0,
      available_formatted: money(0, other, locale),
      in_payout_formatted: money(0, other, locale),
      paid_formatted: money(0, other, locale),
    });
  }

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  describe.each([
    // locale as sent, canonical, currency, another currency, label language
    ['en-US', 'en-US', 'USD', 'EUR', 'en'],
    ['de-DE', 'de-DE', 'EUR', 'USD', 'en'],
    ['kk-KZ', 'kk-KZ', 'KZT', 'RUB', 'en'],
    ['ru-KZ', 'ru-KZ', 'KZT', 'USD', 'ru'],
    ['ru', 'ru', 'RUB', 'KZT', 'ru'],
    ['ja-jp', 'ja-JP', 'JPY', 'USD', 'en'],
  ] as const)('a %s tenant', (sent, locale, currency, other, language) => {
    let tenant: TestTenant;
    let partner: UpsertedMember;

    beforeAll(async () => {
      tenant = await createTenant(t, { locale: sent, currency });
      partner = await partnerOf(tenant, currency, other);
    });

    it(`is created with ${currency} and stores the locale as ${locale}`, async () => {
      expect(tenant.body).toMatchObject({ locale, currency });
      const read = await admin('get', `/admin/v1/tenants/${tenant.slug}`);
      expect(read.body).toMatchObject({ locale, currency });
    });

    it(`prints the cabinet and the bonuses exactly as Intl does for ${locale}, labels in ${language}`, async () => {
      const cabinet = await ok(tenant, 'cabinet', partner.memberId);
      const bonuses = await ok(tenant, 'bonuses', partner.memberId);
      expectStrings(cabinet, bonuses, locale, currency, other, language);
      // The same through the pipeline (a query the fast lane leaves to it): the same strings.
      const viaPipeline = await ok(tenant, 'bonuses', partner.memberId, '&page=01');
      expectStrings(cabinet, viaPipeline, locale, currency, other, language);
    });

    it('labels leads and names nameless members in the same language', async () => {
      const leads = await ok(tenant, 'leads', partner.memberId, '&status=new');
      expect(leads.leads.map((l: { status_human: string }) => l.status_human)).toEqual([
        LABELS[language].lead.new,
      ]);
      const child = await upsertUser(t, tenant.key, { referrer_user_id: partner.serviceUserId });
      const partners = await ok(tenant, 'partners', partner.memberId);
      expect(partners.partners[0]).toMatchObject({
        user_id: child.memberId,
        display_name: LABELS[language].role,
      });
      const tree = await ok(tenant, 'referral-tree', partner.memberId);
      expect(tree.levels[1][0].display_name).toBe(LABELS[language].role);
    });
  });

  it('prints US dollars for en-US as Intl does: $1,234.56', async () => {
    const tenant = await createTenant(t, { locale: 'en-US', currency: 'USD' });
    const partner = await partnerOf(tenant, 'USD', 'EUR');
    const cabinet = await ok(tenant, 'cabinet', partner.memberId);
    expect(cabinet.kpi.pending_formatted).toBe('$1,234.56');
    expect(cabinet.kpi.cleared_formatted).toBe('$500.00');
  });

  describe('?locale= on the Embed Data API', () => {
    let ruTenant: TestTenant;
    let ruPartner: UpsertedMember;
    let deTenant: TestTenant;
    let dePartner: UpsertedMember;

    beforeAll(async () => {
      ruTenant = await createTenant(t);
      ruPartner = await partnerOf(ruTenant, 'RUB', 'USD');
      deTenant = await createTenant(t, { locale: 'de-DE', currency: 'EUR' });
      dePartner = await partnerOf(deTenant, 'EUR', 'RUB');
    });

    it.each([
      ['de-DE', 'de-DE', 'en'],
      ['en-US', 'en-US', 'en'],
      ['kk-KZ', 'kk-KZ', 'en'],
      ['fr-CH', 'fr-CH', 'en'],
      ['en-us', 'en-US', 'en'],
      ['ru-kz', 'ru-KZ', 'ru'],
      ['de-DE-u-nu-arab', 'de-DE-u-nu-arab', 'en'],
    ] as const)(
      'takes %s over the tenant locale (as %s, labels in %s)',
      async (sent, locale, language) => {
        const query = `&locale=${encodeURIComponent(sent)}`;
        const cabinet = await ok(ruTenant, 'cabinet', ruPartner.memberId, query);
        const bonuses = await ok(ruTenant, 'bonuses', ruPartner.memberId, query);
        expectStrings(cabinet, bonuses, locale, 'RUB', 'USD', language);
        const viaPipeline = await ok(ruTenant, 'bonuses', ruPartner.memberId, `${query}&page=01`);
        expectStrings(cabinet, viaPipeline, locale, 'RUB', 'USD', language);
      },
    );

    it("gives Russian labels with locale=ru over a German tenant's, in the tenant's currency", async () => {
      const cabinet = await ok(deTenant, 'cabinet', dePartner.memberId, '&locale=ru');
      const bonuses = await ok(deTenant, 'bonuses', dePartner.memberId, '&locale=ru');
      expectStrings(cabinet, bonuses, 'ru', 'EUR', 'RUB', 'ru');
      const own = await ok(deTenant, 'cabinet', dePartner.memberId);
      expect(own.kpi.pending_formatted).toBe(money(123_456, 'EUR', 'de-DE'));
      expect(own.user.badge.role_label).toBe('Partner');
    });

    it('refuses a tag Intl does not support with 400 validation_failed on every read, and takes kk-KZ', async () => {
      const bad = [
        'xx-YY',
        'en_US',
        'i-klingon',
        'und',
        'en-',
        'de,en',
        '',
        `en-${'abcdefgh-'.repeat(7)}x`,
      ];
      for (const read of ['cabinet', 'bonuses', 'leads', 'referral-tree', 'partners']) {
        for (const tag of bad) {
          const res = await embed(
            ruTenant,
            read,
            ruPartner.memberId,
            `&locale=${encodeURIComponent(tag)}`,
          );
          expectProblem(res, 400, 'validation_failed');
          expect({ tag, errors: res.body.errors }).toEqual({
            tag,
            errors: [{ field: 'locale', message: expect.any(String) }],
          });
        }
        const good = await embed(ruTenant, read, ruPartner.memberId, '&locale=kk-KZ');
        expect({ read, status: good.status }).toEqual({ read, status: 200 });
      }
    });
  });

  describe('validation of a tenant locale and currency', () => {
    /** Each bad value refused at creation and in a PATCH, naming the field; then `good` taken. */
    async function refusesAndTakes(field: string, bad: unknown[], good: string) {
      const tenant = await createTenant(t);
      for (const value of bad) {
        const created = await admin('post', '/admin/v1/tenants').send({
          slug: uniqueSlug(),
          display_name: 'Bad',
          allowed_origins: ['https://bad.example'],
          [field]: value,
        });
        expectProblem(created, 400, 'validation_failed');
        expect({
          value,
          fields: created.body.errors.map((e: { field: string }) => e.field),
        }).toEqual({ value, fields: [field] });
        const patched = await admin('patch', `/admin/v1/tenants/${tenant.slug}`).send({
          [field]: value,
        });
        expectProblem(patched, 400, 'validation_failed');
        expect({
          value,
          fields: patched.body.errors.map((e: { field: string }) => e.field),
        }).toEqual({ value, fields: [field] });
      }
      const created = await createTenant(t, { [field]: good });
      expect(created.body[field as keyof typeof created.body]).toBe(good);
      const patched = await admin('patch', `/admin/v1/tenants/${tenant.slug}`).send({
        [field]: good,
      });
      expect({ status: patched.status, value: patched.body[field] }).toEqual({
        status: 200,
        value: good,
      });
    }

    it('takes a locale Intl supports (kk-KZ) and refuses any other tag with 400', async () => {
      await refusesAndTakes(
        'locale',
        [
          'xx-YY',
          'en_US',
          'i-klingon',
          'und',
          '',
          null,
          42,
          ['en-US'],
          `en-${'abcdefgh-'.repeat(7)}x`,
        ],
        'kk-KZ',
      );
    });

    it('takes a currency Intl knows (KZT) and refuses unknown codes (XYZ) and other forms with 400', async () => {
      await refusesAndTakes(
        'currency',
        ['XYZ', 'ABC', 'usd', 'Usd', 'RUBL', 'US', '', null, 840],
        'KZT',
      );
    });

    it('stores the canonical form of a locale given at creation or in a PATCH', async () => {
      const tenant = await createTenant(t, { locale: 'EN-us', currency: 'CHF' });
      expect(tenant.body).toMatchObject({ locale: 'en-US', currency: 'CHF' });
      const patched = await admin('patch', `/admin/v1/tenants/${tenant.slug}`).send({
        locale: 'de-ch',
        currency: 'KZT',
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ locale: 'de-CH', currency: 'KZT' });
      const [row] = await t.db.query(`SELECT locale, currency FROM tenants WHERE slug = $1`, [
        tenant.slug,
      ]);
      expect(row).toEqual({ locale: 'de-CH', currency: 'KZT' });
    });
  });

  it("tells the widgets the tenant's locale in the origin check, when the origin is allowed", async () => {
    const tenant = await createTenant(t, { locale: 'kk-kz', currency: 'KZT' });
    const check = (origin: string) =>
      t.http().get(`/embed/v1/widget/origin-check?tenant=${tenant.slug}`).set('Origin', origin);
    const allowed = await check(`https://${tenant.slug}.example`);
    expect(allowed.body).toMatchObject({ allowed: true, locale: 'kk-KZ' });
    const refused = await check('https://elsewhere.example');
    expect(refused.body).toMatchObject({
      allowed: false,
      code: 'origin_not_allowed',
      locale: null,
    });
  });

  it('formats the admin bonus queue in the tenant locale', async () => {
    const tenant = await createTenant(t, { locale: 'de-DE', currency: 'EUR' });
    await partnerOf(tenant, 'EUR', 'USD');
    const cookie = await orgSignIn(() => t.http(), t.adminToken);
    const page = await t.http().get(`/org/${tenant.slug}/bonuses`).set('Cookie', cookie);
    expect(page.status).toBe(200);
    for (const [kopecks, currency] of [
      [123_456, 'EUR'],
      [50_000, 'EUR'],
      [-2_500, 'USD'],
    ] as const) {
      expect(amountCells(page.text)).toContain(money(kopecks, currency, 'de-DE'));
    }
    expect(money(123_456, 'EUR', 'ru-RU')).not.toBe(money(123_456, 'EUR', 'de-DE'));
    expect(amountCells(page.text)).not.toContain(money(123_456, 'EUR', 'ru-RU'));
  });
});

/** The texts of the page's table cells (the bonus queue's amount cells carry a class). */
function amountCells(html: string): string[] {
  return [...html.matchAll(/<td(?: [^>]*)?>([^<]*)<\/td>/g)].map((m) => m[1]);
}
