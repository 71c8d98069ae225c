/**
 * `embed_auth: token` in a real browser (SPEC 14, docs/embedding.md §3 and §11.3): a tenant's
 * widgets show a partner's figures only after that partner signed in through the popup (the code
 * over real SMTP), keep the session across reloads of the tab, refuse to show another partner's
 * cabinet to a signed-in partner, and the link widget lists the partner's links with their clicks
 * and promo codes before offering a new one. Setup: test/utils/widgets-suite.ts.
 */
import { DeeplinksService } from '../../../src/deeplinks/deeplinks.service';
import { EmbedTokenService } from '../../../src/access/embed-token.service';
import { createTenant, type TestTenant, uniqueSlug } from '../../factories/tenants.factory';
import { upsertUser, type UpsertedMember } from '../../factories/users.factory';
import { widgetScreenshot } from '../../utils/widget-site';
import { box, type Json, settled, widget, widgetsSuite } from '../../utils/widgets-suite';

/** A read widget showing data: Anna is new, so her cabinet is empty. */
const SHOWN = ['ready', 'empty'];

describe('widgets of a tenant with embed_auth: token, in a real browser', () => {
  const d = widgetsSuite({ sites: true });
  let tenant: TestTenant;
  let anna: UpsertedMember;
  let boris: UpsertedMember;
  const annaEmail = `anna-${Date.now()}@partners.test`;

  beforeAll(async () => {
    tenant = await createTenant(d.t, {
      slug: uniqueSlug('tok'),
      allowed_origins: [d.partnerSite.origin],
      embed_auth: 'token',
      locale: 'en-US',
    });
    anna = await upsertUser(d.t, tenant.key, {
      full_name: 'Anna <b>Partner</b>',
      email: annaEmail,
      email_verified: true,
    });
    boris = await upsertUser(d.t, tenant.key, { full_name: 'Boris Secret' });
  });

  const page = (userId: string) =>
    d.sitePage({
      tenant: tenant.slug,
      userId,
      widgets: ['cabinet', 'referral-link'],
      locale: 'en',
      attributes: {
        'referral-link': { 'data-target-type': 'offer', 'data-target-id': 'spring-sale' },
      },
    });

  it('asks the partner to sign in, then shows their own figures and links, and keeps the session on reload', async () => {
    // A link Anna made elsewhere, with a promo code and three clicks.
    const token = d.t.app.get(EmbedTokenService).issue(tenant.orgId, anna.memberId).token;
    const earlier = await d.t
      .http()
      .post(`/embed/v1/data/referral-link?tenant=${tenant.slug}`)
      .set('Origin', d.partnerSite.origin)
      .set('Authorization', `Bearer ${token}`)
      .send({ target_type: 'offer', target_id: 'autumn', promo_code: 'ANNA-10' });
    expect(earlier.status).toBe(200);
    for (let i = 0; i < 3; i++) await d.t.http().get(`/s/${earlier.body.code}`).expect(200); // the landing page
    await d.t.app.get(DeeplinksService).flushClicks();

    const context = await d.newContext();
    const tab = await context.newPage();
    await tab.goto(page(anna.memberId));

    // Nothing of Anna's is shown before she signs in: a sign-in prompt instead.
    const cabinet = await settled(tab, 'cabinet', ['sign-in']);
    expect(await cabinet.locator('[data-part=sign-in]').textContent()).toBe(
      'Sign in to see your figures.',
    );
    expect(await widget(tab, 'cabinet').evaluate((el) => el.shadowRoot!.textContent)).not.toContain(
      'Anna',
    );
    await settled(tab, 'referral-link', ['idle']);
    await widgetScreenshot(widget(tab, 'cabinet'), 'token-cabinet-sign-in');

    // Signing in through the cabinet's button: the popup, the mailed code, Allow.
    const popupOpened = context.waitForEvent('page');
    await cabinet.locator('[data-action=sign-in]').click();
    await d.signInAndAllow(await popupOpened, annaEmail);
    const ready = await settled(tab, 'cabinet', SHOWN);
    expect(await ready.locator('[data-field=display-name]').textContent()).toBe(
      'Anna <b>Partner</b>',
    );

    // The link widget heard the sign-in: Anna's earlier link with its clicks and promo code, and
    // the offer for this page's link, made without another popup.
    const links = await settled(tab, 'referral-link', ['idle']);
    const row = links.locator(`[data-list=links] > li[data-code="${earlier.body.code}"]`);
    expect(await row.locator('[data-field=clicks]').getAttribute('data-clicks')).toBe('3');
    expect(await row.locator('[data-field=clicks]').textContent()).toBe('3 clicks');
    expect(await row.textContent()).toContain('Promo code ANNA-10');
    expect(await links.locator('[data-action=get-link]').textContent()).toBe(
      'Get a link to this page',
    );
    await links.locator('[data-action=get-link]').click();
    const made = await settled(tab, 'referral-link');
    const shortUrl = await made.locator('[data-field=short-url]').inputValue();
    expect(await made.locator('[data-part=created]').count()).toBe(1);
    expect(context.pages()).toHaveLength(1); // the popup is gone and no other was opened

    // A reload keeps the session: no prompt, no popup; the same link is found among hers.
    await tab.reload();
    await settled(tab, 'cabinet', SHOWN);
    const again = await settled(tab, 'referral-link');
    expect(await again.locator('[data-field=short-url]').inputValue()).toBe(shortUrl);
    expect(await again.locator('[data-part=reused]').count()).toBe(1);
    expect(context.pages()).toHaveLength(1);
    await widgetScreenshot(widget(tab, 'referral-link'), 'token-referral-link-list');
    await tab.setViewportSize({ width: 390, height: 844 });
    await widgetScreenshot(widget(tab, 'referral-link'), 'token-referral-link-list-390');

    // Signed in as Anna, Boris's page shows nothing of his: it asks to sign in as him.
    await tab.goto(page(boris.memberId));
    const other = await settled(tab, 'cabinet', ['sign-in']);
    expect(await other.locator('[data-part=sign-in]').textContent()).toBe(
      'You are signed in as another partner. Sign in as this one to see this.',
    );
    expect(await widget(tab, 'cabinet').evaluate((el) => el.shadowRoot!.textContent)).not.toContain(
      'Boris',
    );

    // The session lives in this tab's sessionStorage only.
    const stored = await tab.evaluate<Json>(
      '({ local: localStorage.length, session: Object.keys(sessionStorage), cookie: document.cookie })',
    );
    expect(stored).toEqual({
      local: 0,
      session: [`service-widgets:session:${tenant.slug}`],
      cookie: '',
    });
    // A new tab starts signed out.
    const fresh = await context.newPage();
    await fresh.goto(page(anna.memberId));
    await settled(fresh, 'cabinet', ['sign-in']);
    expect(d.cspViolations).toEqual([]);
    await context.close();
  }, 90_000);

  it('an expired session is dropped and the partner asked again', async () => {
    const context = await d.newContext();
    const tab = await context.newPage();
    const stale = JSON.stringify({
      token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl',
      userId: anna.memberId,
      expiresAt: Date.now() + 3_600_000, // the browser believes it; the service does not
    });
    await tab.goto(`${d.partnerSite.origin}/page`).catch(() => undefined);
    await tab.evaluate(
      ([key, value]) => sessionStorage.setItem(key, value),
      [`service-widgets:session:${tenant.slug}`, stale],
    );
    await tab.goto(page(anna.memberId));
    await settled(tab, 'cabinet', ['sign-in']);
    expect(await box(tab, 'cabinet').locator('[data-action=sign-in]').count()).toBe(1);
    expect(await tab.evaluate(() => Object.keys(sessionStorage))).toEqual([]);
    await context.close();
  }, 60_000);
});
