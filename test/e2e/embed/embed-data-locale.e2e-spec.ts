/**
 * The Embed Data API's locales (docs/embedding.md), its validation, and tenant isolation. Setup:
 * embed-data-suite.
 */
import { type Response } from 'supertest';
import { createLead, registerConversion } from '../../factories/money.factory';
import { createTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { federationApi } from '../../utils/api-client';
import { embedDataSuite, LEAD_LABELS, money, recentTimes } from '../../utils/embed-data-suite';
import { expectProblem } from '../../utils/problem';

describe('embed data: locale, validation and isolation', () => {
  const d = embedDataSuite();

  describe('locale', () => {
    it('defaults to ru-RU and gives English with locale=en', async () => {
      const ru = await d.ok('cabinet', d.partner.memberId);
      const en = await d.ok('cabinet', d.partner.memberId, '&locale=en');
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

      const explicitRu = await d.ok('cabinet', d.partner.memberId, '&locale=ru');
      expect(explicitRu.user.badge.role_label).toBe('Партнёр');
      expect(explicitRu.kpi.pending_formatted).toBe(ru.kpi.pending_formatted);

      for (const [locale, labels] of [
        ['ru', LEAD_LABELS.ru],
        ['en', LEAD_LABELS.en],
      ] as const) {
        for (const status of ['new', 'processed', 'converted', 'rejected'] as const) {
          const body = await d.ok(
            'leads',
            d.partner.memberId,
            `&status=${status}&locale=${locale}`,
          );
          expect(body.leads.length).toBeGreaterThan(0);
          for (const item of body.leads) expect(item.status_human).toBe(labels[status]);
        }
      }
      const partnersEn = await d.ok('partners', d.partner.memberId, '&locale=en');
      expect(partnersEn.user.badge.role_label).toBe('Partner');
      expect(partnersEn.partners[0].partnership_role).toBe('partner');
      const bonusesEn = await d.ok('bonuses', d.partner.memberId, '&locale=en');
      expect(bonusesEn.totals.pending_formatted).toBe(
        money(bonusesEn.totals.pending_kopecks, 'RUB', 'en'),
      );
      expect(bonusesEn.accounts[0].pending_formatted).toBe(
        money(bonusesEn.accounts[0].pending_kopecks, 'RUB', 'en'),
      );
    });

    it('labels the role the tenant sets in the upsert, in both locales', async () => {
      const rt = await createTenant(d.t);
      const ambassador = await upsertUser(d.t, rt.key, { full_name: 'Amb', role: 'ambassador' });
      const leader = await upsertUser(d.t, rt.key, {
        full_name: 'Lead',
        role: 'leader',
        referrer_user_id: ambassador.serviceUserId,
      });
      const ru = await d.ok('cabinet', ambassador.memberId, '', rt);
      const en = await d.ok('cabinet', ambassador.memberId, '&locale=en', rt);
      expect(ru.user.badge.role_label).toBe('Амбассадор');
      expect(en.user.badge.role_label).toBe('Ambassador');
      const partners = await d.ok('partners', ambassador.memberId, '', rt);
      expect(
        partners.partners.map((p: { partnership_role: string }) => p.partnership_role),
      ).toEqual(['leader']);
      expect((await d.ok('cabinet', leader.memberId, '', rt)).user.badge.role_label).toBe('Лидер');

      // A later upsert changes it; one without a role leaves it as it is.
      const promoted = await upsertUser(d.t, rt.key, {
        external_id: ambassador.externalId,
        role: 'leader',
      });
      expect(promoted.body.action).toBe('updated');
      const unchanged = await upsertUser(d.t, rt.key, { external_id: ambassador.externalId });
      expect(unchanged.body.action).toBe('unchanged');
      expect(
        (await d.ok('cabinet', ambassador.memberId, '&locale=en', rt)).user.badge.role_label,
      ).toBe('Leader');

      // A role the upsert does not take: sent past the typed body on purpose.
      const refused = await federationApi(d.t, rt.key).raw('post', '/federation/v1/users/upsert', {
        external_id: 'someone',
        role: 'admin',
      });
      expectProblem(refused, 400, 'validation_failed');
    });

    it("follows an English tenant's locale and currency unless locale=ru", async () => {
      const et = await createTenant(d.t, { locale: 'en', currency: 'USD' });
      const p = await upsertUser(d.t, et.key, { full_name: 'English' });
      const leadId = await createLead(d.t, et.key, p.serviceUserId, {
        contact: { name: 'Buyer', email: 'buyer@example.org' },
      });
      await registerConversion(d.t, et.key, {
        lead_id: leadId,
        amount_kopecks: 1_234_567,
        currency: 'USD',
        external_order_id: 'en-1',
      });
      const en = await d.ok('cabinet', p.memberId, '', et);
      expect(en.user.badge.role_label).toBe('Partner');
      expect(en.recent_leads[0].status_human).toBe('Converted');
      expect(en.kpi.pending_kopecks).toBe(123_456);
      expect(en.kpi.pending_formatted).toBe(money(123_456, 'USD', 'en'));
      const ru = await d.ok('cabinet', p.memberId, '&locale=ru', et);
      expect(ru.user.badge.role_label).toBe('Партнёр');
      expect(ru.recent_leads[0].status_human).toBe('Конвертирован');
      expect(ru.kpi.pending_formatted).toBe(money(123_456, 'USD', 'ru-RU'));
      const bonuses = await d.ok('bonuses', p.memberId, '', et);
      expect(bonuses.totals).toMatchObject({ currency: 'USD', pending_kopecks: 123_456 });
    });

    it('refuses a locale Intl does not support (any other BCP 47 tag is taken)', async () => {
      for (const endpoint of ['cabinet', 'bonuses', 'leads', 'referral-tree', 'partners']) {
        const res = await d.embed(endpoint, d.partner.memberId, '&locale=xx-YY');
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
        const res = await d.embed(endpoint, d.partner.memberId, `&${q}`);
        expectProblem(res, 400, 'validation_failed');
        expect(Array.isArray(res.body.errors)).toBe(true);
        expect(res.body.errors.length).toBeGreaterThan(0);
      }
      // The bounds themselves are fine.
      const max = await d.ok(endpoint, d.partner.memberId, '&page=1&page_size=100');
      expect(max.pagination).toMatchObject({ page: 1, page_size: 100 });
      const min = await d.ok(endpoint, d.partner.memberId, '&page_size=1');
      expect(min.pagination).toMatchObject({ page: 1, page_size: 1 });
    });

    it('leads: refuses an unknown status filter', async () => {
      for (const status of ['bogus', 'NEW', 'pending', '']) {
        const res = await d.embed('leads', d.partner.memberId, `&status=${status}`);
        expectProblem(res, 400, 'validation_failed');
      }
    });

    it('cabinet: refuses unknown parameters', async () => {
      expectProblem(
        await d.embed('cabinet', d.partner.memberId, '&bogus=1'),
        400,
        'validation_failed',
      );
    });

    it('answers an unknown user with 404 user_not_found on every endpoint', async () => {
      for (const endpoint of ['cabinet', 'bonuses', 'leads', 'referral-tree', 'partners']) {
        const res = await d.embed(endpoint, 'mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T');
        expectProblem(res, 404, 'user_not_found');
        // The service-wide id is not a surrogate id.
        expectProblem(await d.embed(endpoint, d.partner.serviceUserId), 404, 'user_not_found');
      }
    });

    it("never shows another tenant's member (indistinguishable from a missing one)", async () => {
      const b = await createTenant(d.t);
      const theirs = await upsertUser(d.t, b.key, { full_name: 'Tenant B member' });
      const missingId = 'mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T';
      for (const endpoint of ['cabinet', 'bonuses', 'leads', 'referral-tree', 'partners']) {
        const foreign = await d.embed(endpoint, d.partner.memberId, '', b);
        const missing = await d.embed(endpoint, missingId, '', b);
        expectProblem(foreign, 404, 'user_not_found');
        expectProblem(missing, 404, 'user_not_found');
        const shape = (res: Response, id: string) => {
          const { request_id: _requestId, ...rest } = res.body;
          return { ...rest, detail: String(rest.detail).split(id).join('<id>') };
        };
        expect(shape(foreign, d.partner.memberId)).toEqual(shape(missing, missingId));
        expect(Object.keys(foreign.body).sort()).toEqual(Object.keys(missing.body).sort());
        expect(foreign.headers['access-control-allow-origin']).toBe(`https://${b.slug}.example`);
        // And the other way round.
        expectProblem(await d.embed(endpoint, theirs.memberId), 404, 'user_not_found');
      }
      // B's member is readable on B.
      expect((await d.ok('cabinet', theirs.memberId, '', b)).user.id_surrogate).toBe(
        theirs.memberId,
      );
    });
  });
});
