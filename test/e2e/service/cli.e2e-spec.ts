// The operator CLI (`npm run cli -- tenant:create …`) run for real as a child process against this
// run's database, and the key it prints used against the real app.
import { createTenant, uniqueSlug } from '../../factories/tenants.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { type CliResult, runCli } from '../../utils/service-entry';

// A CLI start from the sources (ts-node) takes seconds, far more on a busy machine.
jest.setTimeout(60_000);

describe('CLI tenant:create', () => {
  let t: TestApp;
  const slug = uniqueSlug('cli');
  let taken: string;
  // The runs are independent, so they start together: each pays the start-up once, in
  // parallel, and every test awaits its own.
  let runs: Record<'created' | 'taken' | 'noSlug' | 'invalid', Promise<CliResult>>;

  beforeAll(async () => {
    t = await createTestApp();
    taken = (await createTenant(t)).slug;
    runs = {
      created: runCli([
        'tenant:create',
        '--slug',
        slug,
        '--name',
        'Acme',
        '--origin',
        'https://acme.example',
        '--origin',
        'http://localhost:8080',
      ]),
      taken: runCli([
        'tenant:create',
        '--slug',
        taken,
        '--name',
        'Acme',
        '--origin',
        'https://a.example',
      ]),
      noSlug: runCli(['tenant:create', '--name', 'Acme', '--origin', 'https://a.example']),
      invalid: runCli([
        'tenant:create',
        '--slug',
        uniqueSlug('cli'),
        '--origin',
        'https://a.example/path',
      ]),
    };
    // Settle them all here, where the hook's timeout covers the slow start-up.
    await Promise.all(Object.values(runs));
  }, 150_000);
  afterAll(() => t.close());

  it('creates a tenant, prints it as JSON with a working first key', async () => {
    const run = await runs.created;
    expect(run).toMatchObject({ code: 0 });

    const printed = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(printed).toMatchObject({
      slug,
      display_name: 'Acme',
      allowed_origins: ['https://acme.example', 'http://localhost:8080'],
      currency: 'RUB',
      locale: 'ru-RU',
      org_id: expect.stringMatching(/^org_[0-9A-HJKMNP-TV-Z]{26}$/),
      tenant_key: expect.stringMatching(/^tk_[A-Za-z0-9_-]{32,}$/),
    });

    const upsert = await t
      .http()
      .post('/federation/v1/users/upsert')
      .set('X-Service-Tenant-Key', printed.tenant_key as string)
      .send({ external_id: 'cli-user-1', full_name: 'First User' });
    expect(upsert.status).toBe(200);
    expect(upsert.body.action).toBe('created');

    const tenant = await t
      .http()
      .get(`/admin/v1/tenants/${slug}`)
      .set('Authorization', `Bearer ${t.adminToken}`);
    expect(tenant.status).toBe(200);
    expect(tenant.body).toMatchObject({ org_id: printed.org_id, slug, display_name: 'Acme' });
    expect(tenant.body).not.toHaveProperty('tenant_key');
  });

  it('refuses a slug that is taken, without printing a tenant', async () => {
    const run = await runs.taken;
    expect(run.code).not.toBe(0);
    expect(run.code).not.toBeNull();
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(taken);
    expect(run.stderr).not.toMatch(/\n\s+at\s/);
  });

  it('exits non-zero with the usage on stderr when --slug is missing', async () => {
    const run = await runs.noSlug;
    expect(run.code).not.toBe(0);
    expect(run.code).not.toBeNull();
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/Usage:/);
    expect(run.stderr).toContain('--slug');
    expect(run.stderr).toContain('tenant:create');
  });

  it('names the flag to fix when a value is invalid', async () => {
    const run = await runs.invalid;
    expect(run.code).not.toBe(0);
    expect(run.code).not.toBeNull();
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/Usage:/);
    // The operator typed --name and --origin; the message must speak of those flags.
    expect(run.stderr).toMatch(/^--name\b/m);
    expect(run.stderr).toMatch(/^--origin\b/m);
  });
});

describe('CLI demo:seed', () => {
  let t: TestApp;
  let runs: Record<'seeded' | 'again' | 'production', Promise<CliResult>>;

  beforeAll(async () => {
    t = await createTestApp();
    // The two seeding runs go together: the advisory lock makes them seed one demo.
    runs = {
      seeded: runCli(['demo:seed']),
      again: runCli(['demo:seed']),
      production: runCli(['demo:seed'], { NODE_ENV: 'production' }),
    };
    await Promise.all(Object.values(runs));
  }, 150_000);
  afterAll(() => t.close());

  it('seeds the demo tenant once and prints where its page is', async () => {
    const [seeded, again] = [await runs.seeded, await runs.again];
    expect(seeded).toMatchObject({ code: 0, stderr: expect.not.stringMatching(/\n\s+at\s/) });
    expect(again).toMatchObject({ code: 0 });
    const printed = JSON.parse(seeded.stdout) as Record<string, unknown>;
    expect(printed).toMatchObject({
      slug: 'demo',
      url: 'http://localhost:3000/demo',
      partner: { email: 'anna@demo.example' },
    });
    expect(JSON.parse(again.stdout)).toEqual(printed);

    const tenants = await t.db.query(`SELECT id FROM tenants WHERE slug = 'demo'`);
    expect(tenants).toEqual([{ id: printed.tenantId }]);
    const page = await t.http().get('/demo');
    expect(page.status).toBe(200);
  });

  it('refuses under NODE_ENV=production, where there is no demo', async () => {
    const run = await runs.production;
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('NODE_ENV=production');
  });
});
