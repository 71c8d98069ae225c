/**
 * The portal's figures are the Admin API's (docs/partners.md, "The partner portal"), over random
 * histories (fast-check) made through the real APIs: sales in two currencies on a chain, bonuses
 * approved and rejected, refunds before and after payment (clawbacks), payout runs, and payouts
 * paid, failed and canceled. After each history every partner of the chain signs in to the
 * portal, and its available / in payout / paid (each currency), its payouts and its commissions
 * are exactly what the Admin API gives for them.
 */
import fc from 'fast-check';
import { admin } from '../../factories/payouts.factory';
import { createTenant } from '../../factories/tenants.factory';
import { upsertUser, type UpsertedMember } from '../../factories/users.factory';
import { createTestApp, type TestApp } from '../../utils/create-test-app';
import { historyPlayer, historyStep } from '../../utils/money-history';
import { portalGet, portalSignIn } from '../../utils/portal-suite';
import { type SmtpCatcher, startSmtpCatcher } from '../../utils/smtp-catcher';

const money = (kopecks: number, currency: string) =>
  new Intl.NumberFormat('ru-RU', {
    style: 'currency',
    currency,
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  }).format(kopecks / 100);

/** The values of `attr` on the page's elements that carry it, in document order. */
const attrs = (html: string, attr: string) =>
  [...html.matchAll(new RegExp(`${attr}="([^"]*)"`, 'g'))].map((m) => m[1]);

/** The text of the element with `attr="value"` (no nested markup). */
const textOf = (html: string, attr: string, value: string) =>
  new RegExp(`${attr}="${value}"[^>]*>([^<]*)<`).exec(html)?.[1];

describe('partner portal: its figures are the Admin API’s over random histories (e2e, property)', () => {
  let t: TestApp;
  let smtp: SmtpCatcher;
  beforeAll(async () => {
    smtp = await startSmtpCatcher();
    t = await createTestApp({ SMTP_URL: smtp.url });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('shows each partner the balances, payouts and commissions the Admin API gives', async () => {
    let histories = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(historyStep(2), { minLength: 6, maxLength: 18 }),
        async (commands) => {
          histories++;
          const tenant = await createTenant(t, {
            program: {
              tiers: [
                { tier: 'referrer', percent_bp: 1000 },
                { tier: 'upline_1', percent_bp: 500 },
              ],
            },
            payouts: { minimum_kopecks: 1 },
          });
          const chain: UpsertedMember[] = [];
          const emails = [0, 1, 2].map((i) => `p${i}-${tenant.slug}@example.com`);
          for (let i = 0; i < 3; i++) {
            chain.push(
              await upsertUser(t, tenant.key, {
                email: emails[i],
                full_name: `Partner ${i}`,
                ...(i > 0 ? { referrer_user_id: chain[i - 1].serviceUserId } : {}),
              }),
            );
          }
          const base = `/admin/v1/tenants/${tenant.slug}`;
          const play = historyPlayer(t, tenant, chain);
          for (const c of commands) await play(c);
          for (const [i, member] of chain.entries()) {
            const cookie = await portalSignIn(t, smtp, tenant.slug, emails[i]);
            const user = await t.http().get(`${base}/users/${member.memberId}`).set(admin(t));
            expect(user.status).toBe(200);
            const balances: {
              currency: string;
              available_kopecks: number;
              in_payout_kopecks: number;
              paid_kopecks: number;
            }[] = user.body.payout_balances;
            const home = await portalGet(t, cookie, `/p/${tenant.slug}`);
            expect(home.status).toBe(200);
            const rub = balances.find((b) => b.currency === 'RUB');
            for (const [metric, field] of [
              ['available', 'available_kopecks'],
              ['in_payout', 'in_payout_kopecks'],
              ['paid', 'paid_kopecks'],
            ] as const) {
              expect(textOf(home.text, 'data-metric', metric)).toBe(
                money(rub?.[field] ?? 0, 'RUB'),
              );
              const usd = balances.find((b) => b.currency === 'USD');
              if (usd) {
                expect(textOf(home.text, 'data-currency-metric', `USD:${metric}`)).toBe(
                  money(usd[field], 'USD'),
                );
              }
            }
            // Payouts: the same ones, newest first, with their amounts.
            const payouts = await t
              .http()
              .get(`${base}/payouts?user_id=${member.memberId}&page_size=20`)
              .set(admin(t));
            const page = await portalGet(t, cookie, `/p/${tenant.slug}/payouts`);
            expect(attrs(page.text, 'data-payout')).toEqual(
              payouts.body.items.map((p: { payout_id: string }) => p.payout_id),
            );
            expect(attrs(page.text, 'data-amount').map(Number)).toEqual(
              payouts.body.items.map((p: { amount_kopecks: number }) => p.amount_kopecks),
            );
            // Commissions: the same bonuses with the same statuses.
            const bonuses = await t
              .http()
              .get(`${base}/bonuses?user_id=${member.memberId}&page_size=20`)
              .set(admin(t));
            const earnings = await portalGet(t, cookie, `/p/${tenant.slug}/earnings`);
            const shown = attrs(earnings.text, 'data-bonus').sort();
            expect(shown).toEqual(
              bonuses.body.items.map((b: { bonus_id: string }) => b.bonus_id).sort(),
            );
          }
        },
      ),
      { numRuns: 5, endOnFailure: true },
    );
    expect(histories).toBeGreaterThanOrEqual(5);
  }, 600_000);
});
