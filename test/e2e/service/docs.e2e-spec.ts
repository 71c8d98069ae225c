// Docs as tests: every example of the README and the guides (docs/*.md, the example receiver's
// README) is run in order against the real service, as a reader would run it, and its answer is
// compared with the one printed under it. A change that makes a document false fails here.
//
// How the Markdown is read and compared (which blocks run, the `<!-- docs-test: … -->`
// directives, which values are wildcards): test/utils/docs-markdown.ts. How they are run:
//
// - The documents run in one sequence, as a newcomer reads them: the README's walk-through first,
//   then the guides that build on it, each against the state the earlier ones left (one database
//   of this file's own, so the tenant `acme` of the examples is ours).
// - Each ```sh block runs in bash (`set -e -o pipefail`) in a scratch folder standing for the
//   project folder: it holds `.dev-secrets.json` with the service's secrets and a copy of
//   `examples/webhook-receiver`. Variables a block sets are kept for the next blocks.
// - `http://localhost:3000` is the service, started by this test on a free port, and
//   `localhost:4443` and `localhost:4000` (the example receiver's) are other free ports; each is
//   rewritten, with `PORT=…`, in the commands and in the printed answers.
// - A line `NAME=<placeholder>   # the <field> printed above` (`export` optional) is what a reader
//   types after copying a value: here it is set from the newest answer holding that field
//   (`cascaded_bonuses[0].bonus_id`, `message.token`). `# the code in the mail` takes the code
//   of the newest sign-in mail, which this test catches over SMTP (`SMTP_URL`).
// - `npm` has stand-ins in the project folder: `npm ci` does nothing (installed already),
//   `npm start` (re)starts the service once the block ends, with the service variables the
//   command set (`WEBHOOK_CA_FILE=… npm start`), and `npm run -s cli -- …` runs the real CLI
//   (src/cli.ts) against the service's database. Elsewhere (the receiver's folder) npm is npm.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { getMetadataStorage } from 'class-validator';
import { Client } from 'pg';
import { EnvironmentVariables } from '../../../src/config/env.schema';
import { ensureDatabase, quoteIdent, runMigrations } from '../../../src/database/ensure-database';
import { createTestApp, type TestApp } from '../../utils/create-test-app';
import { Bindings, type DocStep, docSteps, matchAnswer, valueAt } from '../../utils/docs-markdown';
import { freePort } from '../../utils/processes';
import { type SmtpCatcher, startSmtpCatcher } from '../../utils/smtp-catcher';
import { entryArgs } from '../../utils/service-entry';
import { TEST_DATABASE_SERVER, testEnv } from '../../utils/test-env';

const ROOT = resolve(__dirname, '../../..');

/** The reading order: the walk-through, the guides that continue it, then the rest. */
const FIRST = ['README.md', 'docs/money.md', 'docs/webhooks.md', 'docs/embedding.md'];
const LAST = ['examples/webhook-receiver/README.md'];
const DOCUMENTS = [
  ...FIRST,
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`)
    .filter((f) => !FIRST.includes(f))
    .sort(),
  ...LAST,
]
  // DOCS_TEST_UPTO=docs/money.md runs the documents up to that one (each builds on the earlier).
  .filter((file, i, all) => {
    const upto = process.env.DOCS_TEST_UPTO;
    return !upto || !all.includes(upto) || i <= all.indexOf(upto);
  })
  .map((file) => ({ file, steps: docSteps(join(ROOT, file), file) }));

/** Service variables a documented `npm start` may set; the test owns the others. */
const OWNED = new Set([
  'NODE_ENV',
  'PORT',
  'PUBLIC_BASE_URL',
  'SHORT_LINK_BASE_URL',
  'DATABASE_URL',
  'REDIS_URL',
  'QUEUE_PREFIX',
  'MIGRATIONS_RUN',
  'LOG_LEVEL',
  'SMTP_URL',
  'ADMIN_TOKEN',
  'JWT_SECRET',
  'REF_SIGNING_SECRET',
  'SECRETS_ENCRYPTION_KEY',
  'RATE_LIMITS',
]);
const SERVICE_VARIABLES = [
  ...new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(EnvironmentVariables, '', true, false)
      .map((m) => m.propertyName),
  ),
].filter((name) => !OWNED.has(name));

/** Files the documents name that a command makes (git-ignored). */
const GENERATED = new Set(['bench/.seed-large.json']);

/** The anchors of a Markdown file's headings (as GitHub makes them) and `<a id>`s. */
function markdownAnchors(path: string): Set<string> {
  const text = readFileSync(path, 'utf8').replace(/```[\s\S]*?```/g, '');
  const anchors = new Set([...text.matchAll(/<a id="([^"]+)"/g)].map((m) => m[1]));
  for (const [, heading] of text.matchAll(/^#+\s+(.*)$/gm)) {
    anchors.add(
      heading
        .replace(/`/g, '')
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}_\- ]/gu, '')
        .replace(/ /g, '-'),
    );
  }
  return anchors;
}

const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
const ASSIGNMENT_FROM_ANSWER =
  /^(\s*)(export\s+)?([A-Za-z_][A-Za-z0-9_]*)=\S*\s+#\s*(?:the\s+)?(\S+)\s+printed above\b.*$/;
const ASSIGNMENT_FROM_MAIL =
  /^(\s*)(export\s+)?([A-Za-z_][A-Za-z0-9_]*)=\S*\s+#\s*the code in the mail\b.*$/;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('docs as tests', () => {
  const runId = randomBytes(4).toString('hex');
  const databaseUrl = `${TEST_DATABASE_SERVER}/referrals_test_docs_${runId}`;
  let project: string;
  let control: string;
  let appPort: number;
  let receiverPort: number;
  /** The example receiver's default port, 4000, in its own README. */
  let otherPort: number;
  let smtp: SmtpCatcher;
  let app: TestApp | undefined;
  let serviceEnv: NodeJS.ProcessEnv;
  /** Every output so far, newest last: where `# the … printed above` looks. */
  const outputs: string[] = [];
  const background: ChildProcess[] = [];
  /** Sign-in mails already used by a `# the code in the mail` line. */
  let mailsUsed = 0;

  beforeAll(async () => {
    [appPort, receiverPort, otherPort] = [await freePort(), await freePort(), await freePort()];
    smtp = await startSmtpCatcher();
    await ensureDatabase(databaseUrl);
    await runMigrations(databaseUrl);
    serviceEnv = {
      ...testEnv(),
      DATABASE_URL: databaseUrl,
      QUEUE_PREFIX: `${process.env.TEST_QUEUE_PREFIX ?? 'test'}_docs`,
      PUBLIC_BASE_URL: `http://localhost:${appPort}`,
      SMTP_URL: smtp.url,
    };

    project = mkdtempSync(join(tmpdir(), 'docs-project-'));
    control = mkdtempSync(join(tmpdir(), 'docs-control-'));
    cpSync(join(ROOT, 'examples'), join(project, 'examples'), {
      recursive: true,
      filter: (src) => !/(processed-events\.json|\.pem|node_modules)$/.test(src),
    });
    writeFileSync(
      join(project, '.dev-secrets.json'),
      JSON.stringify(
        {
          ADMIN_TOKEN: serviceEnv.ADMIN_TOKEN,
          JWT_SECRET: serviceEnv.JWT_SECRET,
          REF_SIGNING_SECRET: serviceEnv.REF_SIGNING_SECRET,
          SECRETS_ENCRYPTION_KEY: serviceEnv.SECRETS_ENCRYPTION_KEY,
        },
        null,
        2,
      ),
    );
    // The CLI, run for real (../../utils/service-entry.ts) against the service's database.
    const cliEnv = Object.entries({ ...serviceEnv, PATH: process.env.PATH, HOME: process.env.HOME })
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${quote(v!)}`)
      .join(' ');
    writeFileSync(
      join(control, 'cli.sh'),
      `#!/bin/sh\ncd ${quote(ROOT)} && exec env -i ${cliEnv} ${quote(process.execPath)} ${entryArgs('cli').join(' ')} "$@"\n`,
      { mode: 0o755 },
    );
  });

  afterAll(async () => {
    stopBackground();
    await app?.close();
    await smtp?.close();
    if (!process.env.KEEP_TEST_DATABASE) {
      const admin = new Client({ connectionString: `${TEST_DATABASE_SERVER}/postgres` });
      await admin.connect();
      const name = new URL(databaseUrl).pathname.slice(1);
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
      await admin.end();
    }
    for (const dir of [project, control]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function stopBackground(): void {
    for (const child of background.splice(0)) {
      if (child.exitCode === null && child.pid) {
        try {
          process.kill(-child.pid, 'SIGTERM'); // its own process group: bash, npm and node
        } catch {
          // already gone
        }
      }
    }
  }

  /** The service as a documented `npm start` would start it, with these variables. */
  async function startService(overrides: NodeJS.ProcessEnv): Promise<void> {
    await app?.close();
    app = undefined;
    app = await createTestApp({ ...serviceEnv, ...overrides });
    await app.app.listen(appPort, '127.0.0.1');
  }

  /** The ports of the examples, in a command or a printed answer, made this run's. */
  function localise(text: string): string {
    return text
      .replace(/\b(localhost|127\.0\.0\.1):3000\b/g, `$1:${appPort}`)
      .replace(/\b(localhost|127\.0\.0\.1):4443\b/g, `$1:${receiverPort}`)
      .replace(/\bPORT=4443\b/g, `PORT=${receiverPort}`)
      .replace(/\b(localhost|127\.0\.0\.1):4000\b/g, `$1:${otherPort}`)
      .replace(/\bPORT=4000\b/g, `PORT=${otherPort}`);
  }

  async function prepare(step: DocStep): Promise<string> {
    const lines: string[] = [];
    for (const line of localise(step.script).split('\n')) {
      const fromAnswer = ASSIGNMENT_FROM_ANSWER.exec(line);
      const fromMail = ASSIGNMENT_FROM_MAIL.exec(line);
      if (fromMail) {
        // The mail is sent in the background, after the email step has answered.
        const deadline = Date.now() + 15_000;
        while (smtp.mails.length <= mailsUsed && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 50));
        }
        const mail = smtp.mails[smtp.mails.length - 1];
        if (smtp.mails.length <= mailsUsed || !mail?.code) {
          throw new Error(`${step.file}:${step.line}: no new sign-in mail was sent`);
        }
        mailsUsed = smtp.mails.length;
        lines.push(`${fromMail[1]}${fromMail[2] ?? ''}${fromMail[3]}=${quote(mail.code)}`);
      } else if (fromAnswer) {
        const value = valueAt(outputs, fromAnswer[4]);
        if (value === undefined) {
          throw new Error(`${step.file}:${step.line}: no answer so far has ${fromAnswer[4]}`);
        }
        lines.push(`${fromAnswer[1]}${fromAnswer[2] ?? ''}${fromAnswer[3]}=${quote(value)}`);
      } else {
        lines.push(line);
      }
    }
    return lines.join('\n');
  }

  function shell(script: string, keepState: boolean): string {
    const state = join(control, 'state.sh');
    return [
      'set -a -e -o pipefail',
      `[ -f ${quote(state)} ] && . ${quote(state)}`,
      keepState
        ? `trap 'export -p | grep -v -E "^declare -x (PWD|OLDPWD|SHLVL|_)=" > ${quote(state)}' EXIT`
        : '',
      `npm() {
  if [ "$PWD" != ${quote(project)} ]; then command npm "$@"; return; fi
  if [ "$*" = ci ]; then return 0; fi
  if [ "$*" = start ]; then
    for v in ${SERVICE_VARIABLES.join(' ')}; do
      if [ -n "\${!v+x}" ]; then printf '%s=%s\\n' "$v" "\${!v}"; fi
    done > ${quote(join(control, 'start.env'))}
    return 0
  fi
  if [ "$1 $2 $3 $4" = "run -s cli --" ]; then shift 4; ${quote(join(control, 'cli.sh'))} "$@"; return; fi
  echo "docs test: no stand-in for \\\`npm $*\\\` (use npm ci, npm start or npm run -s cli -- …)" >&2
  return 2
}`,
      script,
    ].join('\n');
  }

  function spawnShell(script: string, detached: boolean): ChildProcess {
    return spawn('bash', ['-c', script], {
      cwd: project,
      detached,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        LANG: 'C.UTF-8',
        TMPDIR: tmpdir(),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }

  function run(script: string, timeoutMs: number): Promise<Run> {
    return new Promise((done) => {
      const child = spawnShell(shell(script, true), true);
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
      child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      const timer = setTimeout(() => {
        stderr += `\n(killed after ${timeoutMs} ms)`;
        process.kill(-child.pid!, 'SIGKILL');
      }, timeoutMs);
      child.on('close', (code) => {
        clearTimeout(timer);
        done({ code, stdout, stderr });
      });
    });
  }

  /** Starts a long-running block; resolves with its first output once the answer's lines are there. */
  function runInBackground(script: string, lines: number): Promise<Run> {
    return new Promise((done) => {
      const child = spawnShell(shell(script, false), true);
      background.push(child);
      let stdout = '';
      let stderr = '';
      const finish = () => {
        clearTimeout(timer);
        done({ code: child.exitCode, stdout, stderr });
      };
      const timer = setTimeout(finish, 15_000);
      child.stdout!.on('data', (c: Buffer) => {
        stdout += c.toString('utf8');
        if (stdout.split('\n').filter((l) => l.trim()).length >= lines) finish();
      });
      child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      child.on('close', finish);
    });
  }

  describe('the rules that compare answers', () => {
    const json = (text: string) => ({ lang: 'json' as const, text, line: 1, unordered: false });
    it('take per-run values as wildcards', () => {
      const printed = json(
        '{"id":"usr_1WKQ1DCAZBRNGCFDAB3W7NP5N1","at":"2026-11-21T12:25:38.129Z","key":"tk_j9IGUI-_…",' +
          '"money":"1 234,57 ₽","ms":1795266691000,"rest":"…","relative_time":"4 секунды назад"}',
      );
      const real =
        '{"id":"usr_6TFCKPXZFRGFEQG5E6BFBPY0FA","at":"2027-01-02T03:04:05.006Z",' +
        '"key":"tk_yVDd3QnWKXITT6eo2LbCARyH_itR0yvAelxaR-xDeCQ","money":"1\u00a0234,57\u00a0₽",' +
        '"ms":1800000000000,"rest":[1,2],"relative_time":"5 секунд назад"}';
      expect(matchAnswer(printed, real, new Bindings())).toBeUndefined();
    });
    it('catch a wrong value, a missing or unprinted key, and an id that changes its meaning', () => {
      expect(matchAnswer(json('{"a":37500}'), '{"a":37501}', new Bindings())).toMatch(/37501/);
      expect(matchAnswer(json('{"a":1,"b":2}'), '{"a":1}', new Bindings())).toMatch(/missing/);
      expect(matchAnswer(json('{"a":1}'), '{"a":1,"b":2}', new Bindings())).toMatch(/not printed/);
      expect(matchAnswer(json('{"a":1,"…":"…"}'), '{"a":1,"b":2}', new Bindings())).toBeUndefined();
      const two = json(
        '{"a":"usr_1WKQ1DCAZBRNGCFDAB3W7NP5N1","b":"usr_1WKQ1DCAZBRNGCFDAB3W7NP5N1"}',
      );
      const differ = '{"a":"usr_AAAAAAAAAAAAAAAAAAAAAAAAAA","b":"usr_BBBBBBBBBBBBBBBBBBBBBBBBBB"}';
      expect(matchAnswer(two, differ, new Bindings())).toMatch(/stood for/);
    });
    it('compare an http answer by its status, the headers shown and its body', () => {
      const printed = {
        lang: 'http' as const,
        text: 'HTTP/1.1 200 OK\nIdempotent-Replayed: true\n\n{"a":1}',
        line: 1,
        unordered: false,
      };
      const real = 'HTTP/1.1 200 OK\r\nX-Other: 1\r\nIdempotent-Replayed: true\r\n\r\n{"a":1}';
      expect(matchAnswer(printed, real, new Bindings())).toBeUndefined();
      expect(matchAnswer(printed, real.replace('true', 'false'), new Bindings())).toMatch(
        /idempotent-replayed/,
      );
    });
  });

  it('finds every relative link of the documents, and every path they name in backticks', () => {
    const broken: string[] = [];
    const linked = [...DOCUMENTS.map((d) => d.file), 'bench/README.md'];
    for (const file of linked) {
      const text = readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [path, anchor] = target.split('#');
        const resolved = path ? join(ROOT, file, '..', path) : join(ROOT, file);
        if (!existsSync(resolved)) broken.push(`${file}: ${target}`);
        else if (anchor && resolved.endsWith('.md') && !markdownAnchors(resolved).has(anchor)) {
          broken.push(`${file}: ${target} (no such heading)`);
        }
      }
      for (const [, path] of text.matchAll(/`((?:src|test|bench|examples|docs)\/[\w./-]+)`/g)) {
        if (!existsSync(join(ROOT, path)) && !GENERATED.has(path)) broken.push(`${file}: ${path}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('reads every document, and skips few blocks, each with a reason', () => {
    const steps = DOCUMENTS.flatMap((d) => d.steps);
    if (!process.env.DOCS_TEST_UPTO) expect(steps.length).toBeGreaterThan(50);
    const skipped = steps.filter((s) => s.skip !== undefined);
    expect(skipped.length).toBeLessThanOrEqual(12);
    for (const s of skipped) expect(s.skip!.length).toBeGreaterThan(3);
  });

  for (const doc of DOCUMENTS.filter((d) => d.steps.length > 0)) {
    describe(doc.file, () => {
      const bindings = new Bindings();
      afterAll(() => stopBackground());

      for (const step of doc.steps) {
        const first = step.script.split('\n').find((l) => l.trim() && !l.trim().startsWith('#'));
        const title = `line ${step.line}: ${(first ?? '').trim().slice(0, 80)}`;
        if (step.skip !== undefined) {
          it.skip(`${title} (${step.skip})`, () => undefined);
          continue;
        }
        it(
          title,
          async () => {
            const where = `${step.file}:${step.line}`;
            const script = await prepare(step);
            const expectedLines = step.answer
              ? step.answer.text.split('\n').filter((l) => l.trim()).length
              : 1;
            const result = step.background
              ? await runInBackground(script, expectedLines)
              : await run(script, 90_000);
            const report = `${where}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
            if (!step.background && result.code !== 0) {
              throw new Error(`exit status ${result.code}\n${report}`);
            }
            outputs.push(result.stdout);

            const startEnv = join(control, 'start.env');
            if (existsSync(startEnv)) {
              const overrides = Object.fromEntries(
                readFileSync(startEnv, 'utf8')
                  .split('\n')
                  .filter(Boolean)
                  .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
              );
              rmSync(startEnv);
              await startService(overrides);
            }

            if (step.answer) {
              const answer = { ...step.answer, text: localise(step.answer.text) };
              const why = matchAnswer(answer, result.stdout, bindings);
              if (why) {
                throw new Error(
                  `${where}: the answer differs from the one printed at line ${step.answer.line}: ${why}\n${report}`,
                );
              }
            }
          },
          120_000,
        );
      }
    });
  }
});
