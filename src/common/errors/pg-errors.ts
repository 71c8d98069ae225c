import { QueryFailedError } from 'typeorm';

/**
 * The fallback mapping of PostgreSQL errors (ARCHITECTURE "one error path"). Services that promise
 * an idempotent answer catch their own unique violations first; what reaches here is a genuine
 * conflict or reference to something missing.
 */
export function mapPgError(
  error: QueryFailedError,
): { status: number; code: string; detail: string } | undefined {
  const code = (error.driverError as { code?: string } | undefined)?.code;
  switch (code) {
    case '23505':
      return { status: 409, code: 'conflict', detail: 'The object already exists.' };
    case '23503':
      return { status: 404, code: 'not_found', detail: 'A referenced object does not exist.' };
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
