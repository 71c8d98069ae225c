// Operations endpoints of docs/operations.md: liveness, readiness (with each dependency taken away for real),
// Prometheus metrics and the OpenAPI document an integrator reads.
import { Client } from 'pg';
import { randomBytes } from 'node:crypto';
import { ensureDatabase, quoteIdent, runMigrations } from '../../../src/database/ensure-database';
import { createTenant } from '../../factories/tenants.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { TEST_DATABASE_SERVER } from '../../utils/test-env';

type Schema = {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  example?: unknown;
};
type Operation = {
  summary?: string;
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string }[];
  responses: Record<
    string,
    { content?: Record<string, { schema?: Schema }>; headers?: Record<string, unknown> }
  >;
};
type OpenApi = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

async function adminQuery(sql: string): Promise<void> {
  const admin = new Client({ connectionString: `${TEST_DATABASE_SERVER}/postgres` });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/** Polls `probe` until it returns true or `timeoutMs` passes; the last answer decides. */
async function eventually(probe: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe()) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('Operations (docs/operations.md)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  describe('health', () => {
    it('GET /health/live is 200 without credentials', async () => {
      const res = await t.http().get('/health/live');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok' });
    });

    it('GET /health/ready is 200 with the database and Redis both up', async () => {
      // Readiness may lag the start by the time Redis takes to connect; it must then turn 200.
      let res = await t.http().get('/health/ready');
      await eventually(async () => {
        res = await t.http().get('/health/ready');
        return res.status === 200;
      });
      expect({ status: res.status, detail: res.body.detail }).toEqual({
        status: 200,
        detail: undefined,
      });
      expect(res.body).toMatchObject({
        status: 'ok',
        info: { database: { status: 'up' }, redis: { status: 'up' } },
      });
    });
  });

  describe('with Redis down', () => {
    let down: TestApp;
    let downAll: TestApp;

    // The API role keeps the queue consumers, whose own behaviour with Redis down is the last
    // test's subject, out of the readiness tests.
    beforeAll(async () => {
      down = await createTestApp({ REDIS_URL: 'redis://127.0.0.1:1', PROCESS_ROLE: 'api' });
    });
    afterAll(() => down.close());

    it('an api process stays ready (200) and reports Redis as degraded', async () => {
      const res = await down.http().get('/health/ready');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'degraded',
        role: 'api',
        info: { database: { status: 'up' }, redis: { status: 'degraded' } },
        error: { redis: { status: 'down' } },
      });
    });

    it('a process that runs the workers (all) answers 503 unavailable naming redis, and only redis', async () => {
      downAll = await createTestApp({ REDIS_URL: 'redis://127.0.0.1:1', PROCESS_ROLE: 'all' });
      try {
        const res = await downAll.http().get('/health/ready');
        expect(res.status).toBe(503);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.body).toMatchObject({
          type: 'about:blank',
          status: 503,
          code: 'unavailable',
          request_id: res.headers['x-request-id'],
        });
        expect(res.body.detail).toMatch(/\bredis\b/);
        expect(res.body.detail).not.toMatch(/\bdatabase\b/);
      } finally {
        await downAll.close();
      }
    });

    it('still reports the process live', async () => {
      const res = await down.http().get('/health/live');
      expect(res.status).toBe(200);
    });

    it('starts and stops cleanly in the worker role while Redis is unreachable', async () => {
      // An unhandled rejection ends a Node process: a worker stopped (or restarted) during a Redis
      // outage must not crash on the way out.
      const unhandled: unknown[] = [];
      const record = (reason: unknown) => unhandled.push(reason);
      process.on('unhandledRejection', record);
      try {
        for (let i = 0; i < 4; i++) {
          const worker = await createTestApp({
            REDIS_URL: 'redis://127.0.0.1:1',
            PROCESS_ROLE: 'all',
          });
          await worker.close();
        }
        await new Promise((resolve) => setTimeout(resolve, 300));
      } finally {
        process.off('unhandledRejection', record);
      }
      expect(unhandled.map(String)).toEqual([]);
    });
  });

  describe('readiness when the database goes away', () => {
    const name = `referrals_test_ops_${randomBytes(4).toString('hex')}`;
    const url = `${TEST_DATABASE_SERVER}/${name}`;
    let scratch: TestApp | undefined;

    beforeAll(async () => {
      await ensureDatabase(url);
      await runMigrations(url);
      scratch = await createTestApp({ DATABASE_URL: url });
    });
    afterAll(async () => {
      await scratch?.close().catch(() => undefined);
      await adminQuery(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    });

    it('is ready first, then answers 503 unavailable naming the database', async () => {
      const app = scratch!;
      const before = await app.http().get('/health/ready');
      expect(before.status).toBe(200);

      await adminQuery(`DROP DATABASE ${quoteIdent(name)} WITH (FORCE)`);

      let res = await app.http().get('/health/ready');
      await eventually(async () => {
        res = await app.http().get('/health/ready');
        return res.status === 503;
      });
      expect(res.status).toBe(503);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 503, code: 'unavailable' });
      expect(res.body.detail).toMatch(/\bdatabase\b/);
      expect(res.body.detail).not.toMatch(/\bredis\b/);
      expect(res.text).not.toMatch(/does not exist|referrals_test_ops|\n\s+at\s/);
    });
  });

  describe('GET /metrics', () => {
    it('exposes request counts and durations by route pattern and status code', async () => {
      const tenant = await createTenant(t);
      const got = await t
        .http()
        .get(`/admin/v1/tenants/${tenant.slug}`)
        .set('Authorization', `Bearer ${t.adminToken}`);
      expect(got.status).toBe(200);
      const missing = await t
        .http()
        .get(`/admin/v1/tenants/no-${tenant.slug}`)
        .set('Authorization', `Bearer ${t.adminToken}`);
      expect(missing.status).toBe(404);

      const res = await t.http().get('/metrics');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.text).toMatch(/^# TYPE http_requests_total counter$/m);
      expect(res.text).toMatch(/^# TYPE http_request_duration_seconds histogram$/m);

      const counter = (status: number) =>
        new RegExp(
          `^http_requests_total\\{(?=[^}]*method="GET")(?=[^}]*route="/admin/v1/tenants/:slug")` +
            `(?=[^}]*status_code="${status}")[^}]*\\} [1-9]\\d*$`,
          'm',
        );
      expect(res.text).toMatch(counter(200));
      expect(res.text).toMatch(counter(404));
      expect(res.text).toMatch(
        /^http_request_duration_seconds_count\{(?=[^}]*route="\/admin\/v1\/tenants\/:slug")(?=[^}]*status_code="200")[^}]*\} [1-9]\d*$/m,
      );
      expect(res.text).toMatch(
        /^http_request_duration_seconds_bucket\{(?=[^}]*le="\+Inf")(?=[^}]*route="\/admin\/v1\/tenants\/:slug")[^}]*\} [1-9]\d*$/m,
      );
      // Raw paths never become label values: cardinality stays bounded.
      expect(res.text).not.toContain(tenant.slug);
    });

    it('counts requests that match no route under one bounded label, never the raw path', async () => {
      const paths = [1, 2].map(() => `/no-route-${randomBytes(4).toString('hex')}`);
      for (const path of paths) expect((await t.http().get(path)).status).toBe(404);
      const res = await t.http().get('/metrics');
      const series = res.text
        .split('\n')
        .filter((line) => line.startsWith('http_requests_total{'))
        .map((line) =>
          Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]])),
        );
      const notFound = series.filter(
        (labels) => labels.method === 'GET' && labels.status_code === '404',
      );
      expect(notFound.length).toBeGreaterThan(0);
      for (const path of paths) expect(res.text).not.toContain(path);
      expect(series.filter((labels) => labels.route.includes('no-route-'))).toEqual([]);
    });
  });

  describe('API documentation', () => {
    let doc: OpenApi;

    beforeAll(async () => {
      const res = await t.http().get('/docs/openapi.json');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      doc = res.body as OpenApi;
    });

    const resolve = (schema: Schema | undefined): Schema | undefined => {
      if (!schema?.$ref) return schema;
      const name = schema.$ref.replace('#/components/schemas/', '');
      return doc.components.schemas[name];
    };
    const operations = () =>
      Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([method]) => HTTP_METHODS.includes(method))
          .map(([method, op]) => ({ id: `${method.toUpperCase()} ${path}`, path, op })),
      );

    it('GET /docs serves the OpenAPI UI as HTML', async () => {
      const res = await t.http().get('/docs');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toMatch(/<html/i);
      expect(res.text).toMatch(/swagger-ui/i);
    });

    it('is an OpenAPI 3 document covering the APIs', () => {
      expect(doc.openapi).toMatch(/^3\./);
      expect(Object.keys(doc.paths)).toEqual(
        expect.arrayContaining([
          '/health/live',
          '/health/ready',
          '/admin/v1/tenants',
          '/admin/v1/tenants/{slug}',
          '/federation/v1/users/upsert',
        ]),
      );
    });

    it('gives every operation a summary and a documented 2xx body (or redirect)', () => {
      const offenders: string[] = [];
      for (const { id, op } of operations()) {
        if (!op.summary?.trim()) offenders.push(`${id}: no summary`);
        const responses = Object.entries(op.responses ?? {});
        const success = responses.filter(([status]) => /^2/.test(status));
        if (!success.length) {
          // A page's form post whose success is a redirect (post/redirect/get) says where to.
          const redirect = responses.some(
            ([status, r]) => /^3/.test(status) && r.headers?.Location,
          );
          if (!redirect) offenders.push(`${id}: no 2xx response`);
          continue;
        }
        const documented = success.some(([status, response]) => {
          // 204 No Content and a bare 202 Accepted have, rightly, no body to describe.
          if ((status === '204' || status === '202') && !response.content) return true;
          // An HTML page, the widget script, the metrics text: a string in its media type.
          const text = Object.entries(response.content ?? {}).some(
            ([type, media]) => type !== 'application/json' && media.schema?.type === 'string',
          );
          if (text) return true;
          const schema = response.content?.['application/json']?.schema;
          const target = resolve(schema);
          return Boolean(target && Object.keys(target.properties ?? {}).length > 0);
        });
        if (!documented) {
          const schemas = success.map(([status, r]) => {
            const schema = r.content?.['application/json']?.schema;
            return `${status} ${schema?.$ref ?? JSON.stringify(schema ?? null)}`;
          });
          offenders.push(`${id}: 2xx body schema has no properties (${schemas.join(', ')})`);
        }
      }
      expect(offenders).toEqual([]);
    });

    it('declares a credential on every admin and federation operation', () => {
      const offenders = operations()
        .filter(({ path }) => /^\/(admin|federation)\//.test(path))
        .filter(({ op }) => !op.security?.length)
        .map(({ id }) => id);
      expect(offenders).toEqual([]);
    });

    it('documents page and page_size on every paginated list', () => {
      const offenders: string[] = [];
      for (const { id, op } of operations()) {
        const schema = resolve(op.responses?.['200']?.content?.['application/json']?.schema);
        if (!schema?.properties?.pagination) continue;
        const query = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
        for (const name of ['page', 'page_size']) {
          if (!query.includes(name)) offenders.push(`${id}: no ${name} parameter`);
        }
      }
      expect(offenders).toEqual([]);
    });

    it('leaves no component schema empty', () => {
      const empty = Object.entries(doc.components.schemas)
        .filter(([, schema]) => schema.type === 'object' && !schema.allOf)
        .filter(([, schema]) => Object.keys(schema.properties ?? {}).length === 0)
        .map(([name]) => name);
      expect(empty).toEqual([]);
    });

    it.each([
      [
        'CreateTenantDto',
        [
          'slug',
          'display_name',
          'allowed_origins',
          'currency',
          'locale',
          'link_domains',
          'link_templates',
          'program',
        ],
      ],
      [
        'UpsertUserDto',
        ['external_id', 'vk_id', 'email', 'full_name', 'email_verified', 'referrer_user_id'],
      ],
      [
        'TenantResponse',
        [
          'org_id',
          'slug',
          'display_name',
          'allowed_origins',
          'currency',
          'locale',
          'link_domains',
          'link_templates',
          'program',
          'created_at',
          'updated_at',
        ],
      ],
      [
        'UpsertUserResponse',
        ['tenant_service_id', 'service_user_id', 'action', 'referrer_user_id'],
      ],
      ['ProgramTierDto', ['tier', 'percent_bp', 'fixed_kopecks']],
      [
        'AuditEntryResponse',
        ['id', 'at', 'actor', 'action', 'target_type', 'target_id', 'details'],
      ],
    ])('%s documents every field with an example', (name, fields) => {
      const schema = doc.components.schemas[name];
      expect(schema).toBeDefined();
      const properties = schema.properties ?? {};
      expect(Object.keys(properties)).toEqual(expect.arrayContaining(fields));
      const withoutExample = Object.entries(properties)
        // A nested object is documented by its own schema: a $ref, or allOf [$ref] when it has a
        // description beside it.
        .filter(
          ([, property]) =>
            !property.$ref &&
            !property.allOf?.some((p: { $ref?: string }) => p.$ref) &&
            property.example === undefined,
        )
        .map(([field]) => field);
      expect(withoutExample).toEqual([]);
    });
  });
});
