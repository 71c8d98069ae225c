/**
 * The organisation admin pages (README.md) in a real headless Chromium, after the owner's work
 * (done through the Admin API by the suite: origins, a revoked key, the webhook, a dead-lettered
 * then replayed delivery, approved and rejected bonuses): what a viewer, another organisation's
 * owner and the platform admin may see and do, CSRF and sign-out, the pages without JavaScript
 * and at phone width, and Enter in a rejection reason. Screenshots go to
 * test-output/screenshots/admin-*.png (git-ignored). Setup: test/utils/admin-pages-suite.ts.
 */
import { createHash } from 'node:crypto';
import {
  clickAndWait,
  csrfOf,
  pageWidths,
  postForm,
  pressAndWait,
  signIn,
} from '../../utils/admin-pages-browser';
import { adminPagesSuite } from '../../utils/admin-pages-suite';
import { screenshot } from '../../utils/browser';

describe('organisation admin pages in a real browser: roles, sessions and any screen (README.md)', () => {
  const d = adminPagesSuite({ ownerWork: true });

  it('a viewer sees every page but can change nothing, even with forged posts', async () => {
    expect(d.deadEventId).toBeDefined();
    const page = await d.newPage();
    await signIn(page, d.base, d.viewerToken);
    expect(new URL(page.url()).pathname).toBe(d.orgPath('bonuses'));
    expect(await page.locator('header nav').textContent()).toContain(
      `viewer of ${d.org.slug} · viewer`,
    );

    /** Submit buttons of POST forms, other than signing out, that a click would fire. */
    const usableActions = () =>
      page
        .locator(
          'form[method="post"]:not([action="/org/sign-out"]) button:not([disabled]), [formaction]',
        )
        .count();

    // Bonuses: the queue and totals, without selection boxes or buttons.
    const queue = await d.queueOnPage(page);
    expect(queue.map((r) => r.id).sort()).toEqual([...d.bonusIds].sort());
    expect(Object.keys(await d.totalsOnPage(page)).sort()).toEqual([
      'approved',
      'pending',
      'rejected',
    ]);
    expect(await page.locator('input[name="ids"]').count()).toBe(0);
    expect(await page.locator('[data-action^="bulk-"]').count()).toBe(0);
    expect(await usableActions()).toBe(0);
    await screenshot(page, 'admin-viewer-bonuses');

    // Integration: settings, webhook and deliveries are shown, every field disabled.
    await clickAndWait(page, page.locator('nav a', { hasText: 'Integration' }));
    const origins = page.locator('textarea[name="allowed_origins"]');
    expect(await origins.inputValue()).toContain(`https://shop.${d.org.slug}.example:8443`);
    expect(await origins.isDisabled()).toBe(true);
    expect(await page.locator('input[name="url"]').inputValue()).toBe(d.receiver.url);
    expect(await page.locator('input[name="url"]').isDisabled()).toBe(true);
    expect(await page.locator('input[name="events"]:not([disabled])').count()).toBe(0);
    // Tenant keys are the owner's, as in the Admin API: not even listed for a viewer.
    expect(await page.locator('h2', { hasText: 'Tenant keys' }).count()).toBe(0);
    expect(await page.locator('tr', { hasText: 'browser-key' }).count()).toBe(0);
    expect(await page.locator(`a[href$="/webhook-events/${d.deadEventId}"]`).count()).toBe(1);
    expect(await page.locator('[data-action="create-key"], [data-action^="save-"]').count()).toBe(
      0,
    );
    expect(await usableActions()).toBe(0);
    await screenshot(page, 'admin-viewer-integration');

    // Audit log and an event: readable, no Replay.
    await clickAndWait(page, page.locator('nav a', { hasText: 'Audit log' }));
    const text = await d.mainText(page);
    for (const action of ['bonus.approved', 'bonus.rejected', 'webhook.dead_lettered'])
      expect(text).toContain(action);
    await screenshot(page, 'admin-viewer-audit-log');
    await clickAndWait(page, page.locator(`tr.dead a[href$="/webhook-events/${d.deadEventId}"]`));
    expect(await page.locator('.badge').first().textContent()).toBe('delivered');
    expect(await page.locator('form[action$="/replay"]').count()).toBe(0);
    expect(await usableActions()).toBe(0);
    await screenshot(page, 'admin-viewer-event');

    // Posts with the viewer's own, valid CSRF token: 403 everywhere, nothing changes.
    await d.expectEveryActionRefused(page, await csrfOf(page));
  });

  it("another organisation's owner gets nothing; the platform admin opens any organisation", async () => {
    const page = await d.newPage();
    await signIn(page, d.base, d.otherOwnerToken);
    expect(new URL(page.url()).pathname).toBe(`/org/${d.other.slug}/bonuses`);
    const otherCsrf = await csrfOf(page);
    for (const path of [
      'integration',
      'bonuses',
      'audit-log',
      `webhook-events/${d.deadEventId}`,
      'bonuses?status=pending',
    ]) {
      const res = await page.goto(d.url(d.orgPath(path)));
      expect(res?.status()).toBe(403);
      const html = await page.content();
      expect(html).toContain('Your token may not act on this organisation.');
      for (const secret of [...d.bonusIds, d.org.orgId, d.receiver.url, d.deadEventId!])
        expect(html).not.toContain(secret);
    }
    await screenshot(page, 'admin-other-org-forbidden');
    await d.expectEveryActionRefused(page, otherCsrf);

    // The platform admin token opens any organisation through the slug form.
    const admin = await d.newPage();
    await signIn(admin, d.base, d.t.adminToken);
    expect(new URL(admin.url()).pathname).toBe('/org');
    await screenshot(admin, 'admin-platform-home');
    await admin.locator('input[name="slug"]').fill(d.org.slug);
    await clickAndWait(admin, admin.locator('[data-action="submit"]'));
    expect(new URL(admin.url()).pathname).toBe(d.orgPath('integration'));
    expect(await admin.locator('nav').textContent()).toContain('platform admin');
    expect(await admin.locator('textarea[name="allowed_origins"]').inputValue()).toContain(
      `https://shop.${d.org.slug}.example:8443`,
    );
    expect(await admin.locator('[data-action="save-settings"]').count()).toBe(1);
    await admin.goto(d.url(`/org?slug=${d.other.slug}`));
    expect(new URL(admin.url()).pathname).toBe(`/org/${d.other.slug}/integration`);
    expect(await admin.locator('textarea[name="allowed_origins"]').inputValue()).toBe(
      `https://${d.other.slug}.example`,
    );
    const missing = await admin.goto(d.url('/org/no-such-org-here/integration'));
    expect(missing?.status()).toBe(404);
  });

  it('refuses posts without the session CSRF token; sign-out ends the session on the server', async () => {
    const page = await d.newPage();
    // A token that is not one gets the form back with an error and no session.
    await signIn(page, d.base, `stf_${'x'.repeat(43)}`);
    expect(new URL(page.url()).pathname).toBe('/org/sign-in');
    expect(await page.locator('p.error').textContent()).toBe('That token is not valid.');
    expect((await page.context().cookies()).map((c) => c.name)).not.toContain('svc_admin');
    await signIn(page, d.base, d.ownerToken);
    const csrf = await csrfOf(page);
    const [, target] = (await d.bonusRows(d.org.orgId))
      .filter((b) => b.status === 'pending')
      .map((b) => b.id);
    const approve = d.url(d.orgPath(`bonuses/${target}/approve`));
    const second = await d.newPage();
    await signIn(second, d.base, d.ownerToken);
    const otherSessionCsrf = await csrfOf(second);
    expect(otherSessionCsrf).not.toBe(csrf);
    for (const fields of [
      [],
      [['_csrf', '']],
      [['_csrf', 'x'.repeat(csrf.length)]],
      [['_csrf', otherSessionCsrf]],
    ] as [string, string][][]) {
      const res = await postForm(page.context(), approve, fields);
      expect(res.status()).toBe(403);
    }
    const sentinel = await postForm(page.context(), d.url(d.orgPath('integration/keys')), [
      ['name', 'no-csrf'],
    ]);
    expect(sentinel.status()).toBe(403);
    expect(await d.statusOf(target)).toBe('pending');
    const [{ n }] = await d.t.db.query(
      `SELECT count(*)::int AS n FROM tenant_keys WHERE tenant_id = $1 AND name = 'no-csrf'`,
      [d.org.orgId],
    );
    expect(n).toBe(0);

    // Sign-out: a POST from the page; the server forgets the session.
    const [cookie] = (await page.context().cookies()).filter((c) => c.name === 'svc_admin');
    expect(cookie).toBeDefined();
    const sessionRow = () =>
      d.t.db.query(`SELECT 1 FROM admin_sessions WHERE token_hash = $1`, [
        createHash('sha256').update(cookie.value).digest('hex'),
      ]);
    expect(await sessionRow()).toHaveLength(1);
    expect(await page.locator('nav form[action="/org/sign-out"]').getAttribute('method')).toBe(
      'post',
    );
    await clickAndWait(page, page.locator('nav form[action="/org/sign-out"] button'));
    expect(new URL(page.url()).pathname).toBe('/org/sign-in');
    expect(await sessionRow()).toHaveLength(0);

    // The old cookie, replayed from elsewhere, no longer opens anything.
    const replay = await d.newPage();
    await replay.context().addCookies([cookie]);
    await replay.goto(d.url(d.orgPath('bonuses')));
    expect(new URL(replay.url()).pathname).toBe('/org/sign-in');
    const stale = await postForm(replay.context(), approve, [['_csrf', csrf]]);
    expect(stale.status()).toBe(303);
    expect(stale.headers().location).toBe('/org/sign-in');
    expect(await d.statusOf(target)).toBe('pending');
    // The other session is untouched.
    await second.goto(d.url(d.orgPath('bonuses')));
    expect(new URL(second.url()).pathname).toBe(d.orgPath('bonuses'));
  });

  it('reads every page and approves a bonus with JavaScript disabled', async () => {
    const noJs = await d.newPage({ javaScriptEnabled: false });
    await signIn(noJs, d.base, d.ownerToken);
    expect(new URL(noJs.url()).pathname).toBe(d.orgPath('bonuses'));
    const [target] = (await d.bonusRows(d.org.orgId))
      .filter((b) => b.status === 'pending')
      .map((b) => b.id);
    expect((await d.queueOnPage(noJs)).map((r) => r.id)).toContain(target);
    await clickAndWait(
      noJs,
      noJs.locator(`form[data-form="bonuses"] button[formaction$="/bonuses/${target}/approve"]`),
    );
    expect(await noJs.locator('p.notice').textContent()).toBe(`Bonus ${target} approved.`);
    expect(await d.statusOf(target)).toBe('approved');
    await clickAndWait(noJs, noJs.locator('nav a', { hasText: 'Integration' }));
    expect(await noJs.locator('textarea[name="allowed_origins"]').inputValue()).toContain(
      `https://shop.${d.org.slug}.example:8443`,
    );
    expect(await noJs.locator('input[name="url"]').inputValue()).toBe(d.receiver.url);
    // A key created without JavaScript is still shown once (no copy button without a script).
    const keyForm = noJs.locator('form[data-form="create-key"]');
    await keyForm.locator('input[name="name"]').fill('nojs-key');
    await clickAndWait(noJs, keyForm.locator('[data-action="create-key"]'));
    expect(await noJs.locator('#new-key').textContent()).toMatch(/^tk_[A-Za-z0-9_-]{32,}$/);
    expect(await noJs.locator('button[data-copy="new-key"]').isVisible()).toBe(false);
    await screenshot(noJs, 'admin-nojs-integration-key-created');
    await clickAndWait(noJs, noJs.locator('nav a', { hasText: 'Audit log' }));
    expect(await noJs.locator('tr', { hasText: `bonus ${target}` }).count()).toBe(1);
    await screenshot(noJs, 'admin-nojs-audit-log');
  });

  it('every page fits a phone-width screen (375 px) without sideways scrolling of the page', async () => {
    const phone = await d.newPage({ viewport: { width: 375, height: 812 } });
    const overflowing: string[] = [];
    const check = async (name: string) => {
      const { scrollWidth, innerWidth } = await pageWidths(phone);
      expect(innerWidth).toBe(375);
      if (scrollWidth > innerWidth + 1) overflowing.push(`${name}: ${scrollWidth}px`);
      await screenshot(phone, `admin-phone-${name}`);
    };
    await phone.goto(d.url('/org/sign-in'));
    await check('sign-in');
    await signIn(phone, d.base, d.ownerToken);
    for (const [name, path] of [
      ['integration', d.orgPath('integration')],
      ['bonuses', d.orgPath('bonuses')],
      ['audit-log', d.orgPath('audit-log')],
      ['event', d.orgPath(`webhook-events/${d.deadEventId}`)],
      ['forbidden', `/org/${d.other.slug}/bonuses`],
    ]) {
      await phone.goto(d.url(path));
      expect(new URL(phone.url()).pathname).toBe(path);
      await check(name);
    }
    // A page after an action, with its notice, as a manager on the move would see it.
    await phone.goto(d.url(d.orgPath('bonuses')));
    const [target] = (await d.bonusRows(d.org.orgId))
      .filter((b) => b.status === 'pending')
      .map((b) => b.id);
    await clickAndWait(phone, phone.locator(`button[formaction$="/bonuses/${target}/approve"]`));
    expect(await phone.locator('p.notice').textContent()).toBe(`Bonus ${target} approved.`);
    await check('bonuses-approved');
    expect(overflowing).toEqual([]);
  });

  it('pressing Enter in a rejection reason never approves another bonus', async () => {
    const page = await d.newPage();
    await signIn(page, d.base, d.ownerToken);
    const pending = (await d.bonusRows(d.org.orgId))
      .filter((b) => b.status === 'pending')
      .map((b) => b.id);
    expect(pending.length).toBeGreaterThanOrEqual(2);
    const queue = page.locator('form[data-form="bonuses"]');
    const rowsShown = await d.queueOnPage(page);
    // The bonus in the last pending row: the form's first button belongs to another row.
    const target = rowsShown.filter((r) => r.status === 'pending').at(-1)!.id;
    const before = await d.bonusRows(d.org.orgId);

    await queue.locator(`input[name="reason_${target}"]`).fill('Customer returned the goods');
    await pressAndWait(page, queue.locator(`input[name="reason_${target}"]`), 'Enter');
    await screenshot(page, 'admin-owner-bonuses-enter-in-reason');
    const after = new Map((await d.bonusRows(d.org.orgId)).map((b) => [b.id, b.status]));
    const changed = before.filter((b) => after.get(b.id) !== b.status).map((b) => b.id);
    // Either nothing happened or exactly this bonus was rejected; never an approval elsewhere.
    expect(changed.filter((id) => id !== target)).toEqual([]);
    expect(after.get(target)).not.toBe('approved');
  });
});
