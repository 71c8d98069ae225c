import { ModulesContainer } from '@nestjs/core';
import { DemoSeeder } from '../../../src/demo/demo-seeder.service';
import { createTestApp, type TestApp } from '../../utils/create-test-app';
import { freePort } from '../../utils/processes';

/**
 * README.md: a second development instance on another port, sharing the database, must not take
 * the demo's shared link away from the first; once the first is gone, the link follows the
 * instance that is there.
 */
jest.setTimeout(60_000);

describe('the demo with two development instances', () => {
  const apps: TestApp[] = [];
  afterAll(() => Promise.all(apps.map((a) => a.close().catch(() => undefined))));

  const start = async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const t = await createTestApp({ PORT: String(port), PUBLIC_BASE_URL: base });
    await t.app.listen(port, '127.0.0.1');
    apps.push(t);
    return { t, base };
  };
  const template = async (t: TestApp): Promise<string> => {
    const [row] = await t.db.query(`SELECT link_templates FROM tenants WHERE slug = 'demo'`);
    return row.link_templates.offer as string;
  };
  const origins = async (t: TestApp): Promise<string[]> => {
    const [row] = await t.db.query(`SELECT allowed_origins FROM tenants WHERE slug = 'demo'`);
    return row.allowed_origins as string[];
  };

  it("keeps the first instance's link while it answers, and moves it once it is gone", async () => {
    const a = await start();
    await a.t.app.get(DemoSeeder).ensureDemo();
    expect(await template(a.t)).toBe(`${a.base}/demo?offer={id}`);

    const b = await start();
    await b.t.app.get(DemoSeeder).ensureDemo();
    expect(await template(b.t)).toBe(`${a.base}/demo?offer={id}`);
    expect(await origins(b.t)).toEqual(expect.arrayContaining([a.base, b.base]));

    await a.t.close();
    apps.splice(apps.indexOf(a.t), 1);
    await b.t.app.get(DemoSeeder).ensureDemo();
    expect(await template(b.t)).toBe(`${b.base}/demo?offer={id}`);
  });
});

describe('the demo tenant’s partner pages', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await t.app.get(DemoSeeder).ensureDemo();
  });
  afterAll(() => t?.close());

  it('takes applications at /p/demo/join, and the demo page links the join page and the portal', async () => {
    const join = await t.http().get('/p/demo/join?lang=en');
    expect(join.status).toBe(200);
    expect(join.text).toContain('name="answers.site"');
    expect(join.text).toContain('Your site or channel');
    const portal = await t.http().get('/p/demo?lang=en');
    expect(portal.status).toBe(200);
    expect(portal.text).toContain('type="email"');
    const demo = await t.http().get('/demo?lang=en');
    expect(demo.status).toBe(200);
    for (const [hook, path] of [
      ['portal', '/p/demo'],
      ['join', '/p/demo/join'],
      ['applications', '/org/demo/applications'],
    ]) {
      expect(demo.text).toContain(`href="${path}" data-demo="${hook}"`);
    }
  });
});

describe('the demo in production', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ NODE_ENV: 'production' });
  });
  afterAll(() => t?.close());

  it('is not loaded: no demo module, no /demo page, no /demo in the API document', async () => {
    const modules = [...t.app.get(ModulesContainer).values()].map((m) => m.metatype?.name);
    expect(modules).toContain('TenantsModule');
    expect(modules).not.toContain('DemoModule');
    const page = await t.http().get('/demo').set('Accept', 'text/html');
    expect(page.status).toBe(404);
    const doc = await t.http().get('/docs/openapi.json');
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths as object)).not.toContain('/demo');
  });
});
