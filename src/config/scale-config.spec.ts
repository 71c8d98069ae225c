import { ConfigError, loadConfig } from './load-config';

/** SPEC 12's variables: pool size, keep-alive, the migrations' direct connection. */
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

describe('scale configuration (SPEC 12)', () => {
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
});
