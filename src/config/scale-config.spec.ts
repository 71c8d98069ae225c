import { ConfigError, loadConfig } from './load-config';

/** The scale variables (docs/operations.md): pool size, keep-alive, the migrations' direct connection. */
const SECRETS = {
  ADMIN_TOKEN: 'adm_0123456789abcdefghijklmnop',
  JWT_SECRET: 'jwt-secret-jwt-secret-jwt-secret-0123',
  REF_SIGNING_SECRET: 'ref-secret-ref-secret-ref-secret-0123',
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
};
const options = { devSecretsFile: '/nonexistent/never-written.json' };

function problems(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig({ ...SECRETS, ...env }, options);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('scale configuration (docs/operations.md)', () => {
  it('defaults: 10 connections, 65 s keep-alive, migrations on DATABASE_URL', () => {
    const config = loadConfig({ ...SECRETS, DATABASE_URL: 'postgres://u@pooler:6432/x' }, options);
    expect(config.databasePoolSize).toBe(10);
    expect(config.httpKeepAliveTimeoutMs).toBe(65000);
    expect(config.migrationsDatabaseUrl).toBe('postgres://u@pooler:6432/x');
  });

  it('reads each variable', () => {
    const config = loadConfig(
      {
        ...SECRETS,
        DATABASE_URL: 'postgres://u@pooler:6432/x',
        MIGRATIONS_DATABASE_URL: 'postgresql://u@db:5432/x',
        DATABASE_POOL_SIZE: '4',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '120000',
      },
      options,
    );
    expect(config).toMatchObject({
      databaseUrl: 'postgres://u@pooler:6432/x',
      migrationsDatabaseUrl: 'postgresql://u@db:5432/x',
      databasePoolSize: 4,
      httpKeepAliveTimeoutMs: 120000,
    });
  });

  it.each([
    ['DATABASE_POOL_SIZE', '0'],
    ['DATABASE_POOL_SIZE', 'ten'],
    ['DATABASE_POOL_SIZE', '2.5'],
    ['HTTP_KEEP_ALIVE_TIMEOUT_MS', '500'],
    ['HTTP_KEEP_ALIVE_TIMEOUT_MS', '300000'],
    ['MIGRATIONS_DATABASE_URL', 'mysql://db/x'],
  ])('%s=%j is refused, naming the variable', (name, value) => {
    expect(problems({ [name]: value }).some((p) => p.startsWith(name))).toBe(true);
  });

  describe('pool timeouts and imports at once (issue #32)', () => {
    it('defaults: 10 s to get a connection, 30 s statement timeout, 4 imports, 2 of a tenant', () => {
      const config = loadConfig(SECRETS, options);
      expect(config).toMatchObject({
        databaseConnectTimeoutMs: 10_000,
        databaseStatementTimeoutMs: 30_000,
        imports: { concurrency: 4, tenantConcurrency: 2 },
      });
    });

    it('reads each variable; 0 turns the statement timeout off', () => {
      const config = loadConfig(
        {
          ...SECRETS,
          DATABASE_POOL_SIZE: '20',
          DATABASE_CONNECT_TIMEOUT_MS: '2500',
          DATABASE_STATEMENT_TIMEOUT_MS: '0',
          IMPORT_CONCURRENCY: '12',
          IMPORT_TENANT_CONCURRENCY: '3',
        },
        options,
      );
      expect(config).toMatchObject({
        databaseConnectTimeoutMs: 2500,
        databaseStatementTimeoutMs: 0,
        imports: { concurrency: 12, tenantConcurrency: 3 },
      });
    });

    it('the default import limits stay below a small pool', () => {
      expect(loadConfig({ ...SECRETS, DATABASE_POOL_SIZE: '3' }, options).imports).toEqual({
        concurrency: 2,
        tenantConcurrency: 2,
      });
      expect(loadConfig({ ...SECRETS, DATABASE_POOL_SIZE: '2' }, options).imports).toEqual({
        concurrency: 1,
        tenantConcurrency: 1,
      });
    });

    it.each([
      [
        { IMPORT_CONCURRENCY: '10' },
        'IMPORT_CONCURRENCY (10) must be below DATABASE_POOL_SIZE (10)',
      ],
      [
        { DATABASE_POOL_SIZE: '4', IMPORT_CONCURRENCY: '4' },
        'IMPORT_CONCURRENCY (4) must be below',
      ],
      [
        { IMPORT_TENANT_CONCURRENCY: '5' },
        'IMPORT_TENANT_CONCURRENCY (5) must not exceed IMPORT_CONCURRENCY (4)',
      ],
      [{ DATABASE_POOL_SIZE: '1' }, 'DATABASE_POOL_SIZE must be at least 2'],
      [{ DATABASE_CONNECT_TIMEOUT_MS: '50' }, 'DATABASE_CONNECT_TIMEOUT_MS'],
      [{ DATABASE_STATEMENT_TIMEOUT_MS: '-1' }, 'DATABASE_STATEMENT_TIMEOUT_MS'],
      [{ IMPORT_CONCURRENCY: '0' }, 'IMPORT_CONCURRENCY'],
    ])('%j is refused: %s', (env, message) => {
      expect(problems(env).some((p) => p.startsWith(message))).toBe(true);
    });
  });

  describe('Redis: one server, Sentinel or Cluster; hash-tagged queue keys', () => {
    it('defaults to REDIS_URL with the prefix as given, rate limits under the same name', () => {
      const config = loadConfig({ ...SECRETS, QUEUE_PREFIX: 'app' }, options);
      expect(config.redis).toEqual({ mode: 'standalone', url: 'redis://localhost:6379' });
      expect([config.queuePrefix, config.rateLimitPrefix]).toEqual(['app', 'app']);
    });

    it('takes a prefix with its hash tag; rate limits drop the tag', () => {
      const config = loadConfig({ ...SECRETS, QUEUE_PREFIX: 'ref:{refq}' }, options);
      expect([config.queuePrefix, config.rateLimitPrefix]).toEqual(['ref:{refq}', 'ref:refq']);
    });

    it('reads Sentinel, with the credentials of REDIS_URL for the data nodes', () => {
      const config = loadConfig(
        {
          ...SECRETS,
          REDIS_URL: 'redis://:s3cret@ignored:6379',
          REDIS_SENTINELS: 's1:26379,10.0.0.2:26380',
          REDIS_SENTINEL_NAME: 'refprimary',
        },
        options,
      );
      expect(config.redis).toEqual({
        mode: 'sentinel',
        sentinels: [
          { host: 's1', port: 26379 },
          { host: '10.0.0.2', port: 26380 },
        ],
        name: 'refprimary',
        auth: { password: 's3cret' },
      });
      expect(config.queuePrefix).toBe('bull');
    });

    it('tags an untagged prefix on a cluster, and keeps a tagged one', () => {
      const nodes = { REDIS_CLUSTER_NODES: 'c1:7000,c2:7001' };
      const untagged = loadConfig({ ...SECRETS, ...nodes, QUEUE_PREFIX: 'refq' }, options);
      expect(untagged.redis).toMatchObject({
        mode: 'cluster',
        nodes: [
          { host: 'c1', port: 7000 },
          { host: 'c2', port: 7001 },
        ],
      });
      expect([untagged.queuePrefix, untagged.rateLimitPrefix]).toEqual(['{refq}', 'refq']);
      const tagged = loadConfig({ ...SECRETS, ...nodes, QUEUE_PREFIX: 'x:{t}' }, options);
      expect(tagged.queuePrefix).toBe('x:{t}');
    });

    it.each([
      [{ QUEUE_PREFIX: '{a}{b}' }, 'QUEUE_PREFIX'],
      [{ QUEUE_PREFIX: 'a{}' }, 'QUEUE_PREFIX'],
      [{ QUEUE_PREFIX: 'a{b' }, 'QUEUE_PREFIX'],
      [{ QUEUE_PREFIX: 'x'.repeat(65) }, 'QUEUE_PREFIX'],
      [{ REDIS_SENTINELS: 's1' }, 'REDIS_SENTINELS'],
      [{ REDIS_SENTINELS: 's1:26379' }, 'REDIS_SENTINEL_NAME'],
      [{ REDIS_CLUSTER_NODES: 'c1:7000,' }, 'REDIS_CLUSTER_NODES'],
      [
        { REDIS_CLUSTER_NODES: 'c1:7000', REDIS_SENTINELS: 's:1', REDIS_SENTINEL_NAME: 'm' },
        'REDIS_SENTINELS',
      ],
    ])('%j is refused, naming %s', (env, name) => {
      expect(problems(env).some((p) => p.startsWith(name))).toBe(true);
    });
  });
});
