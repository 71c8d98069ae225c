import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, DEV_SECRETS_FILE, loadConfig, LoadConfigOptions } from './load-config';

const SECRETS = {
  ADMIN_TOKEN: 'adm_0123456789abcdefghijklmnop',
  JWT_SECRET: 'jwt-secret-jwt-secret-jwt-secret-0123',
  REF_SIGNING_SECRET: 'ref-secret-ref-secret-ref-secret-0123',
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
};
const SECRET_NAMES = Object.keys(SECRETS);

describe('loadConfig', () => {
  let dir: string;
  let devSecretsFile: string;
  let options: LoadConfigOptions & { onGeneratedSecrets: jest.Mock };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'load-config-'));
    devSecretsFile = join(dir, 'dev-secrets.json');
    options = { devSecretsFile, onGeneratedSecrets: jest.fn() };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Loads and returns the ConfigError it must throw. */
  function configError(env: NodeJS.ProcessEnv): ConfigError {
    try {
      loadConfig(env, options);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return error as ConfigError;
    }
    throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
  }

  describe('startup checks that name the problem (docs/operations.md)', () => {
    it('WEBHOOK_CA_FILE naming a missing file is one line naming the file and the fix', () => {
      const missing = join(dir, 'no-such-ca.pem');
      const error = configError({ ...SECRETS, WEBHOOK_CA_FILE: missing });
      expect(error.problems).toEqual([
        `WEBHOOK_CA_FILE cannot be read (ENOENT: ${missing}); point it at a PEM certificate file or unset it`,
      ]);
    });

    it('WEBHOOK_CA_FILE that holds no certificate is refused; a PEM file is taken', () => {
      const notPem = join(dir, 'not.pem');
      writeFileSync(notPem, 'hello');
      expect(configError({ ...SECRETS, WEBHOOK_CA_FILE: notPem }).problems).toEqual([
        `WEBHOOK_CA_FILE holds no PEM certificate (${notPem})`,
      ]);
      const pem = join(dir, 'ca.pem');
      writeFileSync(pem, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
      expect(loadConfig({ ...SECRETS, WEBHOOK_CA_FILE: pem }, options).webhook.caFile).toBe(pem);
    });

    it('keeps development secrets in the project folder, whatever the working directory', () => {
      expect(DEV_SECRETS_FILE).toBe(join(__dirname, '..', '..', '.dev-secrets.json'));
      expect(statSync(join(DEV_SECRETS_FILE, '..', 'package.json')).isFile()).toBe(true);
    });
  });

  describe('defaults (README.md, "Configuration")', () => {
    it('suit a local run when nothing is set', () => {
      const config = loadConfig({ ...SECRETS }, options);
      expect(config).toMatchObject({
        nodeEnv: 'development',
        isProduction: false,
        port: 3000,
        publicBaseUrl: 'http://localhost:3000',
        shortLinkBaseUrl: 'http://localhost:3000/s',
        databaseUrl: 'postgres://postgres@localhost:5432/referrals',
        redisUrl: 'redis://localhost:6379',
        processRole: 'all',
        migrationsRun: true,
        bonusApprovalSweepMs: 60000,
        rateLimits: true,
        logLevel: 'info',
      });
      expect(config.webhook.retryDelaysMs).toEqual([30000, 300000, 1800000, 14400000, 86400000]);
      expect(config.webhook.timeoutMs).toBe(10000);
      expect(config.webhook.allowPrivateTargets).toBe(false);
      expect(config.webhook.caFile).toBeUndefined();
      expect(config.smtpUrl).toBeUndefined();
      expect(config.mailFrom).toEqual(expect.any(String));
    });

    it('derives the public base URL from PORT and strips trailing slashes', () => {
      expect(loadConfig({ ...SECRETS, PORT: '8080' }, options).publicBaseUrl).toBe(
        'http://localhost:8080',
      );
      const config = loadConfig(
        {
          ...SECRETS,
          PUBLIC_BASE_URL: 'https://ref.example//',
          SHORT_LINK_BASE_URL: 'https://s.ex/',
        },
        options,
      );
      expect(config.publicBaseUrl).toBe('https://ref.example');
      expect(config.shortLinkBaseUrl).toBe('https://s.ex');
    });

    it('reads every variable that is set', () => {
      const caFile = join(dir, 'ca.pem');
      writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\n');
      const config = loadConfig(
        {
          ...SECRETS,
          NODE_ENV: 'test',
          PORT: '4000',
          DATABASE_URL: 'postgresql://u@db:5432/x',
          REDIS_URL: 'rediss://cache:6380',
          PROCESS_ROLE: 'worker',
          MIGRATIONS_RUN: 'false',
          WEBHOOK_RETRY_DELAYS_MS: '100,200,300',
          WEBHOOK_TIMEOUT_MS: '2500',
          WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
          WEBHOOK_CA_FILE: caFile,
          BONUS_APPROVAL_SWEEP_MS: '500',
          SMTP_URL: 'smtp://mail:25',
          MAIL_FROM: 'Ref <ref@example.com>',
          RATE_LIMITS: 'off',
          LOG_LEVEL: 'debug',
        },
        options,
      );
      expect(config).toMatchObject({
        nodeEnv: 'test',
        port: 4000,
        databaseUrl: 'postgresql://u@db:5432/x',
        redisUrl: 'rediss://cache:6380',
        processRole: 'worker',
        migrationsRun: false,
        bonusApprovalSweepMs: 500,
        smtpUrl: 'smtp://mail:25',
        mailFrom: 'Ref <ref@example.com>',
        rateLimits: false,
        logLevel: 'debug',
        adminToken: SECRETS.ADMIN_TOKEN,
        jwtSecret: SECRETS.JWT_SECRET,
        refSigningSecret: SECRETS.REF_SIGNING_SECRET,
      });
      expect(config.webhook).toMatchObject({
        retryDelaysMs: [100, 200, 300],
        timeoutMs: 2500,
        allowPrivateTargets: true,
        caFile,
      });
      expect(config.secretsEncryptionKey).toEqual(Buffer.alloc(32, 9));
    });

    it('returns a frozen config', () => {
      const config = loadConfig({ ...SECRETS }, options);
      expect(Object.isFrozen(config)).toBe(true);
    });

    it('treats empty numeric variables as unset', () => {
      const config = loadConfig({ ...SECRETS, PORT: '', BONUS_APPROVAL_SWEEP_MS: '' }, options);
      expect(config.port).toBe(3000);
      expect(config.bonusApprovalSweepMs).toBe(60000);
    });
  });

  describe('invalid values', () => {
    it.each([
      ['PORT', 'abc'],
      ['PORT', '70000'],
      ['PORT', '30.5'],
      ['PROCESS_ROLE', 'x'],
      ['NODE_ENV', 'staging'],
      ['DATABASE_URL', 'mysql://localhost/x'],
      ['REDIS_URL', 'localhost:6379'],
      ['MIGRATIONS_RUN', 'maybe'],
      ['WEBHOOK_RETRY_DELAYS_MS', 'fast'],
      ['WEBHOOK_RETRY_DELAYS_MS', '1000,-5'],
      ['BONUS_APPROVAL_SWEEP_MS', 'soon'],
      ['RATE_LIMITS', 'yes'],
      ['LOG_LEVEL', 'loud'],
      ['PUBLIC_BASE_URL', 'ftp://x.example'],
      ['SECRETS_ENCRYPTION_KEY', Buffer.alloc(16, 1).toString('base64')],
      ['SECRETS_ENCRYPTION_KEY', Buffer.alloc(33, 1).toString('base64')],
      ['SECRETS_ENCRYPTION_KEY', 'not base64 at all, and not 32 bytes!!!!!!!!!'],
      ['ADMIN_TOKEN', 'short'],
      ['JWT_SECRET', 'too-short'],
    ])('%s=%j throws a ConfigError naming the variable', (name, value) => {
      const error = configError({ ...SECRETS, [name]: value });
      expect(error.message).toContain(name);
      expect(error.problems.some((p) => p.startsWith(name))).toBe(true);
      expect(options.onGeneratedSecrets).not.toHaveBeenCalled();
    });

    it.each([
      ['MIGRATIONS_RUN', 'migrationsRun'],
      ['WEBHOOK_ALLOW_PRIVATE_TARGETS', 'allowPrivateTargets'],
    ])('never silently reads %s=1 as false', (name, key) => {
      let value: boolean | undefined;
      try {
        const config = loadConfig({ ...SECRETS, [name]: '1' }, options);
        value = key === 'migrationsRun' ? config.migrationsRun : config.webhook.allowPrivateTargets;
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as Error).message).toContain(name);
        return;
      }
      expect(value).toBe(true);
    });

    it('names every invalid variable at once', () => {
      const error = configError({ ...SECRETS, PORT: 'abc', PROCESS_ROLE: 'x' });
      expect(error.message).toContain('PORT');
      expect(error.message).toContain('PROCESS_ROLE');
    });

    it('accepts exactly 32 bytes, base64-encoded, as SECRETS_ENCRYPTION_KEY', () => {
      const key = Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7));
      const config = loadConfig(
        { ...SECRETS, SECRETS_ENCRYPTION_KEY: key.toString('base64') },
        options,
      );
      expect(config.secretsEncryptionKey).toEqual(key);
    });
  });

  describe('secrets in production', () => {
    it('stops with a message naming each missing secret', () => {
      const error = configError({ NODE_ENV: 'production' });
      for (const name of SECRET_NAMES) expect(error.message).toContain(name);
      expect(error.problems).toHaveLength(SECRET_NAMES.length);
      expect(options.onGeneratedSecrets).not.toHaveBeenCalled();
      expect(() => statSync(devSecretsFile)).toThrow();
    });

    it('names only the secrets that are missing', () => {
      const { JWT_SECRET: _jwt, SECRETS_ENCRYPTION_KEY: _key, ...rest } = SECRETS;
      const error = configError({ NODE_ENV: 'production', ...rest });
      expect(error.message).toContain('JWT_SECRET');
      expect(error.message).toContain('SECRETS_ENCRYPTION_KEY');
      expect(error.message).not.toContain('ADMIN_TOKEN');
      expect(error.message).not.toContain('REF_SIGNING_SECRET');
    });

    it('does not read development secrets from the file', () => {
      writeFileSync(devSecretsFile, JSON.stringify(SECRETS));
      const error = configError({ NODE_ENV: 'production' });
      for (const name of SECRET_NAMES) expect(error.message).toContain(name);
    });

    it('starts when every secret is given', () => {
      const config = loadConfig({ NODE_ENV: 'production', ...SECRETS }, options);
      expect(config.isProduction).toBe(true);
      expect(config.adminToken).toBe(SECRETS.ADMIN_TOKEN);
      expect(options.onGeneratedSecrets).not.toHaveBeenCalled();
    });
  });

  describe('development secrets', () => {
    it('generates the missing secrets, saves them and reports them once', () => {
      const config = loadConfig({}, options);

      expect(options.onGeneratedSecrets).toHaveBeenCalledTimes(1);
      const [generated, file] = options.onGeneratedSecrets.mock.calls[0] as [
        Record<string, string>,
        string,
      ];
      expect(Object.keys(generated).sort()).toEqual([...SECRET_NAMES].sort());
      expect(file).toBe(devSecretsFile);

      expect(config.adminToken).toBe(generated.ADMIN_TOKEN);
      expect(config.jwtSecret).toBe(generated.JWT_SECRET);
      expect(config.refSigningSecret).toBe(generated.REF_SIGNING_SECRET);
      expect(config.secretsEncryptionKey).toHaveLength(32);
      expect(config.secretsEncryptionKey.toString('base64')).toBe(generated.SECRETS_ENCRYPTION_KEY);
      // Strong enough to pass the shape rules a real deployment is held to.
      expect(config.adminToken.length).toBeGreaterThanOrEqual(24);
      expect(config.jwtSecret.length).toBeGreaterThanOrEqual(32);
      expect(config.refSigningSecret.length).toBeGreaterThanOrEqual(32);

      expect(JSON.parse(readFileSync(devSecretsFile, 'utf8'))).toEqual(generated);
      expect(statSync(devSecretsFile).mode & 0o077).toBe(0);
    });

    it('reuses the saved secrets on the next load without generating or reporting', () => {
      const first = loadConfig({}, options);
      const saved = readFileSync(devSecretsFile, 'utf8');
      options.onGeneratedSecrets.mockClear();

      const second = loadConfig({}, options);
      expect(options.onGeneratedSecrets).not.toHaveBeenCalled();
      expect(second.adminToken).toBe(first.adminToken);
      expect(second.jwtSecret).toBe(first.jwtSecret);
      expect(second.refSigningSecret).toBe(first.refSigningSecret);
      expect(second.secretsEncryptionKey).toEqual(first.secretsEncryptionKey);
      expect(readFileSync(devSecretsFile, 'utf8')).toBe(saved);
    });

    it('generates only what is missing, and an explicit value wins over the file', () => {
      const first = loadConfig({ ADMIN_TOKEN: SECRETS.ADMIN_TOKEN }, options);
      const [generated] = options.onGeneratedSecrets.mock.calls[0] as [Record<string, string>];
      expect(Object.keys(generated).sort()).toEqual(
        ['JWT_SECRET', 'REF_SIGNING_SECRET', 'SECRETS_ENCRYPTION_KEY'].sort(),
      );
      expect(first.adminToken).toBe(SECRETS.ADMIN_TOKEN);

      options.onGeneratedSecrets.mockClear();
      const second = loadConfig({ JWT_SECRET: SECRETS.JWT_SECRET }, options);
      // ADMIN_TOKEN was not in the file yet: generated now, and only it.
      expect(options.onGeneratedSecrets).toHaveBeenCalledTimes(1);
      expect(Object.keys(options.onGeneratedSecrets.mock.calls[0][0] as object)).toEqual([
        'ADMIN_TOKEN',
      ]);
      expect(second.jwtSecret).toBe(SECRETS.JWT_SECRET);
      expect(second.refSigningSecret).toBe(first.refSigningSecret);
      expect(second.secretsEncryptionKey).toEqual(first.secretsEncryptionKey);
    });

    it('generates different secrets for different files', () => {
      const a = loadConfig({}, options);
      const b = loadConfig({}, { ...options, devSecretsFile: join(dir, 'other.json') });
      expect(b.adminToken).not.toBe(a.adminToken);
      expect(b.jwtSecret).not.toBe(a.jwtSecret);
      expect(b.secretsEncryptionKey).not.toEqual(a.secretsEncryptionKey);
    });
  });
});
