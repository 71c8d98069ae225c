// The live OpenAPI document passes Redocly's lint (README.md, "Generated clients"): with the
// `recommended` ruleset as it comes, no error (an error there is what breaks a generated client:
// a path parameter no operation declares, an operation without security, a schema of the wrong
// shape); with the repository's redocly.yaml (recommended plus the rule settings it explains),
// no problem at all. The Redocly CLI the project pins runs as a child process on the document
// the running app serves, exactly as `npx redocly lint` does for a developer.
//
//   OPENAPI_DUMP=/tmp/openapi.json npx jest test/e2e/service/openapi-lint.e2e-spec.ts
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../utils/service-entry';
import { createTestApp, TestApp } from '../../utils/create-test-app';

jest.setTimeout(90_000);

const CLI = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer?: string }[];
}

/** `redocly lint --format=json` on `file` from `cwd` with `args`: its problems, whatever its code. */
function redoclyLint(file: string, cwd: string, args: string[]): Promise<LintProblem[]> {
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      [CLI, 'lint', file, '--format=json', '--max-problems=100000', ...args],
      {
        cwd,
        maxBuffer: 64 * 1024 * 1024,
        timeout: 60_000,
        // No telemetry and no update check: nothing leaves the machine.
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
      (error, stdout, stderr) => {
        const start = stdout.indexOf('{');
        if (start < 0)
          return fail(new Error(`redocly lint printed no JSON: ${stderr} ${error?.message ?? ''}`));
        try {
          done((JSON.parse(stdout.slice(start)) as { problems: LintProblem[] }).problems);
        } catch (e) {
          fail(new Error(`redocly lint: ${String(e)}\n${stdout.slice(0, 2000)}\n${stderr}`));
        }
      },
    );
  });
}

/** One line a problem: `rule severity pointer: message`, easy to read in a failed expectation. */
const describeProblem = (p: LintProblem) =>
  `${p.ruleId} ${p.severity} ${p.location[0]?.pointer ?? ''}: ${p.message}`;

type Operation = {
  responses?: Record<string, unknown>;
  parameters?: { name: string; in: string; required?: boolean; schema?: { default?: unknown } }[];
};

describe('OpenAPI document vs Redocly lint', () => {
  let t: TestApp;
  let dir: string;
  let file: string;
  let doc: { paths: Record<string, Record<string, Operation>> };

  beforeAll(async () => {
    t = await createTestApp();
    const res = await t.http().get('/docs/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body as typeof doc;
    dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
    file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(res.body, null, 2));
    if (process.env.OPENAPI_DUMP) writeFileSync(process.env.OPENAPI_DUMP, JSON.stringify(res.body));
  });
  afterAll(async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    await t?.close();
  });

  it('has no error under the recommended ruleset as it comes', async () => {
    // From a directory with no redocly.yaml, so the repository's settings play no part.
    const problems = await redoclyLint(file, dir, ['--extends=recommended']);
    expect(problems.filter((p) => p.severity === 'error').map(describeProblem)).toEqual([]);
  });

  it("has no problem at all under the repository's redocly.yaml", async () => {
    const problems = await redoclyLint(file, ROOT, ['--config', join(ROOT, 'redocly.yaml')]);
    expect(problems.map(describeProblem)).toEqual([]);
  });

  it('declares a 4XX answer on every API operation (what redocly.yaml asks instead of operation-4xx-response)', () => {
    // Every route of these APIs can refuse a credential, a tenant or an input; the routes the
    // rule is off for (redocly.yaml) are outside them.
    const offenders = Object.entries(doc.paths)
      .filter(([path]) => /^\/(federation|admin)\/|^\/embed\/v1\/data\//.test(path))
      .flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([, op]) => !Object.keys(op.responses ?? {}).some((code) => /^4/.test(code)))
          .map(([method]) => `${method.toUpperCase()} ${path}`),
      );
    expect(offenders).toEqual([]);
  });

  it('requires no parameter that has a default (a generated client would have to send it)', () => {
    // The compiler plugin takes `page: number = 1` for a required field; Optional() says it is not.
    const offenders = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([method, op]) =>
        (op.parameters ?? [])
          .filter((p) => p.required && p.schema?.default !== undefined)
          .map((p) => `${method.toUpperCase()} ${path} ${p.in} ${p.name}`),
      ),
    );
    expect(offenders).toEqual([]);
  });
});
