// How a test starts the service or its CLI as a real child process (README.md, "Tests"): from
// the build in dist/ when it is newer than every file in src/, which is the case in CI (it builds
// before it tests); otherwise through ts-node on the sources, so a test run after an edit never
// starts stale code. A built start takes about 2 s; ts-node compiles the whole AppModule on every
// start (about 6 s, far more on a busy machine), and the suite starts some sixty children.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { testEnv } from './test-env';

/** The repository's root, the working directory of every child. */
export const ROOT = resolve(__dirname, '../..');

let built: boolean | undefined;

/** True when dist/ holds a build newer than every source file. */
function builtIsCurrent(): boolean {
  if (built === undefined) {
    const stamp = join(ROOT, 'dist', 'main.js');
    built =
      existsSync(stamp) &&
      existsSync(join(ROOT, 'dist', 'cli.js')) &&
      newestIn(join(ROOT, 'src')) < statSync(stamp).mtimeMs;
  }
  return built;
}

/** The node arguments that run `src/<entry>.ts`: `dist/<entry>.js` when current, else ts-node. */
export function entryArgs(entry: 'main' | 'cli'): string[] {
  return builtIsCurrent()
    ? [join('dist', `${entry}.js`)]
    : ['-r', 'ts-node/register/transpile-only', join('src', `${entry}.ts`)];
}

function newestIn(dir: string): number {
  let newest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestIn(path) : statSync(path).mtimeMs);
  }
  return newest;
}

export interface CliResult {
  /** The exit code; null when the CLI was killed (e.g. by the timeout). */
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the operator CLI (`npm run cli -- …`) for real against this run's database and Redis
 * (`testEnv()`, then `env`), and resolves when it exits, whatever its code.
 */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 140_000,
): Promise<CliResult> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [...entryArgs('cli'), ...args],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...testEnv(), ...env },
        timeout: timeoutMs,
        maxBuffer: 4 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}
