/**
 * The partner's money in the `bonuses` and `cabinet` widgets, in a real headless Chromium on a
 * tenant's own site, over RANDOM histories (fast-check) built through the real APIs: sales and
 * manual bonuses (pending), approvals, rejections, refunds before and after payment (clawbacks),
 * payout runs, payouts paid (Federation API) and failed (Admin API), under a random payout
 * schedule and minimum. Each widget must show available, in payout, paid and pending exactly as
 * the Embed Data API computes them (`balance`, each in `[data-metric]`), and the next payout (date,
 * what is missing to the minimum); the API's figures are checked against the Admin API's bonuses
 * and payouts, and the next payout against what a run then really pays. Also photographs both
 * widgets at 1280 and 390 px (test-output/screenshots/widget-balance-*.png).
 */
import fc from 'fast-check';
import type { Locator, Page } from 'playwright-core';
import { createLead, registerConversion } from '../../factories/money.factory';
import { admin } from '../../factories/payouts.factory';
import { createTenant, type TestTenant } from '../../factories/tenants.factory';
import { upsertUser, type UpsertedMember } from '../../factories/users.factory';
import { adminApi, embedApi, federationApi } from '../../utils/api-client';
import { type BrowserSuite, startBrowserSuite } from '../../utils/browser-suite';
import type { TestApp } from '../../utils/create-test-app';
import { startWidgetSite, widgetScreenshot, type WidgetSite } from '../../utils/widget-site';
import { type Json, settled, widget } from '../../utils/widgets-suite';

type Command =
  | { kind: 'sale' | 'manual'; amount: number }
  | { kind: 'approve' | 'reject' | 'reverse' | 'paid' | 'failed'; pick: number }
  | { kind: 'run' };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    kind: fc.constantFrom('sale' as const, 'manual' as const),
    amount: fc.integer({ min: 1, max: 400_000 }),
  }),
  fc.record({
    kind: fc.constantFrom(
      'approve' as const,
      'approve' as const,
      'reject' as const,
      'reverse' as const,
      'paid' as const,
      'paid' as const,
      'failed' as const,
    ),
    pick: fc.nat(),
  }),
  fc.record({ kind: fc.constant('run' as const) }),
);

const settings = fc.record({
  minimum_kopecks: fc.constantFrom(1, 5_000, 50_000, 100_000),
  schedule: fc.constantFrom('manual', 'weekly:1', 'weekly:5', 'monthly:1', 'monthly:28'),
  locale: fc.constantFrom('ru' as const, 'en' as const),
});

const METRICS = ['available', 'in_payout', 'paid', 'pending'] as const;
const DAY_MS = 86_400_000;

/** The schedule's next run day after today (UTC), counted day by day; null for manual. */
function expectedNextDay(schedule: string, now: Date): string | null {
  const [kind, n] = schedule.split(':');
  if (kind === 'manual') return null;
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  for (let d = 1; ; d++) {
    const day = new Date(today + d * DAY_MS);
    const hit =
      kind === 'weekly' ? (day.getUTCDay() || 7) === Number(n) : day.getUTCDate() === Number(n);
    if (hit) return day.toISOString().slice(0, 10);
  }
}

const sum = (items: { amount_kopecks: number }[]) =>
  items.reduce((total, i) => total + i.amount_kopecks, 0);

describe('widgets in a real browser: the partner’s balance over random histories (docs/embedding.md §11)', () => {
  let suite: BrowserSuite;
  let t: TestApp;
  let site: WidgetSite;

  beforeAll(async () => {
    suite = await startBrowserSuite({ context: { viewport: { width: 1280, height: 900 } } });
    t = suite.t;
    site = await startWidgetSite();
    suite.onClose(() => site.close());
  }, 120_000);
  afterAll(() => suite?.close());

  /** A tenant of its own (allowing `site`), a partner P referred by U. */
  async function program(payouts: Record<string, unknown>, locale = 'ru-RU') {
    const tenant = await createTenant(t, {
      allowed_origins: [site.origin],
      locale,
      program: { tiers: [{ tier: 'referrer', percent_bp: 2000 }] },
      payouts: { ...payouts, hold_days: 0 },
    });
    const upline = await upsertUser(t, tenant.key, { full_name: 'Upline' });
    const partner = await upsertUser(t, tenant.key, {
      full_name: 'Мария Иванова',
      referrer_user_id: upline.serviceUserId,
    });
    return { tenant, partner };
  }

  /** Plays `commands` for the partner through the Federation and Admin APIs. */
  async function play(tenant: TestTenant, partner: UpsertedMember, commands: Command[]) {
    const adm = adminApi(t, t.adminToken);
    const fed = federationApi(t, tenant.key);
    const base = `/admin/v1/tenants/${tenant.slug}`;
    const conversions: string[] = [];
    const ids = async (sql: string) =>
      (await t.db.query<{ id: string }[]>(sql, [tenant.orgId])).map((r) => r.id);
    let order = 0;
    for (const c of commands) {
      if (c.kind === 'sale') {
        const lead = await createLead(t, tenant.key, partner.serviceUserId, {
          contact: { name: 'Buyer', email: `b${order}@example.org` },
        });
        const conv = await registerConversion(t, tenant.key, {
          lead_id: lead,
          amount_kopecks: c.amount * 5,
          external_order_id: `o-${order++}`,
        });
        conversions.push(conv.conversion_id);
      } else if (c.kind === 'manual') {
        const res = await adm.createBonus(tenant.slug, {
          user_id: partner.serviceUserId,
          amount_kopecks: c.amount,
          currency: 'RUB',
          reason: 'campaign',
        });
        expect(res.status).toBe(201);
      } else if (c.kind === 'run') {
        expect((await t.http().post(`${base}/payouts/runs`).set(admin(t))).status).toBe(201);
      } else if (c.kind === 'approve' || c.kind === 'reject') {
        const bonuses = await ids(
          `SELECT id FROM bonuses WHERE tenant_id = $1 AND status = 'pending' ORDER BY id`,
        );
        if (!bonuses.length) continue;
        const id = bonuses[c.pick % bonuses.length];
        const res =
          c.kind === 'approve'
            ? await adm.approveBonus(tenant.slug, id)
            : await adm.rejectBonus(tenant.slug, id, { reason: 'no' });
        expect(res.status).toBe(200);
      } else if (c.kind === 'reverse') {
        if (!conversions.length) continue;
        const res = await fed.reverseConversion(conversions[c.pick % conversions.length], {
          reason: 'refund',
        });
        expect([200, 409]).toContain(res.status);
      } else if (c.kind === 'paid' || c.kind === 'failed') {
        const payouts = await ids(
          `SELECT id FROM payouts WHERE tenant_id = $1 AND status = 'pending' ORDER BY id`,
        );
        if (!payouts.length) continue;
        const id = payouts[c.pick % payouts.length];
        const res =
          c.kind === 'paid'
            ? await fed.raw('post', `/federation/v1/payouts/${id}/paid`, { reference: 'R-1' })
            : await t
                .http()
                .post(`${base}/payouts/${id}/failed`)
                .set(admin(t))
                .send({ reason: 'account closed' });
        expect(res.status).toBe(200);
      }
    }
  }

  /** What the Embed Data API answers the partner's widgets. */
  async function read(tenant: TestTenant, partner: UpsertedMember, what: string, locale: string) {
    const res = await embedApi(t, site.origin, tenant.slug).raw(
      'get',
      `/embed/v1/data/${what}/${partner.memberId}?tenant=${tenant.slug}&locale=${locale}`,
    );
    expect(res.status).toBe(200);
    return res.body as Json;
  }

  /** The API's balance, against the Admin API's bonuses and payouts of the partner. */
  async function expectBalanceTrue(tenant: TestTenant, partner: UpsertedMember, balance: Json) {
    const adm = adminApi(t, t.adminToken);
    const bonuses = (
      await adm.listBonuses(tenant.slug, { user_id: partner.serviceUserId, page_size: 100 })
    ).body.items;
    const payouts = (
      await t
        .http()
        .get(`/admin/v1/tenants/${tenant.slug}/payouts`)
        .query({ user_id: partner.serviceUserId, page_size: 100 })
        .set(admin(t))
    ).body.items as { status: string; amount_kopecks: number }[];
    const of = <T extends { status: string }>(rows: T[], ...statuses: string[]) =>
      rows.filter((r) => statuses.includes(r.status));
    const inPayout = sum(of(payouts, 'pending'));
    const paid = sum(of(payouts, 'paid'));
    expect({
      pending: balance.pending_kopecks,
      in_payout: balance.in_payout_kopecks,
      paid: balance.paid_kopecks,
      available: balance.available_kopecks,
    }).toEqual({
      pending: sum(of(bonuses, 'pending')),
      in_payout: inPayout,
      paid,
      // docs/payouts.md §1: available + in payout + paid = approved + paid bonuses.
      available: sum(of(bonuses, 'approved', 'paid')) - inPayout - paid,
    });
  }

  /** Every figure of `balance` as the widget shows it, and the figures the API answered. */
  async function shown(root: Locator) {
    const text = async (selector: string) => {
      const el = root.locator(selector);
      return (await el.count()) ? await el.first().textContent() : null;
    };
    const figures: Record<string, string | null> = {};
    for (const m of METRICS) figures[m] = await text(`[data-list=balance] [data-metric=${m}]`);
    for (const m of ['next_payout_date', 'to_minimum', 'minimum', 'payable'])
      figures[m] = await text(`[data-part=next-payout] [data-metric=${m}]`);
    return figures;
  }

  function expected(balance: Json) {
    const next = balance.next_payout;
    const due = next.remaining_kopecks === 0;
    return {
      available: balance.available_formatted,
      in_payout: balance.in_payout_formatted,
      paid: balance.paid_formatted,
      pending: balance.pending_formatted,
      next_payout_date: next.date_formatted,
      to_minimum: due ? null : next.remaining_formatted,
      minimum: next.minimum_formatted,
      payable: due ? next.payable_formatted : null,
    };
  }

  async function openWidgets(
    page: Page,
    tenant: TestTenant,
    partner: UpsertedMember,
    locale: string,
  ) {
    await page.goto(
      site.pageUrl({
        base: suite.base,
        tenant: tenant.slug,
        userId: partner.memberId,
        widgets: ['cabinet', 'bonuses'],
        locale: locale as 'ru' | 'en',
      }),
    );
    return {
      cabinet: await settled(page, 'cabinet', ['ready', 'empty']),
      bonuses: await settled(page, 'bonuses', ['ready', 'empty']),
    };
  }

  it('each widget shows exactly the API’s available, in payout, paid, pending and next payout', async () => {
    const context = await suite.newContext();
    const page = await context.newPage();
    let histories = 0;
    await fc.assert(
      fc.asyncProperty(
        settings,
        fc.array(command, { minLength: 4, maxLength: 14 }),
        async ({ locale, ...payouts }, commands) => {
          histories++;
          const { tenant, partner } = await program(payouts);
          await play(tenant, partner, commands);
          const now = new Date();
          const cabinet = await read(tenant, partner, 'cabinet', locale);
          const bonuses = await read(tenant, partner, 'bonuses', locale);
          // Both reads answer the same money, and it is the Admin API's.
          expect(cabinet.balance).toEqual(bonuses.balance);
          const balance = bonuses.balance as Json;
          await expectBalanceTrue(tenant, partner, balance);
          expect(balance.next_payout).toMatchObject({
            schedule: payouts.schedule,
            date: expectedNextDay(payouts.schedule, now),
            minimum_kopecks: payouts.minimum_kopecks,
            remaining_kopecks: Math.max(
              0,
              payouts.minimum_kopecks - balance.next_payout.payable_kopecks,
            ),
          });

          const root = await openWidgets(page, tenant, partner, locale);
          for (const name of ['cabinet', 'bonuses'] as const) {
            const figures = await shown(root[name]);
            if (JSON.stringify(figures) !== JSON.stringify(expected(balance)))
              throw new Error(
                `${name} widget after ${JSON.stringify(commands)} (${JSON.stringify(payouts)}, ${locale}): ` +
                  `shows ${JSON.stringify(figures)}, the API answers ${JSON.stringify(expected(balance))}`,
              );
          }

          // The next payout tells the truth: a run now pays the partner exactly `payable` once
          // the minimum is reached, and nothing before (hold 0: what the run's day would see).
          const before = balance.next_payout;
          const run = await t
            .http()
            .post(`/admin/v1/tenants/${tenant.slug}/payouts/runs`)
            .set(admin(t));
          expect(run.status).toBe(201);
          const made = (
            await t
              .http()
              .get(`/admin/v1/tenants/${tenant.slug}/payouts`)
              .query({ user_id: partner.serviceUserId, run_id: run.body.run_id })
              .set(admin(t))
          ).body.items as { amount_kopecks: number }[];
          expect(made.map((p) => p.amount_kopecks)).toEqual(
            before.remaining_kopecks === 0 ? [before.payable_kopecks] : [],
          );
        },
      ),
      { numRuns: 10, endOnFailure: true },
    );
    expect(histories).toBeGreaterThanOrEqual(10);
    expect(suite.cspViolations).toEqual([]);
    await context.close();
  }, 240_000);

  it('reads well at 1280 and 390 px: every sum once, the next payout and the minimum (screenshots)', async () => {
    for (const locale of ['ru', 'en'] as const) {
      const { tenant, partner } = await program(
        { minimum_kopecks: 100_000, schedule: 'weekly:1' },
        locale === 'ru' ? 'ru-RU' : 'en-US',
      );
      // Paid 3 000,00; 1 500,00 in a pending payout; 650,00 available; 375,00 pending.
      await play(tenant, partner, [
        { kind: 'manual', amount: 300_000 },
        { kind: 'approve', pick: 0 },
        { kind: 'run' },
        { kind: 'paid', pick: 0 },
        { kind: 'manual', amount: 150_000 },
        { kind: 'approve', pick: 0 },
        { kind: 'run' },
        { kind: 'manual', amount: 65_000 },
        { kind: 'approve', pick: 0 },
        { kind: 'manual', amount: 37_500 },
      ]);
      const balance = (await read(tenant, partner, 'bonuses', locale)).balance as Json;
      expect(balance).toMatchObject({
        available_kopecks: 65_000,
        in_payout_kopecks: 150_000,
        paid_kopecks: 300_000,
        pending_kopecks: 37_500,
      });
      expect(balance.next_payout.remaining_kopecks).toBe(35_000);
      for (const width of [1280, 390]) {
        const context = await suite.newContext({ viewport: { width, height: 900 } });
        const page = await context.newPage();
        const root = await openWidgets(page, tenant, partner, locale);
        for (const name of ['cabinet', 'bonuses'] as const) {
          expect(await shown(root[name])).toEqual(expected(balance));
          // The four sums are four tiles side by side (1280) or two by two (390), never cut.
          const tiles = await root[name]
            .locator('[data-list=balance] b[data-metric]')
            .evaluateAll((els) =>
              els.map((b) => ({
                top: Math.round(b.parentElement!.getBoundingClientRect().top),
                fits: b.scrollWidth <= b.clientWidth,
              })),
            );
          expect(tiles).toHaveLength(4);
          expect(tiles.every((x) => x.fits)).toBe(true);
          expect(new Set(tiles.map((x) => x.top)).size).toBe(width === 1280 ? 1 : 2);
          await widgetScreenshot(widget(page, name), `balance-${name}-${width}-${locale}`);
        }
        await context.close();
      }
    }
  }, 120_000);
});
