/**
 * What every benchmark shares (bench/README.md): a scratch database created and migrated for the
 * run and dropped afterwards, the real application built with the same environment as the tests
 * (test/utils/test-env.ts) and listening on loopback, a timestamped log, the machine's
 * description, and clean-up of the run's Redis keys. A benchmark that crashes exits 1 (its
 * verdicts PASS/FAIL are printed, and a FAIL still exits 0: machines differ, crashes do not).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import type { NestExpressApplication } from '@nestjs/platform-express';
import Redis from 'ioredis';
import { Client } from 'pg';
import { createApp } from '../src/app.setup';
import type { AppConfig } from '../src/config/app-config';
import { loadConfig } from '../src/config/load-config';
import { ensureDatabase, quoteIdent, runMigrations } from '../src/database/ensure-database';
import type { ManagedChild } from '../test/utils/processes';
import { testEnv } from '../test/utils/test-env';

export const BENCH_DATABASE_SERVER =
  process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';
export const BENCH_REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface BenchApp {
  app: NestExpressApplication;
  config: AppConfig;
  /** `http://127.0.0.1:<port>` */
  base: string;
}

export interface Bench {
  runId: string;
  /** The run's scratch database (absent when the benchmark brings its own). */
  databaseUrl: string;
  adminToken: string;
  log: (message: string) => void;
  /**
   * The real application (main.ts's `createApp`), role `api` unless `env` says otherwise,
   * listening on a free loopback port; closed at the end of the run.
   */
  startApp: (env?: NodeJS.ProcessEnv) => Promise<BenchApp>;
  /** Runs at the end of the run, last registered first, whether the run succeeded or not. */
  onCleanup: (fn: () => unknown) => void;
}

export interface BenchOptions {
  /** `bench_<name>_<run id>`: the scratch database; also names the Redis prefix. */
  name: string;
  /**
   * Prepares a database of the benchmark's own (the embed benchmark's seeded one, kept between
   * runs) and answers its URL; without it the run gets a scratch database, dropped at the end.
   */
  database?: (log: (message: string) => void) => Promise<string>;
}

/** `node x.js` banner lines: what this machine is, printed beside every figure. */
export function machineLine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `${os.cpus().length} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;
}

/**
 * Runs `body` with a scratch database and the harness's helpers, then cleans up; sets the exit
 * code (0, or 1 after a crash, whose stack is printed). Call it once, at the end of the file.
 */
export function runBenchmark(options: BenchOptions, body: (bench: Bench) => Promise<void>): void {
  const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const dbName = `bench_${options.name}_${runId}`;
  let databaseUrl = `${BENCH_DATABASE_SERVER}/${dbName}`;
  const queuePrefix = `bench_${runId}`;
  const adminToken = `adm_${randomBytes(24).toString('base64url')}`;
  const started = Date.now();
  const log = (message: string) =>
    process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`);
  const cleanups: (() => unknown)[] = [];

  const startApp = async (env: NodeJS.ProcessEnv = {}): Promise<BenchApp> => {
    const config = loadConfig({
      ...testEnv(),
      DATABASE_URL: databaseUrl,
      REDIS_URL: BENCH_REDIS_URL,
      QUEUE_PREFIX: queuePrefix,
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL: 'silent',
      // What serves the APIs in production: no queue consumers competing for the CPU.
      PROCESS_ROLE: 'api',
      ...env,
    });
    const app = await createApp(config);
    cleanups.push(() => app.close());
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    return { app, config, base: `http://127.0.0.1:${port}` };
  };

  const run = async () => {
    process.stdout.write(`${machineLine()}\n`);
    if (options.database) databaseUrl = await options.database(log);
    else {
      await ensureDatabase(databaseUrl);
      cleanups.unshift(async () => {
        const admin = new Client({ connectionString: `${BENCH_DATABASE_SERVER}/postgres` });
        await admin.connect();
        await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(dbName)} WITH (FORCE)`);
        await admin.end();
        log(`cleaned up (database ${dbName} dropped)`);
      });
    }
    cleanups.unshift(async () => {
      const redis = new Redis(BENCH_REDIS_URL);
      const keys = await redis.keys(`${queuePrefix}:*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    });
    try {
      await runMigrations(databaseUrl);
      log(`database ${new URL(databaseUrl).pathname.slice(1)} migrated`);
      await body({
        runId,
        databaseUrl,
        adminToken,
        log,
        startApp,
        onCleanup: (fn) => cleanups.push(fn),
      });
    } finally {
      for (const cleanup of cleanups.reverse()) {
        await Promise.resolve()
          .then(cleanup)
          .catch((error: unknown) => log(`clean-up step failed: ${String(error)}`));
      }
    }
  };

  run().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stdout.write(
        `benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}

/** POSTs JSON to the app and answers the parsed body; any status from 300 up throws. */
export async function postJson(
  base: string,
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Percentiles and mean of latency samples (ms). */
export interface Stats {
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

export function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return {
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
    min: sorted[0],
    max: sorted[sorted.length - 1],
  };
}

/** `PASS` or `FAIL` for a figure against its target. */
/**
 * Runs autocannon (its `-j` JSON report) in a child process with `args` before the URL, so the
 * load generator does not share the event loop (and the CPU time slice) with the servers under
 * test, which run in this process.
 */
export function autocannonJson<T>(url: string, args: string[]): Promise<T> {
  const bin = require.resolve('autocannon/autocannon.js');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args, '-j', url], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => {
      try {
        resolve(JSON.parse(out) as T);
      } catch {
        reject(new Error(`autocannon exited ${code}: ${err.slice(-2000)}`));
      }
    });
  });
}

export function verdict(pass: boolean): 'PASS' | 'FAIL' {
  return pass ? 'PASS' : 'FAIL';
}

/** Waits until a spawned service process answers `/health/ready` with 200 (or throws its logs). */
export async function untilReady(base: string, child: ManagedChild): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (!child.running) throw new Error(`${child.name} exited:\n${child.tail()}`);
    try {
      if ((await fetch(`${base}/health/ready`, { signal: AbortSignal.timeout(2000) })).ok) return;
    } catch {
      // Not yet.
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${child.name} not ready:\n${child.tail()}`);
}
