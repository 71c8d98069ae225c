import { spawnService, stopAllChildren } from '../../utils/processes';
import { TEST_DATABASE_SERVER, testEnv } from '../../utils/test-env';

/**
 * docs/operations.md: a start that cannot work stops at once with one line naming the problem and the
 * fix, never a silent wait or a raw stack. Real processes of the service (`src/main.ts`).
 */
jest.setTimeout(90_000);

describe('start-up errors', () => {
  afterAll(() => stopAllChildren());

  const startAndWaitForExit = async (env: NodeJS.ProcessEnv) => {
    const child = spawnService('service', { ...testEnv(), PROCESS_ROLE: 'api', ...env });
    const started = Date.now();
    while (child.running && Date.now() - started < 30_000) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const running = child.running;
    await child.kill();
    return { running, output: child.logs() };
  };

  it('MIGRATIONS_RUN=false against a database that does not exist: one line, exit', async () => {
    const { running, output } = await startAndWaitForExit({
      MIGRATIONS_RUN: 'false',
      DATABASE_URL: `${TEST_DATABASE_SERVER}/referrals_no_such_database`,
    });
    expect(running).toBe(false);
    expect(output.trim()).toBe(
      'The database "referrals_no_such_database" does not exist on 127.0.0.1:5432. Create it, ' +
        'or start with MIGRATIONS_RUN=true to have it created and migrated.',
    );
  });

  it('PostgreSQL not answering: one line naming the address', async () => {
    const { running, output } = await startAndWaitForExit({
      MIGRATIONS_RUN: 'true',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/referrals',
    });
    expect(running).toBe(false);
    expect(output.trim()).toBe(
      'Cannot reach PostgreSQL at 127.0.0.1:1 (ECONNREFUSED). Is it running, and is DATABASE_URL right?',
    );
  });

  it('WEBHOOK_CA_FILE naming a missing file: the configuration message, no stack', async () => {
    const { running, output } = await startAndWaitForExit({
      WEBHOOK_CA_FILE: '/nonexistent/ca.pem',
    });
    expect(running).toBe(false);
    expect(output.trim()).toBe(
      'Invalid configuration:\n  - WEBHOOK_CA_FILE cannot be read (ENOENT: /nonexistent/ca.pem); ' +
        'point it at a PEM certificate file or unset it',
    );
  });
});
