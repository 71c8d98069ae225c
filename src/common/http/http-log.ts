import type { IncomingMessage } from 'node:http';
import type { Options } from 'pino-http';
import type { AppConfig } from '../../config/app-config';

/**
 * Request headers whose values are credentials: the ones the service reads (`Authorization`,
 * `Cookie`, `X-Service-Tenant-Key`) and the usual names a client may send a key or token under.
 */
const CREDENTIAL_HEADERS = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-service-tenant-key',
  'x-tenant-key',
  'x-api-key',
  'x-auth-token',
  'x-access-token',
  'x-admin-token',
  'x-csrf-token',
];

/**
 * The access log (pino-http), one definition for the pipeline's logger middleware (nestjs-pino)
 * and the fast lanes, so both write the same line.
 */
export function httpLogOptions(config: AppConfig): Options {
  return {
    level: config.logLevel,
    genReqId: (req: IncomingMessage) => req.id,
    // No working credential in the log (docs/security.md): request credentials and the cookies
    // the answer sets (a sign-in's Set-Cookie is a live session).
    redact: {
      paths: [...CREDENTIAL_HEADERS.map((h) => `req.headers["${h}"]`), 'res.headers["set-cookie"]'],
      censor: '[Redacted]',
    },
    autoLogging: { ignore: (req) => /^\/(health|metrics)/.test(req.url ?? '') },
  };
}
