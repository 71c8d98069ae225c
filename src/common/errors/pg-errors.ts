import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';

/** The CHECK of `tenant_money_budget` (docs/money.md, "The safe range"). */
export const MONEY_BUDGET_CONSTRAINT = 'ck_tenant_money_budget';

/**
 * The fallback mapping of PostgreSQL errors (docs/architecture.md, "Request pipeline"). Services
 * that promise an idempotent answer catch their own unique violations first; what reaches here is a
 * genuine conflict or reference to something missing.
 */
export function mapPgError(
  error: QueryFailedError | DatabaseError,
): { status: number; code: string; detail: string } | undefined {
  // TypeORM wraps the driver's error; the hot reads on the bare pool throw pg's own.
  const raw =
    error instanceof QueryFailedError
      ? (error.driverError as { code?: string; constraint?: string } | undefined)
      : error;
  const code = raw?.code;
  if (code === '23514' && raw?.constraint === MONEY_BUDGET_CONSTRAINT) {
    return {
      status: 422,
      code: 'amount_out_of_range',
      detail:
        "The amount would take the tenant's money beyond 2^53 - 1 kopecks, the range every sum is exact in.",
    };
  }
  switch (code) {
    case '23505':
      return { status: 409, code: 'conflict', detail: 'The object already exists.' };
    case '23503':
      return { status: 404, code: 'not_found', detail: 'A referenced object does not exist.' };
    case '22001': // a string too long for its column
    case '54000': // a value too large to index
    case '22021': // a NUL byte in text
    case '22P05': // a NUL byte in jsonb
    case '23502':
    case '22P02':
    case '22003':
    case '23514':
      return { status: 400, code: 'validation_failed', detail: 'A value is out of range.' };
    default:
      return undefined;
  }
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const driverError = (error as { driverError?: { code?: string; constraint?: string } })
    .driverError;
  const raw = driverError ?? (error as { code?: string; constraint?: string });
  return raw?.code === '23505' && (!constraint || raw.constraint === constraint);
}

/**
 * A deadlock (40P01) or serialization failure (40001): PostgreSQL rolled the transaction back and
 * running it again is expected to succeed.
 */
export function isTransactionConflict(error: unknown): boolean {
  const raw =
    (error as { driverError?: { code?: string } }).driverError ?? (error as { code?: string });
  return raw?.code === '40P01' || raw?.code === '40001';
}

/** SQLSTATEs and socket errors that mean "PostgreSQL is not there right now", not "bad request". */
const UNAVAILABLE_CODES = new Set([
  '57P01', // admin_shutdown: the server is shutting down
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or in recovery
  '53300', // too_many_connections
  '08000',
  '08001',
  '08003',
  '08004',
  '08006', // connection exceptions
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|the database system is (starting up|shutting down|in recovery)/i;

/**
 * True when `error` says the database could not be reached or went away mid-request (a restart,
 * a failover, a full pool that timed out): the client should retry, so it is a 503, never a 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const { code, message, driverError, cause } = e as {
      code?: unknown;
      message?: unknown;
      driverError?: unknown;
      cause?: unknown;
    };
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
    e = driverError ?? cause;
  }
  return false;
}
