import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { createSecureContext, rootCertificates } from 'node:tls';
import { AppConfig } from '../config/app-config';
import { isForbiddenAddress } from './ssrf';

export const RESPONSE_EXCERPT_BYTES = 4096;
/** Parsed endpoint URLs kept, at most. */
const MAX_TARGETS = 4096;

interface Target {
  https: boolean;
  hostname: string;
  port: number;
  path: string;
  /** The Host header: host and port as the URL gives them. */
  host: string;
  /** The host is an IP literal in a forbidden range (refused without dialling). */
  forbiddenLiteral: boolean;
}

export type AttemptError =
  | 'http_status'
  | 'redirect'
  | 'timeout'
  | 'connection_refused'
  | 'connection_reset'
  | 'tls'
  | 'dns'
  | 'ssrf_blocked'
  | 'endpoint_disabled'
  | 'internal_error'
  | 'network';

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: AttemptError | null;
  responseBody: string | null;
}

class SsrfBlockedError extends Error {
  readonly code = 'ESSRFBLOCKED';
}

/**
 * Sends one attempt: POST of the exact body bytes, 2xx within the timeout is success and anything
 * else fails (redirects are never followed). Unless private targets are allowed, the address is
 * checked where it is actually dialled (in the socket's DNS lookup), so a DNS answer that changed
 * since the URL was saved cannot reach a forbidden network.
 */
@Injectable()
export class WebhookSender implements OnModuleDestroy {
  private readonly httpsAgent: https.Agent;
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  constructor(private readonly config: AppConfig) {
    const ca = config.webhook.caFile
      ? [...rootCertificates, readFileSync(config.webhook.caFile, 'utf8')]
      : undefined;
    // One secure context: passing `ca` itself would make Node join every CA certificate into each
    // request's pool key (about 1 ms of CPU per attempt).
    const secureContext = ca ? createSecureContext({ ca }) : undefined;
    this.httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64, secureContext });
  }

  onModuleDestroy(): void {
    this.httpsAgent.destroy();
    this.httpAgent.destroy();
  }

  /** Parsed targets by URL (an endpoint's URL changes rarely; parsing it is not free). */
  private readonly targets = new Map<string, Target>();

  private target(url: string): Target {
    let target = this.targets.get(url);
    if (!target) {
      const parsed = new URL(url);
      const https = parsed.protocol === 'https:';
      const hostname = parsed.hostname.replace(/^\[|\]$/g, '');
      target = {
        https,
        hostname,
        port: parsed.port ? Number(parsed.port) : https ? 443 : 80,
        path: parsed.pathname + parsed.search,
        host: parsed.host,
        forbiddenLiteral: isIP(hostname) !== 0 && isForbiddenAddress(hostname),
      };
      if (this.targets.size >= MAX_TARGETS) this.targets.clear();
      this.targets.set(url, target);
    }
    return target;
  }

  send(
    url: string,
    body: string | Buffer,
    headers: Record<string, string>,
  ): Promise<AttemptResult> {
    const started = process.hrtime.bigint();
    const elapsed = () => Math.round(Number(process.hrtime.bigint() - started) / 1e6);
    const fail = (
      error: AttemptError,
      statusCode: number | null = null,
      responseBody: string | null = null,
    ) =>
      ({
        ok: false,
        statusCode,
        durationMs: elapsed(),
        error,
        responseBody,
      }) satisfies AttemptResult;

    const target = this.target(url);
    if (this.guarded && target.forbiddenLiteral) return Promise.resolve(fail('ssrf_blocked'));
    // Headers as a flat list: Node then writes them as given (no per-header bookkeeping), so
    // Host and Content-Length are ours to set.
    const raw = ['Host', target.host, 'Content-Length', String(Buffer.byteLength(body))];
    for (const name in headers) raw.push(name, headers[name]);

    return new Promise<AttemptResult>((resolve) => {
      const request = (target.https ? https : http).request({
        method: 'POST',
        hostname: target.hostname,
        port: target.port,
        path: target.path,
        headers: raw,
        agent: target.https ? this.httpsAgent : this.httpAgent,
        lookup: this.guarded ? guardedLookup : undefined,
      });
      const timer = setTimeout(
        () => request.destroy(new TimeoutError()),
        this.config.webhook.timeoutMs,
      );
      const settle = (result: AttemptResult) => {
        clearTimeout(timer);
        resolve(result);
      };
      request.on('error', (error) => settle(fail(classify(error))));
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_EXCERPT_BYTES)
            chunks.push(chunk.subarray(0, RESPONSE_EXCERPT_BYTES - size));
          size += chunk.length;
        });
        response.on('error', (error) => settle(fail(classify(error), response.statusCode ?? null)));
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          // Decode only whole characters: a cut through a multi-byte one would add U+FFFD.
          // NUL cannot be stored in a Postgres text column: shown as U+FFFD instead.
          const excerpt = new StringDecoder('utf8')
            .write(Buffer.concat(chunks))
            .replaceAll('\0', '\uFFFD');
          if (status >= 200 && status < 300) {
            settle({
              ok: true,
              statusCode: status,
              durationMs: elapsed(),
              error: null,
              responseBody: excerpt,
            });
          } else {
            settle(
              fail(status >= 300 && status < 400 ? 'redirect' : 'http_status', status, excerpt),
            );
          }
        });
      });
      request.end(body);
    });
  }

  private get guarded(): boolean {
    return !this.config.webhook.allowPrivateTargets;
  }
}

class TimeoutError extends Error {
  readonly code = 'ETIMEDOUT_WEBHOOK';
}

/** dns.lookup, refusing forbidden addresses; handles the `all` form Node's happy eyeballs uses. */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    if (!addresses.length || addresses.some((a) => isForbiddenAddress(a.address))) {
      return callback(new SsrfBlockedError(`${hostname} resolves to a forbidden address`), '', 0);
    }
    if (options.all)
      return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
};

function classify(error: unknown): AttemptError {
  // Happy eyeballs reports every address it tried in an AggregateError.
  const inner = (error as { errors?: unknown[] }).errors?.[0];
  const code =
    (error as { code?: string }).code ?? (inner as { code?: string } | undefined)?.code ?? '';
  if (error instanceof TimeoutError || code === 'ETIMEDOUT') return 'timeout';
  if (error instanceof SsrfBlockedError || code === 'ESSRFBLOCKED') return 'ssrf_blocked';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection_reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns';
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY|DEPTH_ZERO|HOSTNAME/i.test(code)) return 'tls';
  return 'network';
}
