/**
 * The organisation admin pages (README.md) driven in a real headless Chromium, as the owner does
 * the work: the integration page (origins, keys, the webhook, its secret and a test event), a
 * dead-lettered delivery replayed from the page, and the bonus queue. The service listens on a
 * loopback port with real PostgreSQL and Redis, webhooks go to a real HTTPS receiver with a
 * self-signed certificate, and every action is a click on a plain HTML form. Screenshots go to
 * test-output/screenshots/admin-*.png (git-ignored). Setup: test/utils/admin-pages-suite.ts; what
 * others may see of this work: console-org-access.browser.e2e-spec.ts.
 */
import { createHmac } from 'node:crypto';
import { createLead, eventsOf } from '../../factories/money.factory';
import { clickAndWait, pollFor, signIn, tableRows } from '../../utils/admin-pages-browser';
import { adminPagesSuite, CONVERSIONS, WEBHOOK_EVENTS } from '../../utils/admin-pages-suite';
import { federationApi } from '../../utils/api-client';
import { screenshot } from '../../utils/browser';

describe('organisation admin pages in a real browser: the owner at work (README.md)', () => {
  const d = adminPagesSuite();

  it('an owner signs in, saves origins, creates and revokes a key, sets the webhook, rotates its secret and sends a test', async () => {
    d.receiver.script = () => ({ status: 200 });
    const page = await d.newPage();
    await signIn(page, d.base, d.ownerToken);
    expect(new URL(page.url()).pathname).toBe(d.orgPath('bonuses'));
    expect(await page.locator('header nav').textContent()).toContain(
      `owner of ${d.org.slug} · owner`,
    );

    await clickAndWait(page, page.locator('nav a', { hasText: 'Integration' }));
    expect(new URL(page.url()).pathname).toBe(d.orgPath('integration'));
    const settings = page.locator('form[data-form="settings"]');
    expect(await settings.locator('textarea[name="allowed_origins"]').inputValue()).toBe(
      `https://${d.org.slug}.example`,
    );

    // An origin with a path is refused and nothing is saved.
    await settings
      .locator('textarea[name="allowed_origins"]')
      .fill(`https://${d.org.slug}.example/path`);
    await clickAndWait(page, settings.locator('[data-action="save-settings"]'));
    expect(await page.locator('p.error').textContent()).toContain('allowed_origins');
    expect((await d.admin().getTenant(d.org.slug)).body.allowed_origins).toEqual([
      `https://${d.org.slug}.example`,
    ]);

    const origins = [`https://${d.org.slug}.example`, `https://shop.${d.org.slug}.example:8443`];
    await settings.locator('textarea[name="allowed_origins"]').fill(origins.join('\n'));
    await settings.locator('textarea[name="link_domains"]').fill(`go.${d.org.slug}.example`);
    await clickAndWait(page, settings.locator('[data-action="save-settings"]'));
    expect(await page.locator('p.notice').textContent()).toBe('Settings saved.');
    const tenant = await d.admin().getTenant(d.org.slug);
    expect(tenant.body.allowed_origins).toEqual(origins);
    expect(tenant.body.link_domains).toEqual([`go.${d.org.slug}.example`]);
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
      federationApi(d.t, tenantKey).upsertUser({ external_id: `browser-${Date.now()}` });
    expect((await federation(key)).status).toBe(200);

    await page.goto(d.url(d.orgPath('integration')));
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
    expect((await federation(d.org.key)).status).toBe(200);

    // The webhook: the first save shows the signing secret once.
    const webhook = page.locator('form[data-form="webhook"]');
    await webhook.locator('input[name="url"]').fill(d.receiver.url);
    const events: string[] = [...WEBHOOK_EVENTS];
    for (const type of events) await webhook.locator(`input[value="${type}"]`).check();
    expect(await webhook.locator('input[name="enabled"]').isChecked()).toBe(true);
    await clickAndWait(page, webhook.locator('[data-action="save-webhook"]'));
    expect(await page.locator('p.notice').textContent()).toBe('Webhook saved.');
    const firstSecret = ((await page.locator('#new-secret').textContent()) ?? '').trim();
    expect(firstSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await screenshot(page, 'admin-owner-integration-webhook-secret');
    const saved = await d.admin().getWebhook(d.org.slug);
    expect(saved.body).toMatchObject({ url: d.receiver.url, enabled: true });
    expect([...saved.body.events].sort()).toEqual([...events].sort());
    expect(JSON.stringify(saved.body)).not.toContain('whsec_');

    await page.goto(d.url(d.orgPath('integration')));
    expect(await page.content()).not.toContain(firstSecret);
    for (const type of events)
      expect(await webhook.locator(`input[value="${type}"]`).isChecked()).toBe(true);
    expect(await webhook.locator('input[value="conversion.cascaded"]').isChecked()).toBe(false);

    // Rotation shows a new secret, once; the test event is signed with it (and the old one).
    await clickAndWait(page, page.locator('form[action$="/integration/webhook/secret"] button'));
    expect(await page.locator('p.notice').textContent()).toContain('Secret rotated');
    const secret = ((await page.locator('#new-secret').textContent()) ?? '').trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secret).not.toBe(firstSecret);
    await screenshot(page, 'admin-owner-integration-secret-rotated');

    await page.goto(d.url(d.orgPath('integration')));
    expect(await page.content()).not.toContain(secret);
    const received = d.receiver.requests.length;
    await clickAndWait(page, page.locator('form[action$="/integration/webhook/test"] button'));
    expect(await page.locator('p.notice').textContent()).toMatch(
      /^Test event evt_[0-9A-Z]{26} delivered \(HTTP 200\)\.$/,
    );
    expect(d.receiver.requests.length).toBe(received + 1);
    const test = d.receiver.requests[received];
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
    d.receiver.script = () => ({ status: 500 });
    const page = await d.newPage();
    await signIn(page, d.base, d.ownerToken);
    const sentBefore = d.receiver.requests.length;
    const leadId = await createLead(d.t, d.org.key, d.chain[1].serviceUserId, {
      contact: { name: 'Dead Letter', email: 'dead@example.org' },
    });
    const [event] = (await eventsOf(d.t, d.org.orgId, 'lead.created')).filter(
      (x) => x.payload.lead_id === leadId,
    );
    d.deadEventId = event.event_id;

    // Three attempts (the first and two retries), then dead and an audit entry.
    const deadRow = page.locator('tr.dead', { hasText: d.deadEventId });
    const shown = await pollFor(async () => {
      await page.goto(d.url(d.orgPath('audit-log')));
      return (await deadRow.count()) === 1;
    });
    expect(shown).toBe(true);
    expect(d.receiver.requests.length - sentBefore).toBe(3);
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
    await page.goto(d.url(d.orgPath('integration')));
    const deadDelivery = page.locator('tr.dead', { hasText: d.deadEventId });
    expect(await deadDelivery.locator('.badge').textContent()).toBe('dead');
    expect(await deadDelivery.locator('form[action$="/replay"] button').count()).toBe(1);
    await page.goBack();

    const link = deadRow.locator(`a[href="${d.orgPath(`webhook-events/${d.deadEventId}`)}"]`);
    await clickAndWait(page, link);
    expect(new URL(page.url()).pathname).toBe(d.orgPath(`webhook-events/${d.deadEventId}`));
    expect(await page.locator('.badge').first().textContent()).toBe('dead');
    expect((await tableRows(page.locator('main'))).map((r) => [r[0], r[2]])).toEqual([
      ['1', '500'],
      ['2', '500'],
      ['3', '500'],
    ]);
    expect(await page.locator('pre').textContent()).toContain(leadId);
    await screenshot(page, 'admin-owner-event-dead');

    d.receiver.script = () => ({ status: 200 });
    await clickAndWait(page, page.locator(`form[action$="/${d.deadEventId}/replay"] button`));
    expect(await page.locator('p.notice').textContent()).toBe('Replay queued: one fresh attempt.');
    const delivered = await pollFor(async () => {
      await page.goto(d.url(d.orgPath(`webhook-events/${d.deadEventId}`)));
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
    const sent = d.receiver.requests.slice(sentBefore);
    expect(sent).toHaveLength(4);
    expect(new Set(sent.map((r) => r.headers['x-service-event-id']))).toEqual(
      new Set([d.deadEventId]),
    );
    expect(new Set(sent.map((r) => r.body.toString('hex'))).size).toBe(1);
    await screenshot(page, 'admin-owner-event-replayed');

    // The replay is audited with the owner's name.
    const [replayed] = await d.t.db.query(
      `SELECT actor_type, actor_name FROM audit_log
        WHERE tenant_id = $1 AND action = 'webhook.replayed' AND target_id = $2`,
      [d.org.orgId, d.deadEventId],
    );
    expect(replayed).toEqual({ actor_type: 'staff', actor_name: `owner of ${d.org.slug}` });
  });

  it('approves and rejects bonuses singly and in bulk; totals, filters, events and the audit log follow', async () => {
    d.receiver.script = () => ({ status: 200 });
    const page = await d.newPage();
    await signIn(page, d.base, d.ownerToken);
    expect(new URL(page.url()).pathname).toBe(d.orgPath('bonuses'));
    expect(await d.totalsOnPage(page)).toEqual({
      pending: [String(d.bonusIds.length), (await d.totalsInDb()).pending[1]],
    });
    expect((await d.queueOnPage(page)).map((r) => r.id).sort()).toEqual([...d.bonusIds].sort());
    await screenshot(page, 'admin-owner-bonuses-pending');

    const [single, rejected, bulk1, bulk2, bulk3, bulkRej1, bulkRej2] = d.bonusIds;
    const queue = page.locator('form[data-form="bonuses"]');

    await clickAndWait(page, queue.locator(`button[formaction$="/bonuses/${single}/approve"]`));
    expect(await page.locator('p.notice').textContent()).toBe(`Bonus ${single} approved.`);
    expect(await d.statusOf(single)).toBe('approved');

    // A rejection needs a reason: without one nothing changes.
    await clickAndWait(page, queue.locator(`button[formaction$="/bonuses/${rejected}/reject"]`));
    expect(await page.locator('p.error').textContent()).toBe('A rejection needs a reason.');
    expect(await d.statusOf(rejected)).toBe('pending');
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
    const rows = await d.bonusRows(d.org.orgId);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const id of approvedIds) expect(byId.get(id)).toMatchObject({ status: 'approved' });
    expect(byId.get(rejected)).toMatchObject({ status: 'rejected', reason: 'Order was cancelled' });
    for (const id of [bulkRej1, bulkRej2])
      expect(byId.get(id)).toMatchObject({ status: 'rejected', reason: 'Duplicate orders' });
    expect(rows.filter((r) => r.status === 'pending')).toHaveLength(d.bonusIds.length - 7);

    // Totals per status, as the page shows them, match the table.
    const totals = await d.totalsOnPage(page);
    expect(totals).toEqual(await d.totalsInDb());
    expect(Object.fromEntries(Object.entries(totals).map(([s, [n]]) => [s, n]))).toEqual({
      approved: '4',
      pending: String(d.bonusIds.length - 7),
      rejected: '3',
    });
    const shown = new Map((await d.queueOnPage(page)).map((r) => [r.id, r.status]));
    for (const id of approvedIds) expect(shown.get(id)).toBe('approved');
    for (const id of rejectedIds) expect(shown.get(id)).toBe('rejected');

    // Filters: by status, then by partner.
    const filters = page.locator('form.filters', { has: page.locator('select[name="status"]') });
    await filters.locator('select[name="status"]').selectOption('rejected');
    await clickAndWait(page, filters.locator('button[type="submit"]'));
    expect(new URL(page.url()).searchParams.get('status')).toBe('rejected');
    const rejectedShown = await d.queueOnPage(page);
    expect(rejectedShown.map((r) => r.id).sort()).toEqual([...rejectedIds].sort());
    expect(new Set(rejectedShown.map((r) => r.status))).toEqual(new Set(['rejected']));
    expect(await page.locator('input[name="ids"]').count()).toBe(0);
    await screenshot(page, 'admin-owner-bonuses-filter-status');

    await filters.locator('select[name="status"]').selectOption('');
    await filters.locator('input[name="user_id"]').fill(d.chain[0].serviceUserId);
    await clickAndWait(page, filters.locator('button[type="submit"]'));
    const rootShown = await d.queueOnPage(page);
    const rootIds = (
      await d.t.db.query(
        `SELECT id FROM bonuses WHERE tenant_id = $1 AND member_id = $2 ORDER BY id`,
        [d.org.orgId, d.chain[0].memberId],
      )
    ).map((r: { id: string }) => r.id);
    expect(rootIds).toHaveLength(CONVERSIONS);
    expect(rootShown.map((r) => r.id).sort()).toEqual(rootIds);
    expect(new Set(rootShown.map((r) => r.user))).toEqual(new Set([d.chain[0].serviceUserId]));
    await screenshot(page, 'admin-owner-bonuses-filter-user');

    // Each transition emitted exactly one event, of its own type.
    const approvedEvents = await eventsOf(d.t, d.org.orgId, 'bonus.approved');
    const rejectedEvents = await eventsOf(d.t, d.org.orgId, 'bonus.rejected');
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
        expect(entry[1]).toBe(`owner of ${d.org.slug} (staff)`);
        expect(entry[2]).toBe(action);
      }
    }
    await screenshot(page, 'admin-owner-audit-log-bonuses');
  });
});
