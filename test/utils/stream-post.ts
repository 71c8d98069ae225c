import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { TestApp } from './create-test-app';

export interface StreamedAnswer {
  status: number;
  body: Record<string, unknown>;
  /** Bytes of the answer's body. */
  size: number;
  /** Milliseconds from the first byte sent to the end of the answer. */
  ms: number;
  /** The event loop's longest and 99th-percentile delay while the request ran, in ms. */
  maxDelayMs: number;
  p99DelayMs: number;
  /**
   * The longest the event loop was held by this process's own work, in ms: for each tick of a
   * 10 ms timer, the smaller of its interval and the CPU time the process used in it. A loop
   * blocked by a parse shows in both; a process merely waiting for a core on a loaded machine
   * (which delays every tick as much) uses no CPU meanwhile and does not show here.
   */
  maxHeldMs: number;
}

/** Samples the ticks of a 10 ms timer: see StreamedAnswer.maxHeldMs. */
function holdMonitor(): () => number {
  let wall = performance.now();
  let cpu = process.cpuUsage();
  let longest = 0;
  const timer = setInterval(() => {
    const nowWall = performance.now();
    const nowCpu = process.cpuUsage(cpu);
    longest = Math.max(longest, Math.min(nowWall - wall, (nowCpu.user + nowCpu.system) / 1000));
    wall = nowWall;
    cpu = process.cpuUsage();
  }, 10);
  return () => {
    clearInterval(timer);
    return longest;
  };
}

setFlagsFromString('--expose_gc');
/** V8's collector, run before a measurement (below). */
const collectGarbage = runInNewContext('gc') as () => void;

/** The in-process app listening on a port of 127.0.0.1 (supertest then reuses it). */
export async function listening(t: TestApp): Promise<number> {
  const server = t.app.getHttpServer();
  if (!server.listening) await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

/**
 * POSTs `body` over real HTTP to the in-process app, written in `chunk`-byte pieces as a client
 * uploading a file does, and measures the event loop's delay (perf_hooks) meanwhile: the app runs
 * in this process, so a handler that blocks it shows here. A server that answers before the
 * body is all sent gets its answer reported (the rest of the upload is then stopped).
 */
export async function streamPost(
  t: TestApp,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  chunk = 64 * 1024,
): Promise<StreamedAnswer> {
  const port = await listening(t);
  // The test's own garbage (a 40 MB body built just before) is collected now, not in the middle
  // of the measurement, where a full collection would count as the app's delay.
  collectGarbage();
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const held = holdMonitor();
  const started = Date.now();
  try {
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path,
          method: 'POST',
          headers: { ...headers, 'Content-Length': String(body.length) },
        },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (part: Buffer) => parts.push(part));
          res.on('end', () => {
            resolve({ status: res.statusCode!, text: Buffer.concat(parts).toString('utf8') });
            req.destroy();
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      let at = 0;
      const write = () => {
        while (at < body.length && !req.destroyed) {
          const piece = body.subarray(at, at + chunk);
          at += piece.length;
          if (!req.write(piece)) return void req.once('drain', write);
        }
        if (!req.destroyed) req.end();
      };
      write();
    });
    return {
      status: answer.status,
      body: answer.text ? JSON.parse(answer.text) : {},
      size: Buffer.byteLength(answer.text),
      ms: Date.now() - started,
      maxDelayMs: delay.max / 1e6,
      p99DelayMs: delay.percentile(99) / 1e6,
      maxHeldMs: held(),
    };
  } finally {
    held();
    delay.disable();
  }
}
