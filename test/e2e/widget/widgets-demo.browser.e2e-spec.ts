/**
 * The embeddable widgets of README.md and the demo page, driven in a real headless Chromium: the
 * script itself (size budget, caching, the versioned URL), the demo page with every widget showing
 * the demo tenant's real data, paging and filters, the lead form, and the demo seeding. The service
 * listens on a loopback port with real PostgreSQL and Redis, the demo tenant is seeded through the
 * services. Every widget is photographed into test-output/screenshots/. Setup:
 * test/utils/widgets-suite.ts; on tenants' own sites: widgets-sites.browser.e2e-spec.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { DemoSeeder } from '../../../src/demo/demo-seeder.service';
import { widgetScreenshot } from '../../utils/widget-site';
import {
  attrs,
  box,
  type Json,
  settled,
  texts,
  until,
  widget,
  widgetsSuite,
} from '../../utils/widgets-suite';

const GZIP_BUDGET = 30 * 1024;
const ALL_WIDGETS = [
  'cabinet',
  'bonuses',
  'leads',
  'referral-tree',
  'partners',
  'referral-link',
  'lead-form',
];

describe('embeddable widgets in a real browser: the script and the demo page (README.md)', () => {
  const d = widgetsSuite();

  it('serves widget.js under its size budget, with cache headers and an immutable versioned URL', async () => {
    const latest = await d.t
      .http()
      .get('/embed/v1/widget.js')
      .set('Accept-Encoding', 'identity')
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(latest.status).toBe(200);
    expect(latest.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(latest.headers['cache-control']).toBe('public, max-age=300');
    expect(latest.headers['access-control-allow-origin']).toBe('*');
    expect(latest.headers['cross-origin-resource-policy']).toBe('cross-origin');
    const source = latest.body as Buffer;
    const gzipped = gzipSync(source).length;
    process.stdout.write(`widget.js: ${source.length} bytes, ${gzipped} bytes gzipped\n`);
    expect(gzipped).toBeLessThan(GZIP_BUDGET);

    // Browsers get it gzipped; the bytes are the same.
    const compressed = await d.t
      .http()
      .get('/embed/v1/widget.js')
      .set('Accept-Encoding', 'gzip, deflate, br')
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(compressed.headers['content-encoding']).toBe('gzip');
    expect(compressed.headers['vary']).toMatch(/Accept-Encoding/i);

    const manifest = await d.t.http().get('/embed/v1/widget.json');
    expect(manifest.status).toBe(200);
    expect(manifest.body).toEqual({
      version: expect.stringMatching(/^[0-9a-f]{16}$/),
      url: `${d.base}/embed/v1/widget.js`,
      versioned_url: `${d.base}/embed/v1/widget.${manifest.body.version}.js`,
      integrity: `sha384-${createHash('sha384').update(source).digest('base64')}`,
      bytes: source.length,
      gzip_bytes: expect.any(Number),
    });
    expect(manifest.body.gzip_bytes).toBeLessThan(GZIP_BUDGET);

    const versionedPath = new URL(manifest.body.versioned_url).pathname;
    const pinned = await d.t.http().get(versionedPath).set('Accept-Encoding', 'identity');
    expect(pinned.status).toBe(200);
    expect(pinned.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(pinned.text)).toEqual(source);
    expect(gunzipSync(gzipSync(source))).toEqual(source);

    // Revalidation is a 304; another build's URL does not exist.
    const etag = String(pinned.headers['etag']);
    const again = await d.t
      .http()
      .get(versionedPath)
      .set('Accept-Encoding', 'identity')
      .set('If-None-Match', etag);
    expect(again.status).toBe(304);
    const stale = await d.t.http().get('/embed/v1/widget.0123456789abcdef.js');
    expect(stale.status).toBe(404);
    expect(stale.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('the demo page embeds every widget, each showing the demo tenant’s real data', async () => {
    const [cabinet, bonuses, leads, tree, partners] = await Promise.all([
      d.embed('cabinet'),
      d.embed('bonuses', { page: 1, page_size: 10 }),
      d.embed('leads', { page: 1, page_size: 10 }),
      d.embed('referral-tree', { max_depth: 3 }),
      d.embed('partners', { page: 1, page_size: 10 }),
    ]);
    // A realistic network: dozens of members, leads and bonuses in every state.
    expect(tree.total_downline).toBeGreaterThanOrEqual(20);
    expect(tree.hit_depth_cap).toBe(true);
    expect(leads.pagination.total).toBeGreaterThan(20);
    expect(bonuses.pagination.total).toBeGreaterThan(20);
    for (const status of ['new', 'processed', 'converted', 'rejected']) {
      expect((await d.embed('leads', { status })).pagination.total).toBeGreaterThan(0);
    }
    const bonusStates = await d.t.db.query<{ status: string }[]>(
      'SELECT DISTINCT status FROM bonuses WHERE tenant_id = $1',
      [d.demo.tenantId],
    );
    expect(bonusStates.map((r) => r.status).sort()).toEqual([
      'approved',
      'pending',
      'rejected',
      'reversed',
    ]);
    expect(partners.partners.some((p: Json) => !p.is_active)).toBe(true);
    expect(cabinet.kpi.clicks_count).toBeGreaterThan(0);

    const context = await d.newContext();
    const page = await d.openDemo(context);
    const headers = (await page.goto(`${d.base}/demo`))!.headers();
    expect(headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect(headers['cross-origin-opener-policy']).toBeUndefined();
    expect(await page.locator('[data-service-widget]').count()).toBe(ALL_WIDGETS.length);
    for (const name of ALL_WIDGETS) {
      const host = widget(page, name);
      expect(await host.evaluate((el) => el.shadowRoot?.mode)).toBe('open');
    }

    // Cabinet: KPIs and balance, the 5 newest leads, the 10 newest transactions.
    const cab = await settled(page, 'cabinet');
    expect(await cab.locator('[data-field=display-name]').textContent()).toBe(
      cabinet.user.display_name,
    );
    expect(await cab.locator('[data-kpi=leads] b').textContent()).toBe(
      String(cabinet.kpi.leads_count),
    );
    expect(await cab.locator('[data-kpi=clicks] b').textContent()).toBe(
      String(cabinet.kpi.clicks_count),
    );
    for (const metric of ['available', 'in_payout', 'paid', 'pending'])
      expect(await cab.locator(`[data-metric=${metric}]`).textContent()).toBe(
        cabinet.balance[`${metric}_formatted`],
      );
    expect(cabinet.balance.pending_formatted).toBe(cabinet.kpi.pending_formatted);
    expect(await texts(cab.locator('[data-list=leads] [data-field=name]'))).toEqual(
      cabinet.recent_leads.map((l: Json) => l.contact_name),
    );
    expect(await attrs(cab.locator('[data-list=transactions] li'), 'data-bonus-id')).toEqual(
      cabinet.transactions.map((b: Json) => b.bonus_id),
    );
    expect(await texts(cab.locator('[data-list=transactions] .amt'))).toEqual(
      cabinet.transactions.map((b: Json) => b.amount_formatted),
    );
    await widgetScreenshot(widget(page, 'cabinet'), 'cabinet');

    // Bonuses: the balance and the first page of transactions.
    const bon = await settled(page, 'bonuses');
    for (const metric of ['available', 'in_payout', 'paid', 'pending'])
      expect(await bon.locator(`[data-list=balance] [data-metric=${metric}]`).textContent()).toBe(
        bonuses.balance[`${metric}_formatted`],
      );
    expect(await attrs(bon.locator('[data-list=transactions] li'), 'data-bonus-id')).toEqual(
      bonuses.transactions.map((b: Json) => b.bonus_id),
    );
    expect(await bon.locator('[data-part=page]').textContent()).toBe(
      `Страница 1 из ${bonuses.pagination.total_pages}`,
    );
    await widgetScreenshot(widget(page, 'bonuses'), 'bonuses');

    // Leads: the first page with its statuses in Russian.
    const led = await settled(page, 'leads');
    expect(await texts(led.locator('[data-list=leads] [data-field=name]'))).toEqual(
      leads.leads.map((l: Json) => l.contact_name),
    );
    expect(await texts(led.locator('[data-list=leads] .chip'))).toEqual(
      leads.leads.map((l: Json) => l.status_human),
    );
    expect(await led.locator('select[name=status]').inputValue()).toBe('all');
    await widgetScreenshot(widget(page, 'leads'), 'leads');

    // Referral tree: the root and its first line; the depth cap is stated.
    const tr = await settled(page, 'referral-tree');
    expect(await tr.locator('li[data-depth="0"] > .node [data-field=name]').textContent()).toBe(
      tree.root.display_name,
    );
    expect(await attrs(tr.locator('li[data-depth="1"]'), 'data-user-id')).toEqual(
      tree.levels[1].map((n: Json) => n.user_id),
    );
    expect(await tr.locator('[data-part=downline]').textContent()).toContain(
      String(tree.total_downline),
    );
    expect(await tr.locator('[data-part=depth-cap]').textContent()).toContain('3');
    await widgetScreenshot(widget(page, 'referral-tree'), 'referral-tree');

    // Partners: the first line, newest first, the deactivated one marked.
    const par = await settled(page, 'partners');
    expect(await attrs(par.locator('[data-list=partners] > li'), 'data-user-id')).toEqual(
      partners.partners.map((p: Json) => p.user_id),
    );
    expect(await par.locator('[data-part=inactive]').count()).toBe(
      partners.partners.filter((p: Json) => !p.is_active).length,
    );
    await widgetScreenshot(widget(page, 'partners'), 'partners');

    // "Get my link" waits for a click; the lead form needs a ref in the page's query.
    const link = await settled(page, 'referral-link', ['idle']);
    expect(await link.locator('[data-action=get-link]').textContent()).toBe('Получить ссылку');
    const form = await settled(page, 'lead-form', ['empty']);
    expect(await form.locator('[data-part=no-ref]').isVisible()).toBe(true);
    expect(await page.locator('[data-demo=short-link]').getAttribute('href')).toBe(d.demo.shortUrl);

    // The same page in English.
    const en = await d.openDemo(context, '/demo?lang=en');
    const enCab = await settled(en, 'cabinet');
    expect(await enCab.locator('h2').textContent()).toBe('Partner cabinet');
    expect(await enCab.locator('[data-kpi=leads] span').textContent()).toBe('Leads');
    expect(d.cspViolations).toEqual([]);
    await context.close();
  }, 60_000);

  it('paging, the status filter and the tree’s levels work', async () => {
    const context = await d.newContext();
    const page = await d.openDemo(context);

    // Bonuses: next page, then back.
    const bon = await settled(page, 'bonuses');
    const [first, second] = await Promise.all([
      d.embed('bonuses', { page: 1, page_size: 10 }),
      d.embed('bonuses', { page: 2, page_size: 10 }),
    ]);
    const ids = () => attrs(bon.locator('[data-list=transactions] li'), 'data-bonus-id');
    await bon.locator('[data-action=next]').click();
    await until(
      () => bon.locator('[data-part=page]').textContent(),
      `Страница 2 из ${first.pagination.total_pages}`,
    );
    expect(await ids()).toEqual(second.transactions.map((b: Json) => b.bonus_id));
    await bon.locator('[data-action=prev]').click();
    await until(
      ids,
      first.transactions.map((b: Json) => b.bonus_id),
    );
    expect(await bon.locator('[data-action=prev]').isDisabled()).toBe(true);

    // Leads: each status filter shows exactly that status; paging within "all".
    const led = await settled(page, 'leads');
    const leadIds = () => attrs(led.locator('[data-list=leads] li'), 'data-lead-id');
    for (const status of ['converted', 'rejected', 'processed', 'new']) {
      const expected = await d.embed('leads', { status, page: 1, page_size: 10 });
      await led.locator('select[name=status]').selectOption(status);
      await until(
        leadIds,
        expected.leads.map((l: Json) => l.id),
      );
      expect(new Set(await attrs(led.locator('[data-list=leads] li'), 'data-status'))).toEqual(
        new Set([status]),
      );
      expect(await led.locator('[data-part=total]').textContent()).toBe(
        `Лиды: ${expected.pagination.total}`,
      );
      if (status === 'converted') await widgetScreenshot(widget(page, 'leads'), 'leads-converted');
    }
    await led.locator('select[name=status]').selectOption('all');
    const all2 = await d.embed('leads', { page: 2, page_size: 10 });
    await settled(page, 'leads');
    await led.locator('[data-action=next]').click();
    await until(
      leadIds,
      all2.leads.map((l: Json) => l.id),
    );

    // Tree: expand every level, then look deeper than the cap.
    const tr = await settled(page, 'referral-tree');
    const deep = await d.embed('referral-tree', { max_depth: 3 });
    expect(await tr.locator('li[data-depth="2"]').count()).toBe(0); // collapsed below level 1
    await tr.locator('[data-action=expand]').click();
    for (const depth of [1, 2, 3]) {
      expect(await tr.locator(`li[data-depth="${depth}"]`).count()).toBe(deep.levels[depth].length);
    }
    await widgetScreenshot(widget(page, 'referral-tree'), 'referral-tree-expanded');
    await tr.locator('[data-action=collapse]').click();
    const withChildren = tr.locator('li[data-depth="1"][aria-expanded=false]').first();
    await withChildren.locator('[data-action=toggle]').first().click();
    expect(
      await tr.locator('li[data-depth="1"][aria-expanded=true] li[data-depth="2"]').count(),
    ).toBeGreaterThan(0);
    const full = await d.embed('referral-tree', { max_depth: 6 });
    expect(full.hit_depth_cap).toBe(false);
    await tr.locator('[data-action=deeper]').click();
    await until(
      async () => (await tr.locator('[data-part=depth]').textContent())?.includes('6'),
      true,
    );
    await tr.locator('[data-action=expand]').click();
    expect(await tr.locator('li[data-depth="6"]').count()).toBe(full.levels[6].length);
    expect(await tr.locator('[data-part=depth-cap]').count()).toBe(0);
    await context.close();
  }, 60_000);

  it('the lead form takes the ref from the page and creates a lead, shown in the leads widget', async () => {
    const context = await d.newContext();
    const page = await context.newPage();
    // A visitor follows the partner's short link: it leads back to /demo with ?ref=.
    await page.goto(d.demo.shortUrl!);
    const landed = new URL(page.url());
    expect(landed.pathname).toBe('/demo');
    expect(landed.searchParams.get('ref')).toMatch(/^[\w-]+\.[\w-]+$/);

    const form = await settled(page, 'lead-form');
    await settled(page, 'leads');
    const name = `Виктория Тестова ${randomBytes(3).toString('hex')}`;
    await form.locator('input[name=name]').fill(name);
    await form.locator('[data-action=submit]').click();
    // Email or phone is required: the form says so before sending anything.
    expect(await form.locator('[data-part=error]').textContent()).toBe(
      'Укажите email или телефон.',
    );
    await form.locator('input[name=email]').fill(`${randomBytes(4).toString('hex')}@example.com`);
    await form.locator('input[name=phone]').fill('+7 900 555-12-34');
    await widgetScreenshot(widget(page, 'lead-form'), 'lead-form');
    await form.locator('[data-action=submit]').click();
    await settled(page, 'lead-form', ['sent']);
    expect(await form.locator('[data-part=sent]').textContent()).toBe(
      'Спасибо! Заявка отправлена.',
    );
    await widgetScreenshot(widget(page, 'lead-form'), 'lead-form-sent');

    const stored = await d.t.db.query<{ source: string; referrer_member_id: string }[]>(
      'SELECT source, referrer_member_id FROM leads WHERE tenant_id = $1 AND contact_name = $2',
      [d.demo.tenantId, name],
    );
    expect(stored).toEqual([{ source: 'lead_form', referrer_member_id: d.demo.partner.memberId }]);

    // The leads widget on the same page refreshes; so does a fresh page.
    const led = box(page, 'leads');
    await until(() => led.locator('[data-field=name]').first().textContent(), name);
    const fresh = await d.openDemo(context);
    const again = await settled(fresh, 'leads');
    expect(await again.locator('[data-field=name]').first().textContent()).toBe(name);
    expect(
      await (await settled(fresh, 'cabinet')).locator('[data-field=name]').first().textContent(),
    ).toBe(name);
    await context.close();
  }, 60_000);

  it('the demo seeding is idempotent and serialised across processes', async () => {
    const seeder = d.t.app.get(DemoSeeder);
    const [a, b] = await Promise.all([seeder.ensureDemo(), seeder.ensureDemo()]);
    expect(a).toEqual(d.demo);
    expect(b).toEqual(d.demo);
    const [{ count }] = await d.t.db.query<{ count: number }[]>(
      'SELECT count(*)::int AS count FROM tenants WHERE slug = $1',
      [d.demo.slug],
    );
    expect(count).toBe(1);
    // The database is not empty, so a start-up would not seed anything new.
    expect(await seeder.seedIfEmpty()).toEqual(d.demo);
  });
});
