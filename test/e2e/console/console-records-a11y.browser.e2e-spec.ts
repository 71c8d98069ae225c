/**
 * Accessibility of the console's conversions, leads, bonus queue and ban form (docs/console.md):
 * axe-core runs in Chromium on each of them (Russian and English, desktop and phone width, as a
 * manager and as a viewer) and finds no WCAG 2 A or AA violation.
 */
import { createLead, registerConversion } from '../../factories/money.factory';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { createChain, upsertUser } from '../../factories/users.factory';
import { signIn } from '../../utils/admin-pages-browser';
import { type BrowserSuite, startBrowserSuite } from '../../utils/browser-suite';
import { violations } from '../../utils/axe';

describe('accessibility of the console record pages: no WCAG 2 A/AA violation (docs/console.md)', () => {
  let suite: BrowserSuite | undefined;
  let org: TestTenant;
  let partnerId: string;
  let bannedId: string;
  let reversed: string;
  let registered: string;
  let viewerToken: string;
  const s = () => suite!;

  beforeAll(async () => {
    suite = await startBrowserSuite({ timeoutMs: 20_000 });
    const t = suite.t;
    org = await createTenant(t, { locale: 'ru-RU', program: { lead_bonus_kopecks: 500 } });
    viewerToken = await createStaffToken(t, org.slug, 'viewer');
    const chain = await createChain(t, org.key, 2);
    partnerId = chain[1].memberId;
    for (let i = 0; i < 3; i++) {
      const lead = await createLead(t, org.key, chain[1].serviceUserId, {
        contact: { name: `Клиент ${i}`, email: `c${i}@shop.example`, phone: '+79990001122' },
      });
      const { conversion_id } = await registerConversion(t, org.key, {
        lead_id: lead,
        amount_kopecks: 90_000 * (i + 1),
        external_order_id: `a11y-${i}`,
      });
      if (i === 0) registered = conversion_id;
      reversed = conversion_id;
    }
    await createLead(t, org.key, chain[1].serviceUserId, {
      contact: { name: 'Спорный', email: 'x@mailinator.com' },
    });
    const rev = await t
      .http()
      .post(`/admin/v1/tenants/${org.slug}/conversions/${reversed}/reverse`)
      .set('Authorization', `Bearer ${t.adminToken}`)
      .send({ reason: 'возврат' });
    expect(rev.status).toBe(200);
    const banned = await upsertUser(t, org.key, { full_name: 'Нарушитель' });
    bannedId = banned.memberId;
    const ban = await t
      .http()
      .post(`/admin/v1/tenants/${org.slug}/users/${bannedId}/ban`)
      .set('Authorization', `Bearer ${t.adminToken}`)
      .send({ reason: 'накрутка' });
    expect(ban.status).toBe(200);
  }, 120_000);
  afterAll(() => suite?.close());

  const PATHS = () => [
    `/org/${org.slug}/conversions`,
    `/org/${org.slug}/conversions?status=reversed&from=2026-01-01&to=2030-12-31`,
    `/org/${org.slug}/conversions?notice=x&reversed=${reversed}`,
    `/org/${org.slug}/conversions?user_id=bad`,
    `/org/${org.slug}/conversions/${registered}`,
    `/org/${org.slug}/conversions/${reversed}?reversed=${reversed}`,
    `/org/${org.slug}/leads`,
    `/org/${org.slug}/leads?status=converted&source=federation`,
    `/org/${org.slug}/bonuses?status=pending&review=flagged`,
    `/org/${org.slug}/bonuses`,
    `/org/${org.slug}/bonuses?approved=x&done=approve:2`,
    `/org/${org.slug}/bonuses?status=lost`,
    `/org/${org.slug}/partners/${partnerId}`,
    `/org/${org.slug}/partners/${bannedId}?notice=banned`,
  ];

  it.each([
    ['manager', 1280],
    ['manager', 390],
    ['viewer', 1280],
  ] as const)(
    'every record page as a %s at %ipx, in Russian and English',
    async (who, width) => {
      const ctx = await s().newContext({ viewport: { width, height: 900 }, bypassCSP: true });
      const page = await ctx.newPage();
      await signIn(page, s().base, who === 'viewer' ? viewerToken : s().t.adminToken);
      const found: string[] = [];
      for (const lang of ['ru', 'en']) {
        await page.goto(`${s().base}/org/${org.slug}/leads?lang=${lang}`);
        for (const path of PATHS()) {
          const res = await page.goto(`${s().base}${path}`);
          expect(res?.status()).toBe(200);
          // The ban form is folded away: open it so that it is checked too.
          await page
            .locator('details')
            .evaluateAll((els) => els.forEach((d) => d.setAttribute('open', '')));
          found.push(...(await violations(page)).map((v) => `${lang} ${path}: ${v}`));
        }
      }
      expect(found).toEqual([]);
    },
    240_000,
  );
});
