import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ReceivedRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The exact bytes received. */
  body: Buffer;
  at: number;
}

/** What the receiver answers to the n-th request (0-based); default 200 {"received": true}. */
export type Script = (
  n: number,
  req: ReceivedRequest,
) =>
  | { status: number; body?: string; delayMs?: number; headers?: Record<string, string> }
  | 'hang'
  | 'reset';

export interface HttpsReceiver {
  url: string;
  port: number;
  caFile: string;
  requests: ReceivedRequest[];
  script: Script;
  close: () => Promise<void>;
  /** Resolves once `count` requests have arrived (or rejects after `timeoutMs`). */
  waitFor: (count: number, timeoutMs?: number) => Promise<ReceivedRequest[]>;
}

let cached: { dir: string; key: string; cert: string } | undefined;

/** A self-signed certificate for localhost and 127.0.0.1, made once per test process. */
export function selfSignedCertificate(): {
  dir: string;
  key: string;
  cert: string;
  caFile: string;
} {
  if (!cached) {
    const dir = mkdtempSync(join(tmpdir(), 'webhook-receiver-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    cached = {
      dir,
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    };
  }
  return { ...cached, caFile: join(cached.dir, 'cert.pem') };
}

/** A real HTTPS receiver on loopback with scripted answers, recording every request's raw bytes. */
export async function startHttpsReceiver(
  script: Script = () => ({ status: 200 }),
): Promise<HttpsReceiver> {
  const { key, cert, caFile } = selfSignedCertificate();
  const requests: ReceivedRequest[] = [];
  const waiters: { count: number; resolve: (r: ReceivedRequest[]) => void }[] = [];
  const receiver = { script } as HttpsReceiver;
  const server = https.createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: ReceivedRequest = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks),
        at: Date.now(),
      };
      const n = requests.length;
      requests.push(received);
      for (const w of [...waiters])
        if (requests.length >= w.count) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(requests);
        }
      const answer = receiver.script(n, received);
      if (answer === 'hang') return;
      if (answer === 'reset') return req.socket.destroy();
      setTimeout(() => {
        res.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers });
        res.end(answer.body ?? (answer.status < 300 ? '{"received":true}' : '{"error":"nope"}'));
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(receiver, {
    url: `https://localhost:${port}/hook`,
    port,
    caFile,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
    waitFor: (count: number, timeoutMs = 15000) =>
      new Promise<ReceivedRequest[]>((resolve, reject) => {
        if (requests.length >= count) return resolve(requests);
        const timer = setTimeout(
          () =>
            reject(
              new Error(`waited ${timeoutMs} ms for ${count} requests, got ${requests.length}`),
            ),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: (r) => {
            clearTimeout(timer);
            resolve(r);
          },
        });
      }),
  });
}

export function writeTempFile(name: string, content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'tmp-')), name);
  writeFileSync(path, content);
  return path;
}
