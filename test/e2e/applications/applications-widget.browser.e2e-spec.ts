/**
 * The application widget (docs/partners.md, "Applications"; `data-service-widget="application"`)
 * on a tenant's own site in Chromium: it renders the group's own questions from the Embed API,
 * refuses a missing answer with the field marked, and posts an application (with the page's
 * `?ref=`) that mails its confirmation link; a closed group says so. axe finds no violation.
 */
import { signRef } from '../../../src/members/signed-ref';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { adminApi } from '../../utils/api-client';
import { violations } from '../../utils/axe';
import { type BrowserSuite, startBrowserSuite } from '../../utils/browser-suite';
import { startWidgetSite, type WidgetSite, widgetScreenshot } from '../../utils/widget-site';
import { box, settled, widget } from '../../utils/widgets-suite';

describe('the application widget', () => {
  let suite: BrowserSuite | undefined;
  let site: WidgetSite;
  let org: TestTenant;
  let recruiterUsr: string;
  const s = () => suite!;

  beforeAll(async () => {
    suite = await startBrowserSuite({ smtp: true, timeoutMs: 20_000 });
    site = await startWidgetSite();
    suite.onClose(() => site.close());
    const t = suite.t;
    org = await createTenant(t, { allowed_origins: [site.origin], locale: 'en-US' });
    const manager = await createStaffToken(t, org.slug, 'manager');
    const created = await adminApi(t, manager).raw('post', `/admin/v1/tenants/${org.slug}/groups`, {
      slug: 'bloggers',
      name: 'Bloggers',
      signup: {
        enabled: true,
        fields: [
          { name: 'site', label: 'Your site', type: 'url', required: true },
          {
            name: 'channel',
            label: 'Channel',
            type: 'select',
            required: false,
            options: ['Blog', 'Video'],
          },
          { name: 'about', label: 'About <b>you</b>', type: 'textarea', required: false },
        ],
      },
    });
    expect(created.status).toBe(201);
    recruiterUsr = (await upsertUser(t, org.key, { full_name: 'Rita' })).serviceUserId;
  }, 120_000);
  afterAll(() => suite?.close());

  const pageUrl = (group: string, ref?: string) => {
    const url = site.pageUrl({
      base: s().base,
      tenant: org.slug,
      widgets: ['application'],
      locale: 'en',
      attributes: { application: { 'data-group': group } },
    });
    return ref ? `${url}&ref=${encodeURIComponent(ref)}` : url;
  };

  it("renders the group's questions, marks a missing answer, and applies with the page's ref", async () => {
    const context = await s().newContext({ viewport: { width: 390, height: 900 } });
    const page = await context.newPage();
    const ref = signRef(
      { t: org.orgId, r: recruiterUsr, d: 'dl_01JD0Z6V2Y8K3M4N5P6Q7R8S9T' },
      s().t.config.refSigningSecret,
    );
    await page.goto(pageUrl('bloggers', ref));
    const root = await settled(page, 'application');
    expect(await root.locator('label').allTextContents()).toEqual([
      'Name',
      'Email',
      'Your site',
      'Channel (optional)',
      'About <b>you</b> (optional)',
    ]);
    expect(await root.locator('select option').allTextContents()).toEqual([
      'Choose…',
      'Blog',
      'Video',
    ]);
    expect(await violations(page)).toEqual([]);
    await widgetScreenshot(widget(page, 'application'), 'application');

    await root.locator('input[name=full_name]').fill('Wendy Widget');
    await root.locator('input[name=email]').fill('wendy@example.com');
    await root.locator('[data-action=submit]').click();
    const refused = await settled(page, 'application', ['error']);
    expect(await refused.locator('[aria-invalid=true]').getAttribute('name')).toBe('site');
    expect(await refused.locator('input[name=full_name]').inputValue()).toBe('Wendy Widget');

    await refused.locator('input[name=site]').fill('https://wendy.example');
    await refused.locator('select').selectOption('Video');
    await refused.locator('[data-action=submit]').click();
    const sent = await settled(page, 'application', ['sent']);
    expect(await sent.locator('[data-part=sent]').textContent()).toContain('mailed you a link');
    const mail = await s().smtp.take('wendy@example.com');
    expect(mail.text).toContain(`/p/${org.slug}/join/confirm?token=`);
    const [row] = await s().t.db.query(
      `SELECT a.answers, a.status, m.service_user_id FROM applications a
         JOIN members m ON m.tenant_id = a.tenant_id AND m.id = a.referrer_member_id
        WHERE a.tenant_id = $1`,
      [org.orgId],
    );
    expect(row).toEqual({
      answers: { site: 'https://wendy.example', channel: 'Video' },
      status: 'unconfirmed',
      service_user_id: recruiterUsr,
    });
    expect(s().cspViolations).toEqual([]);
  }, 60_000);

  it('a group that takes no applications says so', async () => {
    const context = await s().newContext();
    const page = await context.newPage();
    await page.goto(pageUrl('default'));
    const root = await settled(page, 'application', ['error']);
    expect(await root.locator('[data-part=error]').textContent()).toBe(
      'This program does not take applications here.',
    );
    expect(await box(page, 'application').locator('form').count()).toBe(0);
  }, 60_000);
});
