/**
 * The organisation admin pages' browser specs' shared setup (test/e2e/console/console-org-*.browser;
 * README.md, docs/console.md): the service on a loopback port with a real HTTPS webhook receiver,
 * two English organisations with owner, viewer and other-owner staff tokens, a chain root ←
 * referrer and 6 conversions (12 pending bonuses), and the page and database reads the specs make.
 * `ownerWork: true` also does, through the Admin API with the owner's token, what the owner spec
 * does through the pages (origins, a revoked key, the webhook, a dead-lettered then replayed
 * delivery, 4 bonuses approved and 3 rejected), for the specs that check what others may see of it.
 * The fields are set by the hooks: read them inside a test.
 */
import type { BrowserContextOptions, Page } from 'playwright-core';
import { createLead, eventsOf, registerConversion } from '../factories/money.factory';
import { createStaffToken, createTenant, type TestTenant } from '../factories/tenants.factory';
import { createChain, type UpsertedMember } from '../factories/users.factory';
import { pollFor, postForm, tableRows } from './admin-pages-browser';
import { adminApi } from './api-client';
import { type BrowserSuite, startBrowserSuite } from './browser-suite';
import type { TestApp } from './create-test-app';
import { type HttpsReceiver, startHttpsReceiver } from './https-receiver';
import { newRunId } from './test-env';

/**
 * docs/embedding.md: money as `Intl.NumberFormat(locale, {style: 'currency', …})` prints it; the tenant is
 * an English one (`en-US`), so the bonus queue, a console page, speaks English.
 */
export const rub = (kopecks: number) =>
  new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: 'RUB',
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  }).format(kopecks / 100);

export const CONVERSIONS = 6;

/** The event types the owner subscribes the webhook to. */
export const WEBHOOK_EVENTS = ['lead.created', 'bonus.approved', 'bonus.rejected'] as const;

/** Everything an admin action could change for a tenant (the pages' "refused, nothing changed" checks). */
export async function tenantState(db: TestApp['db'], tenantId: string) {
  const q = (sql: string) => db.query(sql, [tenantId]);
  return {
    tenant: await q(`SELECT allowed_origins, link_domains, updated_at FROM tenants WHERE id = $1`),
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

export function adminPagesSuite(options: { ownerWork?: boolean } = {}) {
  const s = {} as {
    suite: BrowserSuite;
    t: TestApp;
    receiver: HttpsReceiver;
    base: string;
    org: TestTenant;
    other: TestTenant;
    ownerToken: string;
    viewerToken: string;
    otherOwnerToken: string;
    chain: UpsertedMember[];
    /** The organisation's 12 conversion bonuses, pending at the start, in creation order. */
    bonusIds: string[];
    /** The lead.created event whose delivery went to the dead-letter queue. */
    deadEventId: string | undefined;
  };

  async function newPage(contextOptions: BrowserContextOptions = {}): Promise<Page> {
    return (await s.suite.newContext(contextOptions)).newPage();
  }

  const url = (path: string) => `${s.base}${path}`;
  const orgPath = (path: string) => `/org/${s.org.slug}/${path}`;

  /** The Admin API as the platform admin. */
  const admin = () => adminApi(s.t, s.t.adminToken);

  async function bonusRows(
    tenantId: string,
  ): Promise<{ id: string; status: string; reason: string | null }[]> {
    return s.t.db.query(`SELECT id, status, reason FROM bonuses WHERE tenant_id = $1 ORDER BY id`, [
      tenantId,
    ]);
  }

  /** Ids of the organisation's pending bonuses, in id order. */
  const pendingIds = async () =>
    (await bonusRows(s.org.orgId)).filter((b) => b.status === 'pending').map((b) => b.id);

  async function statusOf(bonusId: string): Promise<string> {
    const [row] = await s.t.db.query(
      `SELECT status FROM bonuses WHERE tenant_id = $1 AND id = $2`,
      [s.org.orgId, bonusId],
    );
    return row.status;
  }

  /** Waits until no delivery of the organisation is still pending (background work settled). */
  async function deliveriesSettled(tenantId: string): Promise<void> {
    const settled = await pollFor(async () => {
      const [{ n }] = await s.t.db.query(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE tenant_id = $1 AND status = 'pending'`,
        [tenantId],
      );
      return n === 0;
    });
    expect(settled).toBe(true);
  }

  const stateOf = (tenantId: string) => tenantState(s.t.db, tenantId);

  /** Every action route of the organisation with a plausible form for it. */
  async function actionRoutes(csrf: string): Promise<[string, [string, string][]][]> {
    const [key] = await s.t.db.query(
      `SELECT id FROM tenant_keys WHERE tenant_id = $1 AND revoked_at IS NULL ORDER BY id LIMIT 1`,
      [s.org.orgId],
    );
    const [delivery] = await s.t.db.query(
      `SELECT event_id FROM webhook_deliveries WHERE tenant_id = $1 AND status <> 'pending'
        ORDER BY event_id LIMIT 1`,
      [s.org.orgId],
    );
    const pending = await pendingIds();
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
    await deliveriesSettled(s.org.orgId);
    const before = await stateOf(s.org.orgId);
    const requestsBefore = s.receiver.requests.length;
    const answers: string[] = [];
    for (const [path, fields] of await actionRoutes(csrf)) {
      const res = await postForm(page.context(), url(path), fields);
      answers.push(`${res.status()} ${path}`);
      expect(await res.text()).toContain('Not allowed');
    }
    expect(answers).toEqual(answers.map((a) => a.replace(/^\d+/, '403')));
    expect(await stateOf(s.org.orgId)).toEqual(before);
    expect(s.receiver.requests.length).toBe(requestsBefore);
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
    const rows: { status: string; n: number; sum: string }[] = await s.t.db.query(
      `SELECT status, count(*)::int AS n, sum(amount_kopecks)::text AS sum
         FROM bonuses WHERE tenant_id = $1 GROUP BY status`,
      [s.org.orgId],
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

  /** The delivery status of the organisation's event `eventId`, once it is `status`. */
  async function deliveryReaches(eventId: string, status: string): Promise<void> {
    const reached = await pollFor(async () => {
      const [row] = await s.t.db.query(
        `SELECT status FROM webhook_deliveries WHERE tenant_id = $1 AND event_id = $2`,
        [s.org.orgId, eventId],
      );
      return row?.status === status;
    });
    expect(reached).toBe(true);
  }

  /** The owner spec's work, done through the Admin API as the owner (see the file's comment). */
  async function doOwnerWork(): Promise<void> {
    const owner = adminApi(s.t, s.ownerToken);
    const slug = s.org.slug;
    const saved = await owner.updateTenant(slug, {
      allowed_origins: [`https://${slug}.example`, `https://shop.${slug}.example:8443`],
      link_domains: [`go.${slug}.example`],
    });
    expect(saved.status).toBe(200);
    const key = await owner.createTenantKey(slug, { name: 'browser-key' });
    expect(key.status).toBe(201);
    expect((await owner.revokeTenantKey(slug, key.body.key_id)).status).toBe(204);
    const webhook = await owner.putWebhook(slug, {
      url: s.receiver.url,
      events: [...WEBHOOK_EVENTS],
      enabled: true,
    });
    expect(webhook.status).toBe(200);

    // A lead.created delivery: dead after its three attempts, then replayed and delivered.
    s.receiver.script = () => ({ status: 500 });
    const leadId = await createLead(s.t, s.org.key, s.chain[1].serviceUserId, {
      contact: { name: 'Dead Letter', email: 'dead@example.org' },
    });
    const [event] = (await eventsOf(s.t, s.org.orgId, 'lead.created')).filter(
      (x) => x.payload.lead_id === leadId,
    );
    s.deadEventId = event.event_id;
    await deliveryReaches(event.event_id, 'dead');
    s.receiver.script = () => ({ status: 200 });
    expect((await owner.replayWebhookEvent(slug, event.event_id)).status).toBe(202);
    await deliveryReaches(event.event_id, 'delivered');

    // Four approved and three rejected, as the owner spec leaves them.
    const [single, rejected, bulk1, bulk2, bulk3, bulkRej1, bulkRej2] = s.bonusIds;
    for (const id of [single, bulk1, bulk2, bulk3])
      expect((await owner.approveBonus(slug, id)).status).toBe(200);
    for (const [id, reason] of [
      [rejected, 'Order was cancelled'],
      [bulkRej1, 'Duplicate orders'],
      [bulkRej2, 'Duplicate orders'],
    ])
      expect((await owner.rejectBonus(slug, id, { reason })).status).toBe(200);
    await deliveriesSettled(s.org.orgId);
  }

  beforeAll(async () => {
    s.receiver = await startHttpsReceiver();
    s.suite = await startBrowserSuite({
      env: {
        WEBHOOK_CA_FILE: s.receiver.caFile,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RETRY_DELAYS_MS: '100,100',
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_SWEEP_MS: '500',
        QUEUE_PREFIX: `adminpages_${newRunId()}`,
      },
      timeoutMs: 30_000,
    });
    s.suite.onClose(() => s.receiver.close());
    ({ t: s.t, base: s.base } = s.suite);
    s.org = await createTenant(s.t, { locale: 'en-US' });
    s.other = await createTenant(s.t, { locale: 'en-US' });
    s.ownerToken = await createStaffToken(s.t, s.org.slug, 'owner');
    s.viewerToken = await createStaffToken(s.t, s.org.slug, 'viewer');
    s.otherOwnerToken = await createStaffToken(s.t, s.other.slug, 'owner');
    // root ← referrer ← leads: each conversion pays the referrer (10 %) and the root (upline_1, 3 %).
    s.chain = await createChain(s.t, s.org.key, 2);
    s.bonusIds = [];
    for (let i = 0; i < CONVERSIONS; i++) {
      const leadId = await createLead(s.t, s.org.key, s.chain[1].serviceUserId);
      const conversion = await registerConversion(s.t, s.org.key, {
        lead_id: leadId,
        amount_kopecks: 10_000 * (i + 1),
        external_order_id: `order-${i}`,
      });
      s.bonusIds.push(...conversion.cascaded_bonuses.map((b) => b.bonus_id));
    }
    expect(s.bonusIds).toHaveLength(2 * CONVERSIONS);
    if (options.ownerWork) await doOwnerWork();
  }, 60_000);

  afterAll(async () => {
    // The receiver closes with the suite; when the suite never started, close it here.
    if (s.suite) await s.suite.close();
    else await s.receiver?.close();
  });

  return Object.assign(s, {
    newPage,
    url,
    orgPath,
    admin,
    bonusRows,
    pendingIds,
    statusOf,
    deliveriesSettled,
    stateOf,
    expectEveryActionRefused,
    mainText,
    totalsOnPage,
    totalsInDb,
    queueOnPage,
  });
}
