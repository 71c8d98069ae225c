/**
 * Real child processes for fault-injection tests: a private redis-server that a test may stop and
 * start at will (never the shared one), and worker processes of the service (`src/main.ts` with
 * PROCESS_ROLE=worker) that a test may SIGKILL. Every child is tracked so `stopAllChildren()` in
 * afterAll ends whatever a failing test left behind. Each child also runs under a small shell
 * watchdog that SIGKILLs it once the test process is gone, so a test run that is itself killed
 * (a CI timeout, a SIGKILLed Jest worker) leaves no redis-server or worker behind.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { entryArgs, ROOT } from './service-entry';

/** Kept per child for error messages: enough to show why a worker did not come up. */
const OUTPUT_LIMIT = 64 * 1024;
const PID_LINE = /^@@child-pid (\d+)\n/m;

/**
 * `sh -c WATCHDOG sh <test pid> <command> <args…>`: runs the command in the background, prints its
 * pid, kills it when the test process disappears, and exits with the command's status.
 */
const WATCHDOG = [
  'parent=$1; shift',
  '"$@" &',
  'child=$!',
  'echo "@@child-pid $child"',
  '( while kill -0 "$parent" 2>/dev/null; do sleep 0.5; done; kill -9 "$child" 2>/dev/null ) &',
  'watcher=$!',
  'wait "$child"; code=$?',
  'kill "$watcher" 2>/dev/null',
  'exit $code',
].join('\n');

const children = new Set<ManagedChild>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const c of children) c.signal('SIGKILL');
  });
}

/** A free TCP port on loopback (the OS picks it; released before it is returned). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

export class ManagedChild {
  /** The watchdog shell; the command itself is `pid`. */
  private readonly shell: ChildProcess;
  private commandPid?: number;
  private output = '';
  private exitStatus?: string;
  private readonly exited: Promise<void>;
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly name: string,
    command: string,
    args: string[],
    env: NodeJS.ProcessEnv,
  ) {
    installExitHook();
    this.shell = spawn('sh', ['-c', WATCHDOG, 'sh', String(process.pid), command, ...args], {
      cwd: ROOT,
      env: Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const append = (chunk: Buffer) => {
      this.output += chunk.toString('utf8');
      if (this.commandPid === undefined) {
        const match = PID_LINE.exec(this.output);
        if (match) {
          this.commandPid = Number(match[1]);
          this.output = this.output.replace(PID_LINE, '');
        }
      }
      this.output = this.output.slice(-OUTPUT_LIMIT);
      for (const listener of [...this.listeners]) listener();
    };
    this.shell.stdout?.on('data', append);
    this.shell.stderr?.on('data', append);
    this.exited = new Promise((done) => {
      this.shell.once('exit', (code, signal) => {
        this.exitStatus = signal ? `signal ${signal}` : `code ${code}`;
        children.delete(this);
        for (const listener of [...this.listeners]) listener();
        done();
      });
      this.shell.once('error', (error) => {
        this.output += `\n[spawn error] ${error.message}\n`;
        this.exitStatus = 'spawn error';
        children.delete(this);
        done();
      });
    });
    children.add(this);
  }

  /** The command's own pid (not the watchdog's), once known. */
  get pid(): number | undefined {
    return this.commandPid;
  }

  get running(): boolean {
    return this.exitStatus === undefined;
  }

  /** The last 64 KiB of stdout and stderr, interleaved. */
  logs(): string {
    return this.output;
  }

  /** The tail of the output, for error messages. */
  tail(chars = 3000): string {
    return this.output.slice(-chars);
  }

  /** Resolves when the output matches `pattern`; rejects on exit or after `timeoutMs`. */
  waitForOutput(pattern: RegExp, timeoutMs: number, what = String(pattern)): Promise<void> {
    return new Promise((done, reject) => {
      const started = Date.now();
      let timer: NodeJS.Timeout | undefined = undefined;
      const finish = (error?: Error) => {
        this.listeners.delete(check);
        clearTimeout(timer);
        if (error) reject(error);
        else done();
      };
      const check = () => {
        if (pattern.test(this.output)) return finish();
        if (!this.running) {
          finish(
            new Error(
              `${this.name} (pid ${this.pid}) exited (${this.exitStatus}) before ${what}; ` +
                `output:\n${this.tail()}`,
            ),
          );
        }
      };
      timer = setTimeout(
        () =>
          finish(
            new Error(
              `${this.name} (pid ${this.pid}): no ${what} within ${timeoutMs} ms ` +
                `(waited ${Date.now() - started} ms); output:\n${this.tail()}`,
            ),
          ),
        timeoutMs,
      );
      this.listeners.add(check);
      check();
    });
  }

  /**
   * Sends `signal` to the command at once (synchronously, e.g. from inside a receiver script).
   * Before its pid is known the watchdog shell gets SIGKILL, and its watcher ends the command.
   */
  signal(signal: NodeJS.Signals): void {
    if (!this.running) return;
    try {
      if (this.commandPid !== undefined) process.kill(this.commandPid, signal);
      else this.shell.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  }

  /** Sends `signal` and waits (bounded) until the command has exited; then SIGKILL. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.signal(signal);
    const exited = await Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>((done) => setTimeout(() => done(false), timeoutMs).unref()),
    ]);
    if (!exited) {
      this.signal('SIGKILL');
      await this.exited;
    }
  }

  /** SIGKILL: a crash, no shutdown hooks. */
  kill(): Promise<void> {
    return this.stop('SIGKILL');
  }
}

/** Ends every child still running (afterAll), each by its own pid. */
export async function stopAllChildren(): Promise<void> {
  await Promise.all([...children].map((c) => c.kill()));
}

/** A redis-server of this test file only, on its own port, without persistence. */
export class PrivateRedis {
  private process?: ManagedChild;

  private constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.process?.running ?? false;
  }

  /** Starts a fresh, empty redis-server on a free port and waits until it accepts connections. */
  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.start();
    return redis;
  }

  /** (Re)starts the server on the same port; it comes back empty (no RDB, no AOF). */
  async start(timeoutMs = 10_000): Promise<void> {
    if (this.running) return;
    this.process = new ManagedChild(
      `redis-server :${this.port}`,
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--protected-mode',
        'no',
      ],
      { PATH: process.env.PATH },
    );
    await this.process.waitForOutput(
      /Ready to accept connections/,
      timeoutMs,
      `"Ready to accept connections" on port ${this.port}`,
    );
  }

  /** Stops the server abruptly (SIGKILL, as a crash) and waits until it has exited. */
  async stop(): Promise<void> {
    await this.process?.kill();
  }
}

/**
 * Starts the service (`src/main.ts`, built or through ts-node: ./service-entry.ts) with exactly
 * `env` (plus PATH and HOME), i.e. a real worker process of the service when PROCESS_ROLE=worker.
 */
export function spawnService(name: string, env: NodeJS.ProcessEnv): ManagedChild {
  return new ManagedChild(name, process.execPath, entryArgs('main'), {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...env,
  });
}

/** Spawns a worker process (PROCESS_ROLE=worker) at once; LOG_LEVEL=info for its start line. */
export function spawnWorker(name: string, env: NodeJS.ProcessEnv): ManagedChild {
  return spawnService(name, { ...env, LOG_LEVEL: 'info', PROCESS_ROLE: 'worker' });
}

/** Waits for a worker's 'Worker started' line (its consumers and sweeper are running by then). */
export async function workerStarted(worker: ManagedChild, timeoutMs = 30_000): Promise<void> {
  try {
    await worker.waitForOutput(/Worker started/, timeoutMs, `'Worker started'`);
  } catch (error) {
    await worker.kill();
    throw error;
  }
}

/** Spawns a worker and waits until it has started. */
export async function startWorker(
  name: string,
  env: NodeJS.ProcessEnv,
  timeoutMs = 30_000,
): Promise<ManagedChild> {
  const worker = spawnWorker(name, env);
  await workerStarted(worker, timeoutMs);
  return worker;
}
