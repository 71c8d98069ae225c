/**
 * The organisation admin pages (README.md) driven in a real headless Chromium: the service
 * listens on a loopback port with real PostgreSQL and Redis, webhooks go to a real HTTPS receiver
 * with a self-signed certificate, and every action is a click on a plain HTML form. Screenshots of
 * every page (desktop and phone width) go to test-output/screenshots/admin-*.png (git-ignored).
 */
import { createHash, createHmac } from 'node:crypto';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { createLead, eventsOf, registerConversion } from '../factories/money.factory';
import { createStaffToken, createTenant, type TestTenant } from '../factories/tenants.factory';
import { createChain, type UpsertedUser } from '../factories/users.factory';
import {
  clickAndWait,
  pressAndWait,
  csrfOf,
  pageWidths,
  pollFor,
  postForm,
  signIn,
  tableRows,
} from '../utils/admin-pages-browser';
import { screenshot } from '../utils/browser';
import { type BrowserSuite, startBrowserSuite } from '../utils/browser-suite';
import type { TestApp } from '../utils/create-test-app';
import { type HttpsReceiver, startHttpsReceiver } from '../utils/https-receiver';
import { newRunId } from '../utils/test-env';

/**
 * docs/embedding.md: money as `Intl.NumberFormat(locale, {style: 'currency', …})` prints it; the tenant is
 * an English one (`en-US`), so the bonus queue, a console page, speaks English.
 */
const rub = (kopecks: number) =>
  new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: 'RUB',
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  }).format(kopecks / 100);

const CONVERSIONS = 6;

describe('organisation admin pages in a real browser (README.md)', () => {
  let suite: BrowserSuite | undefined;
  let t: TestApp | undefined;
  let receiver: HttpsReceiver | undefined;
  let base: string;
  let org: TestTenant;
  let other: TestTenant;
  let ownerToken: string;
  let viewerToken: string;
  let otherOwnerToken: string;
  let chain: UpsertedUser[];
  /** The organisation's 12 conversion bonuses, pending at the start, in creation order. */
  let bonusIds: string[];
  /** The lead.created event that goes to the dead-letter queue (test 2). */
  let deadEventId: string | undefined;

  const app = () => t!;
  const rec = () => receiver!;

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    suite = await startBrowserSuite({
      env: {
        WEBHOOK_CA_FILE: receiver.caFile,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RETRY_DELAYS_MS: '100,100',
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_SWEEP_MS: '500',
        QUEUE_PREFIX: `adminpages_${newRunId()}`,
      },
      timeoutMs: 30_000,
    });
    suite.onClose(() => receiver?.close());
    ({ t, base } = suite);
    org = await createTenant(t, { locale: 'en-US' });
    other = await createTenant(t, { locale: 'en-US' });
    ownerToken = await createStaffToken(t, org.slug, 'owner');
    viewerToken = await createStaffToken(t, org.slug, 'viewer');
    otherOwnerToken = await createStaffToken(t, other.slug, 'owner');
    // root ← referrer ← leads: each conversion pays the referrer (10 %) and the root (upline_1, 3 %).
    chain = await createChain(t, org.key, 2);
    bonusIds = [];
    for (let i = 0; i < CONVERSIONS; i++) {
      const leadId = await createLead(t, org.key, chain[1].serviceUserId);
      const conversion = await registerConversion(t, org.key, {
        lead_id: leadId,
        amount_kopecks: 10_000 * (i + 1),
        external_order_id: `order-${i}`,
      });
      bonusIds.push(...conversion.cascaded_bonuses.map((b) => b.bonus_id));
    }
    expect(bonusIds).toHaveLength(2 * CONVERSIONS);
  }, 60_000);

  afterAll(() => suite?.close());

  // ---------------------------------------------------------------------------------------------
  // Helpers

  async function newPage(options: BrowserContextOptions = {}): Promise<Page> {
    return (await suite!.newContext(options)).newPage();
  }

  const url = (path: string) => `${base}${path}`;
  const orgPath = (path: string) => `/org/${org.slug}/${path}`;

  function adminApi(path: string) {
    return app().http().get(path).set('Authorization', `Bearer ${app().adminToken}`);
  }

  async function bonusRows(
    tenantId: string,
  ): Promise<{ id: string; status: string; reason: string | null }[]> {
    return app().db.query(
      `SELECT id, status, reason FROM bonuses WHERE tenant_id = $1 ORDER BY id`,
      [tenantId],
    );
  }

  async function statusOf(bonusId: string): Promise<string> {
    const [row] = await app().db.query(
      `SELECT status FROM bonuses WHERE tenant_id = $1 AND id = $2`,
      [org.orgId, bonusId],
    );
    return row.status;
  }

  /** Waits until no delivery of the organisation is still pending (background work settled). */
  async function deliveriesSettled(tenantId: string): Promise<void> {
    const settled = await pollFor(async () => {
      const [{ n }] = await app().db.query(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE tenant_id = $1 AND status = 'pending'`,
        [tenantId],
      );
      return n === 0;
    });
    expect(settled).toBe(true);
  }

  /** Everything an action could change for a tenant. */
  async function stateOf(tenantId: string) {
    const q = (sql: string) => app().db.query(sql, [tenantId]);
    return {
      tenant: await q(
        `SELECT allowed_origins, link_domains, updated_at FROM tenants WHERE id = $1`,
      ),
      keys: await q(`SELECT id, revoked_at FROM tenant_keys WHERE tenant_id = $1 ORDER BY id`),
      webhook: await q(
        `SELECT url, events, enabled, secret_sealed, previous_secret_sealed, updated_at
           FROM webhook_endpoints WHERE tenant_id = $1`,
      ),
      bonuses: await q(`SELECT id, status, reason FROM bonuses WHERE tenant_id = $1 ORDER BY id`),
      events: await q(`SELECT count(*)::int AS n FROM events WHERE tenant_id = $1`),
      audit: await q(`SELECT count(*)::int AS n FROM audit_log WHERE tenant_id = $1`),
      deliveries: await q(
        `SELECT event_id, status, attempts FROM webhook_deliveries WHERE tenant_id = $1 ORDER BY event_id`,
      ),
      attempts: await q(`SELECT count(*)::int AS n FROM webhook_attempts WHERE tenant_id = $1`),
    };
  }

  /** Every action route of the organisation with a plausible form for it. */
  async function actionRoutes(csrf: string): Promise<[string, [string, string][]][]> {
    const [key] = await app().db.query(
      `SELECT id FROM tenant_keys WHERE tenant_id = $1 AND revoked_at IS NULL ORDER BY id LIMIT 1`,
      [org.orgId],
    );
    const [delivery] = await app().db.query(
      `SELECT event_id FROM webhook_deliveries WHERE tenant_id = $1 AND status <> 'pending'
        ORDER BY event_id LIMIT 1`,
      [org.orgId],
    );
    const pending = (await bonusRows(org.orgId))
      .filter((b) => b.status === 'pending')
      .map((b) => b.id);
    expect(key).toBeDefined();
    expect(delivery).toBeDefined();
    expect(pending.length).toBeGreaterThanOrEqual(2);
    const c: [string, string] = ['_csrf', csrf];
    return [
      [
        orgPath('integration/settings'),
        [c, ['allowed_origins', 'https://evil.example'], ['link_domains', 'evil.example']],
      ],
      [orgPath('integration/keys'), [c, ['name', 'stolen']]],
      [orgPath(`integration/keys/${key.id}/revoke`), [c]],
      [
        orgPath('integration/webhook'),
        [c, ['url', 'https://evil.example/hook'], ['events', 'lead.created'], ['enabled', 'on']],
      ],
      [orgPath('integration/webhook/secret'), [c]],
      [orgPath('integration/webhook/test'), [c]],
      [orgPath(`webhook-events/${delivery.event_id}/replay`), [c]],
      [orgPath(`bonuses/${pending[0]}/approve`), [c]],
      [orgPath(`bonuses/${pending[0]}/reject`), [c, [`reason_${pending[0]}`, 'forged']]],
      [
        orgPath('bonuses/bulk'),
        [c, ['ids', pending[0]], ['ids', pending[1]], ['action', 'approve']],
      ],
      [
        orgPath('bonuses/bulk'),
        [c, ['ids', pending[0]], ['action', 'reject'], ['bulk_reason', 'forged']],
      ],
    ];
  }

  /** POSTs every action route with the page's cookies and `csrf`: each must be 403. */
  async function expectEveryActionRefused(page: Page, csrf: string): Promise<void> {
    await deliveriesSettled(org.orgId);
    const before = await stateOf(org.orgId);
    const requestsBefore = rec().requests.length;
    const answers: string[] = [];
    for (const [path, fields] of await actionRoutes(csrf)) {
      const res = await postForm(page.context(), url(path), fields);
      answers.push(`${res.status()} ${path}`);
      expect(await res.text()).toContain('Not allowed');
    }
    expect(answers).toEqual(answers.map((a) => a.replace(/^\d+/, '403')));
    expect(await stateOf(org.orgId)).toEqual(before);
    expect(rec().requests.length).toBe(requestsBefore);
  }

  /** Text of the page's main element, whitespace collapsed. */
  const mainText = async (page: Page) =>
    ((await page.locator('main').textContent()) ?? '').replace(/[ \t\r\n]+/g, ' ');

  /** The Totals table of the bonuses page as `{status: [count, amount]}`. */
  async function totalsOnPage(page: Page): Promise<Record<string, [string, string]>> {
    const rows = await tableRows(page.locator('section', { hasText: 'Totals' }));
    return Object.fromEntries(rows.map(([status, count, amount]) => [status, [count, amount]]));
  }

  /** The same totals computed from the bonuses table. */
  async function totalsInDb(): Promise<Record<string, [string, string]>> {
    const rows: { status: string; n: number; sum: string }[] = await app().db.query(
      `SELECT status, count(*)::int AS n, sum(amount_kopecks)::text AS sum
         FROM bonuses WHERE tenant_id = $1 GROUP BY status`,
      [org.orgId],
    );
    return Object.fromEntries(rows.map((r) => [r.status, [String(r.n), rub(Number(r.sum))]]));
  }

  /** Bonus ids and statuses shown in the bonus queue. */
  async function queueOnPage(page: Page): Promise<{ id: string; user: string; status: string }[]> {
    const rows = await tableRows(page.locator('form[data-form="bonuses"]'));
    // The partner cell is their name, then their usr_ id; the bonus id is the last cell.
    return rows.map((cells) => ({
      id: cells[8],
      user: cells[1].split(' ').pop()!,
      status: cells[4],
    }));
  }

  // ---------------------------------------------------------------------------------------------

  it('an owner signs in, saves origins, creates and revokes a key, sets the webhook, rotates its secret and sends a test', async () => {
    rec().script = () => ({ status: 200 });
    const page = await newPage();
    await signIn(page, base, ownerToken);
    expect(new URL(page.url()).pathname).toBe(orgPath('bonuses'));
    expect(await page.locator('header nav').textContent()).toContain(
      `owner of ${org.slug} · owner`,
    );

    await clickAndWait(page, page.locator('nav a', { hasText: 'Integration' }));
    expect(new URL(page.url()).pathname).toBe(orgPath('integration'));
    const settings = page.locator('form[data-form="settings"]');
    expect(await settings.locator('textarea[name="allowed_origins"]').inputValue()).toBe(
      `https://${org.slug}.example`,
    );

    // An origin with a path is refused and nothing is saved.
    await settings
      .locator('textarea[name="allowed_origins"]')
      .fill(`https://${org.slug}.example/path`);
    await clickAndWait(page, settings.locator('[data-action="save-settings"]'));
    expect(await page.locator('p.error').textContent()).toContain('allowed_origins');
    expect((await adminApi(`/admin/v1/tenants/${org.slug}`)).body.allowed_origins).toEqual([
      `https://${org.slug}.example`,
    ]);

    const origins = [`https://${org.slug}.example`, `https://shop.${org.slug}.example:8443`];
    await settings.locator('textarea[name="allowed_origins"]').fill(origins.join('\n'));
    await settings.locator('textarea[name="link_domains"]').fill(`go.${org.slug}.example`);
    await clickAndWait(page, settings.locator('[data-action="save-settings"]'));
    expect(await page.locator('p.notice').textContent()).toBe('Settings saved.');
    const tenant = await adminApi(`/admin/v1/tenants/${org.slug}`);
    expect(tenant.body.allowed_origins).toEqual(origins);
    expect(tenant.body.link_domains).toEqual([`go.${org.slug}.example`]);
    expect(await settings.locator('textarea[name="allowed_origins"]').inputValue()).toBe(
      origins.join('\n'),
    );
    await screenshot(page, 'admin-owner-integration-settings-saved');

    // A new key is shown once, works at once, and stops working when revoked.
    const keyForm = page.locator('form[data-form="create-key"]');
    await keyForm.locator('input[name="name"]').fill('browser-key');
    await clickAndWait(page, keyForm.locator('[data-action="create-key"]'));
    expect(await page.locator('p.notice').textContent()).toBe('Key created.');
    const key = ((await page.locator('#new-key').textContent()) ?? '').trim();
    expect(key).toMatch(/^tk_[A-Za-z0-9_-]{32,}$/);
    // The copy button is a script's enhancement: shown when JavaScript runs.
    expect(await page.locator('button[data-copy="new-key"]').isVisible()).toBe(true);
    await screenshot(page, 'admin-owner-integration-key-created');
    const federation = (tenantKey: string) =>
      app()
        .http()
        .post('/federation/v1/users/upsert')
        .set('X-Service-Tenant-Key', tenantKey)
        .send({ external_id: `browser-${Date.now()}` });
    expect((await federation(key)).status).toBe(200);

    await page.goto(url(orgPath('integration')));
    expect(await page.content()).not.toContain(key);
    expect(await page.locator('#new-key').count()).toBe(0);
    const keyRow = page.locator('tr', { hasText: 'browser-key' });
    expect(await keyRow.textContent()).toContain(`${key.slice(0, 9)}…`);
    await clickAndWait(page, keyRow.locator('form[action$="/revoke"] button'));
    expect(await page.locator('p.notice').textContent()).toBe('Key revoked.');
    expect(await page.locator('tr', { hasText: 'browser-key' }).textContent()).toContain('revoked');
    const refused = await federation(key);
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('invalid_tenant_key');
    expect((await federation(org.key)).status).toBe(200);

    // The webhook: the first save shows the signing secret once.
    const webhook = page.locator('form[data-form="webhook"]');
    await webhook.locator('input[name="url"]').fill(rec().url);
    const events = ['lead.created', 'bonus.approved', 'bonus.rejected'];
    for (const type of events) await webhook.locator(`input[value="${type}"]`).check();
    expect(await webhook.locator('input[name="enabled"]').isChecked()).toBe(true);
    await clickAndWait(page, webhook.locator('[data-action="save-webhook"]'));
    expect(await page.locator('p.notice').textContent()).toBe('Webhook saved.');
    const firstSecret = ((await page.locator('#new-secret').textContent()) ?? '').trim();
    expect(firstSecret).toMatch(/^whsec_[A-Za-z0-9_-]{32,}$/);
    await screenshot(page, 'admin-owner-integration-webhook-secret');
    const saved = await adminApi(`/admin/v1/tenants/${org.slug}/webhook`);
    expect(saved.body).toMatchObject({ url: rec().url, enabled: true });
    expect([...saved.body.events].sort()).toEqual([...events].sort());
    expect(JSON.stringify(saved.body)).not.toContain('whsec_');

    await page.goto(url(orgPath('integration')));
    expect(await page.content()).not.toContain(firstSecret);
    for (const type of events)
      expect(await webhook.locator(`input[value="${type}"]`).isChecked()).toBe(true);
    expect(await webhook.locator('input[value="conversion.cascaded"]').isChecked()).toBe(false);

    // Rotation shows a new secret, once; the test event is signed with it (and the old one).
    await clickAndWait(page, page.locator('form[action$="/integration/webhook/secret"] button'));
    expect(await page.locator('p.notice').textContent()).toContain('Secret rotated');
    const secret = ((await page.locator('#new-secret').textContent()) ?? '').trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{32,}$/);
    expect(secret).not.toBe(firstSecret);
    await screenshot(page, 'admin-owner-integration-secret-rotated');

    await page.goto(url(orgPath('integration')));
    expect(await page.content()).not.toContain(secret);
    const received = rec().requests.length;
    await clickAndWait(page, page.locator('form[action$="/integration/webhook/test"] button'));
    expect(await page.locator('p.notice').textContent()).toMatch(
      /^Test event evt_[0-9A-Z]{26} delivered \(HTTP 200\)\.$/,
    );
    expect(rec().requests.length).toBe(received + 1);
    const test = rec().requests[received];
    expect(test.headers['x-service-event-type']).toBe('webhook.test');
    expect(test.headers['x-service-signature']).toBe(
      createHmac('sha256', secret).update(test.body).digest('hex'),
    );
    expect(test.headers['x-service-signature-previous']).toBe(
      createHmac('sha256', firstSecret).update(test.body).digest('hex'),
    );
    expect(await page.locator('p.notice').textContent()).toContain(
      String(test.headers['x-service-event-id']),
    );
    await screenshot(page, 'admin-owner-integration');
  });

  it('a dead-lettered delivery stands out in the audit log, links to its event, and is replayed from the page', async () => {
    rec().script = () => ({ status: 500 });
    const page = await newPage();
    await signIn(page, base, ownerToken);
    const sentBefore = rec().requests.length;
    const leadId = await createLead(app(), org.key, chain[1].serviceUserId, {
      contact: { name: 'Dead Letter', email: 'dead@example.org' },
    });
    const [event] = (await eventsOf(app(), org.orgId, 'lead.created')).filter(
      (x) => x.payload.lead_id === leadId,
    );
    deadEventId = event.event_id;

    // Three attempts (the first and two retries), then dead and an audit entry.
    const deadRow = page.locator('tr.dead', { hasText: deadEventId });
    const shown = await pollFor(async () => {
      await page.goto(url(orgPath('audit-log')));
      return (await deadRow.count()) === 1;
    });
    expect(shown).toBe(true);
    expect(rec().requests.length - sentBefore).toBe(3);
    expect(await deadRow.locator('strong').textContent()).toBe('webhook.dead_lettered');
    expect((await deadRow.textContent())?.replace(/[ \t\r\n]+/g, ' ')).toContain(
      'webhooks (system)',
    );
    const colours = await page.evaluate<{ dead: string | null; plain: string | null }>(`(() => {
      const cell = (tr) => (tr ? getComputedStyle(tr.querySelector('td')).backgroundColor : null);
      return {
        dead: cell(document.querySelector('tbody tr.dead')),
        plain: cell(document.querySelector('tbody tr:not(.dead)')),
      };
    })()`);
    expect(colours.plain).not.toBeNull();
    expect(colours.dead).not.toBe(colours.plain);
    await screenshot(page, 'admin-owner-audit-log-dead-letter');

    // The integration page lists it among recent deliveries, marked, with a Replay button.
    await page.goto(url(orgPath('integration')));
    const deadDelivery = page.locator('tr.dead', { hasText: deadEventId });
    expect(await deadDelivery.locator('.badge').textContent()).toBe('dead');
    expect(await deadDelivery.locator('form[action$="/replay"] button').count()).toBe(1);
    await page.goBack();

    const link = deadRow.locator(`a[href="${orgPath(`webhook-events/${deadEventId}`)}"]`);
    await clickAndWait(page, link);
    expect(new URL(page.url()).pathname).toBe(orgPath(`webhook-events/${deadEventId}`));
    expect(await page.locator('.badge').first().textContent()).toBe('dead');
    expect((await tableRows(page.locator('main'))).map((r) => [r[0], r[2]])).toEqual([
      ['1', '500'],
      ['2', '500'],
      ['3', '500'],
    ]);
    expect(await page.locator('pre').textContent()).toContain(leadId);
    await screenshot(page, 'admin-owner-event-dead');

    rec().script = () => ({ status: 200 });
    await clickAndWait(page, page.locator(`form[action$="/${deadEventId}/replay"] button`));
    expect(await page.locator('p.notice').textContent()).toBe('Replay queued: one fresh attempt.');
    const delivered = await pollFor(async () => {
      await page.goto(url(orgPath(`webhook-events/${deadEventId}`)));
      return (await page.locator('.badge').first().textContent()) === 'delivered';
    });
    expect(delivered).toBe(true);
    const attempts = await tableRows(page.locator('main'));
    expect(attempts.map((r) => [r[0], r[2]])).toEqual([
      ['1', '500'],
      ['2', '500'],
      ['3', '500'],
      ['4 (replay)', '200'],
    ]);
    const sent = rec().requests.slice(sentBefore);
    expect(sent).toHaveLength(4);
    expect(new Set(sent.map((r) => r.headers['x-service-event-id']))).toEqual(
      new Set([deadEventId]),
    );
    expect(new Set(sent.map((r) => r.body.toString('hex'))).size).toBe(1);
    await screenshot(page, 'admin-owner-event-replayed');

    // The replay is audited with the owner's name.
    const [replayed] = await app().db.query(
      `SELECT actor_type, actor_name FROM audit_log
        WHERE tenant_id = $1 AND action = 'webhook.replayed' AND target_id = $2`,
      [org.orgId, deadEventId],
    );
    expect(replayed).toEqual({ actor_type: 'staff', actor_name: `owner of ${org.slug}` });
  });

  it('approves and rejects bonuses singly and in bulk; totals, filters, events and the audit log follow', async () => {
    rec().script = () => ({ status: 200 });
    const page = await newPage();
    await signIn(page, base, ownerToken);
    expect(new URL(page.url()).pathname).toBe(orgPath('bonuses'));
    expect(await totalsOnPage(page)).toEqual({
      pending: [String(bonusIds.length), (await totalsInDb()).pending[1]],
    });
    expect((await queueOnPage(page)).map((r) => r.id).sort()).toEqual([...bonusIds].sort());
    await screenshot(page, 'admin-owner-bonuses-pending');

    const [single, rejected, bulk1, bulk2, bulk3, bulkRej1, bulkRej2] = bonusIds;
    const queue = page.locator('form[data-form="bonuses"]');

    await clickAndWait(page, queue.locator(`button[formaction$="/bonuses/${single}/approve"]`));
    expect(await page.locator('p.notice').textContent()).toBe(`Bonus ${single} approved.`);
    expect(await statusOf(single)).toBe('approved');

    // A rejection needs a reason: without one nothing changes.
    await clickAndWait(page, queue.locator(`button[formaction$="/bonuses/${rejected}/reject"]`));
    expect(await page.locator('p.error').textContent()).toBe('A rejection needs a reason.');
    expect(await statusOf(rejected)).toBe('pending');
    await queue.locator(`input[name="reason_${rejected}"]`).fill('Order was cancelled');
    await clickAndWait(page, queue.locator(`button[formaction$="/bonuses/${rejected}/reject"]`));
    expect(await page.locator('p.notice').textContent()).toBe(`Bonus ${rejected} rejected.`);

    for (const id of [bulk1, bulk2, bulk3])
      await queue.locator(`input[name="ids"][value="${id}"]`).check();
    await clickAndWait(page, queue.locator('[data-action="bulk-approve"]'));
    expect(await page.locator('p.notice').textContent()).toBe('Approved 3.');

    for (const id of [bulkRej1, bulkRej2])
      await queue.locator(`input[name="ids"][value="${id}"]`).check();
    await queue.locator('input[name="bulk_reason"]').fill('Duplicate orders');
    await clickAndWait(page, queue.locator('[data-action="bulk-reject"]'));
    expect(await page.locator('p.notice').textContent()).toBe('Rejected 2.');
    await screenshot(page, 'admin-owner-bonuses-after-actions');

    const approvedIds = [single, bulk1, bulk2, bulk3];
    const rejectedIds = [rejected, bulkRej1, bulkRej2];
    const rows = await bonusRows(org.orgId);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const id of approvedIds) expect(byId.get(id)).toMatchObject({ status: 'approved' });
    expect(byId.get(rejected)).toMatchObject({ status: 'rejected', reason: 'Order was cancelled' });
    for (const id of [bulkRej1, bulkRej2])
      expect(byId.get(id)).toMatchObject({ status: 'rejected', reason: 'Duplicate orders' });
    expect(rows.filter((r) => r.status === 'pending')).toHaveLength(bonusIds.length - 7);

    // Totals per status, as the page shows them, match the table.
    const totals = await totalsOnPage(page);
    expect(totals).toEqual(await totalsInDb());
    expect(Object.fromEntries(Object.entries(totals).map(([s, [n]]) => [s, n]))).toEqual({
      approved: '4',
      pending: String(bonusIds.length - 7),
      rejected: '3',
    });
    const shown = new Map((await queueOnPage(page)).map((r) => [r.id, r.status]));
    for (const id of approvedIds) expect(shown.get(id)).toBe('approved');
    for (const id of rejectedIds) expect(shown.get(id)).toBe('rejected');

    // Filters: by status, then by partner.
    const filters = page.locator('form.filters', { has: page.locator('select[name="status"]') });
    await filters.locator('select[name="status"]').selectOption('rejected');
    await clickAndWait(page, filters.locator('button[type="submit"]'));
    expect(new URL(page.url()).searchParams.get('status')).toBe('rejected');
    const rejectedShown = await queueOnPage(page);
    expect(rejectedShown.map((r) => r.id).sort()).toEqual([...rejectedIds].sort());
    expect(new Set(rejectedShown.map((r) => r.status))).toEqual(new Set(['rejected']));
    expect(await page.locator('input[name="ids"]').count()).toBe(0);
    await screenshot(page, 'admin-owner-bonuses-filter-status');

    await filters.locator('select[name="status"]').selectOption('');
    await filters.locator('input[name="user_id"]').fill(chain[0].serviceUserId);
    await clickAndWait(page, filters.locator('button[type="submit"]'));
    const rootShown = await queueOnPage(page);
    const rootIds = (
      await app().db.query(
        `SELECT id FROM bonuses WHERE tenant_id = $1 AND member_id = $2 ORDER BY id`,
        [org.orgId, chain[0].memberId],
      )
    ).map((r: { id: string }) => r.id);
    expect(rootIds).toHaveLength(CONVERSIONS);
    expect(rootShown.map((r) => r.id).sort()).toEqual(rootIds);
    expect(new Set(rootShown.map((r) => r.user))).toEqual(new Set([chain[0].serviceUserId]));
    await screenshot(page, 'admin-owner-bonuses-filter-user');

    // Each transition emitted exactly one event, of its own type.
    const approvedEvents = await eventsOf(app(), org.orgId, 'bonus.approved');
    const rejectedEvents = await eventsOf(app(), org.orgId, 'bonus.rejected');
    expect(approvedEvents.map((x) => x.payload.bonus_id).sort()).toEqual([...approvedIds].sort());
    expect(rejectedEvents.map((x) => x.payload.bonus_id).sort()).toEqual([...rejectedIds].sort());
    expect(
      Object.fromEntries(rejectedEvents.map((x) => [x.payload.bonus_id, x.payload.reason])),
    ).toEqual({
      [rejected]: 'Order was cancelled',
      [bulkRej1]: 'Duplicate orders',
      [bulkRej2]: 'Duplicate orders',
    });

    // The audit log names the staff member for each transition.
    await clickAndWait(page, page.locator('nav a', { hasText: 'Audit log' }));
    const auditFilter = page.locator('form.filters');
    for (const [action, ids] of [
      ['bonus.approved', approvedIds],
      ['bonus.rejected', rejectedIds],
    ] as const) {
      await auditFilter.locator('input[name="action"]').fill(action);
      await clickAndWait(page, auditFilter.locator('button[type="submit"]'));
      const entries = await tableRows(page.locator('main'));
      expect(entries.map((r) => r[3]).sort()).toEqual(ids.map((id) => `bonus ${id}`).sort());
      for (const entry of entries) {
        expect(entry[1]).toBe(`owner of ${org.slug} (staff)`);
        expect(entry[2]).toBe(action);
      }
    }
    await screenshot(page, 'admin-owner-audit-log-bonuses');
  });

  it('a viewer sees every page but can change nothing, even with forged posts', async () => {
    expect(deadEventId).toBeDefined();
    const page = await newPage();
    await signIn(page, base, viewerToken);
    expect(new URL(page.url()).pathname).toBe(orgPath('bonuses'));
    expect(await page.locator('header nav').textContent()).toContain(
      `viewer of ${org.slug} · viewer`,
    );

    /** Submit buttons of POST forms, other than signing out, that a click would fire. */
    const usableActions = () =>
      page
        .locator(
          'form[method="post"]:not([action="/org/sign-out"]) button:not([disabled]), [formaction]',
        )
        .count();

    // Bonuses: the queue and totals, without selection boxes or buttons.
    const queue = await queueOnPage(page);
    expect(queue.map((r) => r.id).sort()).toEqual([...bonusIds].sort());
    expect(Object.keys(await totalsOnPage(page)).sort()).toEqual([
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
    expect(await origins.inputValue()).toContain(`https://shop.${org.slug}.example:8443`);
    expect(await origins.isDisabled()).toBe(true);
    expect(await page.locator('input[name="url"]').inputValue()).toBe(rec().url);
    expect(await page.locator('input[name="url"]').isDisabled()).toBe(true);
    expect(await page.locator('input[name="events"]:not([disabled])').count()).toBe(0);
    // Tenant keys are the owner's, as in the Admin API: not even listed for a viewer.
    expect(await page.locator('h2', { hasText: 'Tenant keys' }).count()).toBe(0);
    expect(await page.locator('tr', { hasText: 'browser-key' }).count()).toBe(0);
    expect(await page.locator(`a[href$="/webhook-events/${deadEventId}"]`).count()).toBe(1);
    expect(await page.locator('[data-action="create-key"], [data-action^="save-"]').count()).toBe(
      0,
    );
    expect(await usableActions()).toBe(0);
    await screenshot(page, 'admin-viewer-integration');

    // Audit log and an event: readable, no Replay.
    await clickAndWait(page, page.locator('nav a', { hasText: 'Audit log' }));
    const text = await mainText(page);
    for (const action of ['bonus.approved', 'bonus.rejected', 'webhook.dead_lettered'])
      expect(text).toContain(action);
    await screenshot(page, 'admin-viewer-audit-log');
    await clickAndWait(page, page.locator(`tr.dead a[href$="/webhook-events/${deadEventId}"]`));
    expect(await page.locator('.badge').first().textContent()).toBe('delivered');
    expect(await page.locator('form[action$="/replay"]').count()).toBe(0);
    expect(await usableActions()).toBe(0);
    await screenshot(page, 'admin-viewer-event');

    // Posts with the viewer's own, valid CSRF token: 403 everywhere, nothing changes.
    await expectEveryActionRefused(page, await csrfOf(page));
  });

  it("another organisation's owner gets nothing; the platform admin opens any organisation", async () => {
    const page = await newPage();
    await signIn(page, base, otherOwnerToken);
    expect(new URL(page.url()).pathname).toBe(`/org/${other.slug}/bonuses`);
    const otherCsrf = await csrfOf(page);
    for (const path of [
      'integration',
      'bonuses',
      'audit-log',
      `webhook-events/${deadEventId}`,
      'bonuses?status=pending',
    ]) {
      const res = await page.goto(url(orgPath(path)));
      expect(res?.status()).toBe(403);
      const html = await page.content();
      expect(html).toContain('Your token may not act on this organisation.');
      for (const secret of [...bonusIds, org.orgId, rec().url, deadEventId!])
        expect(html).not.toContain(secret);
    }
    await screenshot(page, 'admin-other-org-forbidden');
    await expectEveryActionRefused(page, otherCsrf);

    // The platform admin token opens any organisation through the slug form.
    const admin = await newPage();
    await signIn(admin, base, app().adminToken);
    expect(new URL(admin.url()).pathname).toBe('/org');
    await screenshot(admin, 'admin-platform-home');
    await admin.locator('input[name="slug"]').fill(org.slug);
    await clickAndWait(admin, admin.locator('[data-action="submit"]'));
    expect(new URL(admin.url()).pathname).toBe(orgPath('integration'));
    expect(await admin.locator('nav').textContent()).toContain('platform admin');
    expect(await admin.locator('textarea[name="allowed_origins"]').inputValue()).toContain(
      `https://shop.${org.slug}.example:8443`,
    );
    expect(await admin.locator('[data-action="save-settings"]').count()).toBe(1);
    await admin.goto(url(`/org?slug=${other.slug}`));
    expect(new URL(admin.url()).pathname).toBe(`/org/${other.slug}/integration`);
    expect(await admin.locator('textarea[name="allowed_origins"]').inputValue()).toBe(
      `https://${other.slug}.example`,
    );
    const missing = await admin.goto(url('/org/no-such-org-here/integration'));
    expect(missing?.status()).toBe(404);
  });

  it('refuses posts without the session CSRF token; sign-out ends the session on the server', async () => {
    const page = await newPage();
    // A token that is not one gets the form back with an error and no session.
    await signIn(page, base, `stf_${'x'.repeat(43)}`);
    expect(new URL(page.url()).pathname).toBe('/org/sign-in');
    expect(await page.locator('p.error').textContent()).toBe('That token is not valid.');
    expect((await page.context().cookies()).map((c) => c.name)).not.toContain('svc_admin');
    await signIn(page, base, ownerToken);
    const csrf = await csrfOf(page);
    const [, target] = (await bonusRows(org.orgId))
      .filter((b) => b.status === 'pending')
      .map((b) => b.id);
    const approve = url(orgPath(`bonuses/${target}/approve`));
    const second = await newPage();
    await signIn(second, base, ownerToken);
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
    const sentinel = await postForm(page.context(), url(orgPath('integration/keys')), [
      ['name', 'no-csrf'],
    ]);
    expect(sentinel.status()).toBe(403);
    expect(await statusOf(target)).toBe('pending');
    const [{ n }] = await app().db.query(
      `SELECT count(*)::int AS n FROM tenant_keys WHERE tenant_id = $1 AND name = 'no-csrf'`,
      [org.orgId],
    );
    expect(n).toBe(0);

    // Sign-out: a POST from the page; the server forgets the session.
    const [cookie] = (await page.context().cookies()).filter((c) => c.name === 'svc_admin');
    expect(cookie).toBeDefined();
    const sessionRow = () =>
      app().db.query(`SELECT 1 FROM admin_sessions WHERE token_hash = $1`, [
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
    const replay = await newPage();
    await replay.context().addCookies([cookie]);
    await replay.goto(url(orgPath('bonuses')));
    expect(new URL(replay.url()).pathname).toBe('/org/sign-in');
    const stale = await postForm(replay.context(), approve, [['_csrf', csrf]]);
    expect(stale.status()).toBe(303);
    expect(stale.headers().location).toBe('/org/sign-in');
    expect(await statusOf(target)).toBe('pending');
    // The other session is untouched.
    await second.goto(url(orgPath('bonuses')));
    expect(new URL(second.url()).pathname).toBe(orgPath('bonuses'));
  });

  it('reads every page and approves a bonus with JavaScript disabled', async () => {
    const noJs = await newPage({ javaScriptEnabled: false });
    await signIn(noJs, base, ownerToken);
    expect(new URL(noJs.url()).pathname).toBe(orgPath('bonuses'));
    const [target] = (await bonusRows(org.orgId))
      .filter((b) => b.status === 'pending')
      .map((b) => b.id);
    expect((await queueOnPage(noJs)).map((r) => r.id)).toContain(target);
    await clickAndWait(
      noJs,
      noJs.locator(`form[data-form="bonuses"] button[formaction$="/bonuses/${target}/approve"]`),
    );
    expect(await noJs.locator('p.notice').textContent()).toBe(`Bonus ${target} approved.`);
    expect(await statusOf(target)).toBe('approved');
    await clickAndWait(noJs, noJs.locator('nav a', { hasText: 'Integration' }));
    expect(await noJs.locator('textarea[name="allowed_origins"]').inputValue()).toContain(
      `https://shop.${org.slug}.example:8443`,
    );
    expect(await noJs.locator('input[name="url"]').inputValue()).toBe(rec().url);
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
    const phone = await newPage({ viewport: { width: 375, height: 812 } });
    const overflowing: string[] = [];
    const check = async (name: string) => {
      const { scrollWidth, innerWidth } = await pageWidths(phone);
      expect(innerWidth).toBe(375);
      if (scrollWidth > innerWidth + 1) overflowing.push(`${name}: ${scrollWidth}px`);
      await screenshot(phone, `admin-phone-${name}`);
    };
    await phone.goto(url('/org/sign-in'));
    await check('sign-in');
    await signIn(phone, base, ownerToken);
    for (const [name, path] of [
      ['integration', orgPath('integration')],
      ['bonuses', orgPath('bonuses')],
      ['audit-log', orgPath('audit-log')],
      ['event', orgPath(`webhook-events/${deadEventId}`)],
      ['forbidden', `/org/${other.slug}/bonuses`],
    ]) {
      await phone.goto(url(path));
      expect(new URL(phone.url()).pathname).toBe(path);
      await check(name);
    }
    // A page after an action, with its notice, as a manager on the move would see it.
    await phone.goto(url(orgPath('bonuses')));
    const [target] = (await bonusRows(org.orgId))
      .filter((b) => b.status === 'pending')
      .map((b) => b.id);
    await clickAndWait(phone, phone.locator(`button[formaction$="/bonuses/${target}/approve"]`));
    expect(await phone.locator('p.notice').textContent()).toBe(`Bonus ${target} approved.`);
    await check('bonuses-approved');
    expect(overflowing).toEqual([]);
  });

  it('pressing Enter in a rejection reason never approves another bonus', async () => {
    const page = await newPage();
    await signIn(page, base, ownerToken);
    const pending = (await bonusRows(org.orgId))
      .filter((b) => b.status === 'pending')
      .map((b) => b.id);
    expect(pending.length).toBeGreaterThanOrEqual(2);
    const queue = page.locator('form[data-form="bonuses"]');
    const rowsShown = await queueOnPage(page);
    // The bonus in the last pending row: the form's first button belongs to another row.
    const target = rowsShown.filter((r) => r.status === 'pending').at(-1)!.id;
    const before = await bonusRows(org.orgId);

    await queue.locator(`input[name="reason_${target}"]`).fill('Customer returned the goods');
    await pressAndWait(page, queue.locator(`input[name="reason_${target}"]`), 'Enter');
    await screenshot(page, 'admin-owner-bonuses-enter-in-reason');
    const after = new Map((await bonusRows(org.orgId)).map((b) => [b.id, b.status]));
    const changed = before.filter((b) => after.get(b.id) !== b.status).map((b) => b.id);
    // Either nothing happened or exactly this bonus was rejected; never an approval elsewhere.
    expect(changed.filter((id) => id !== target)).toEqual([]);
    expect(after.get(target)).not.toBe('approved');
  });
});
