// docs/import-export.md: `npm run cli -- import --tenant <slug> FILE` run for real as a child process against
// this run's database: it shows its progress on stderr and prints the finished import on stdout.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTenant } from '../../factories/tenants.factory';
import { networkOf } from '../../factories/transfer.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { runCli } from '../../utils/service-entry';

// A CLI start from the sources (ts-node) takes seconds, far more on a busy machine.
jest.setTimeout(400_000);

describe('CLI import', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    t = await createTestApp();
    dir = mkdtempSync(join(tmpdir(), 'transfer-cli-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  it('imports a file with a progress bar and prints the result; a bad file exits 1', async () => {
    const tenant = await createTenant(t);
    const rows = Array.from({ length: 5000 }, (_, i) =>
      JSON.stringify({ external_id: `c${i}`, referrer_external_id: i ? `c${(i * 7) % i}` : null }),
    );
    const good = join(dir, 'members.ndjson');
    writeFileSync(good, rows.reverse().join('\n'));
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'external_id,referrer_external_id\nx1,\nx2,ghost\n');
    const [ok, failed, usage] = await Promise.all([
      runCli(['import', '--tenant', tenant.slug, good], {}, 380_000),
      runCli(['import', '--tenant', tenant.slug, bad], {}, 380_000),
      runCli(['import', good], {}, 380_000),
    ]);
    expect(ok.stderr).toMatch(/import (staging|checking|tree|writing|succeeded) \[[=\- ]*\] \d+%/);
    expect(ok.stderr).toMatch(/succeeded .*100% \| 5000 rows/);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({
      status: 'succeeded',
      rows_total: 5000,
      created: 5000,
    });
    const network = await networkOf(t, tenant.slug);
    expect(network.find((m) => m.external_id === 'c0')!.downline_count).toBe(4999);

    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout)).toMatchObject({
      status: 'failed',
      errors: [{ line: 3, code: 'referrer_not_found' }],
    });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--tenant: required/);
  });
});
