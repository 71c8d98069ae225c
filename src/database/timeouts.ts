/**
 * The statement_timeout of work that may rightly run for minutes (a million-member import's
 * statements, a payout run over a whole program, an export streamed to a slow reader): set with
 * `SET LOCAL` in its transaction (or on its own connection) instead of DATABASE_STATEMENT_TIMEOUT_MS.
 */
export const LONG_STATEMENT_TIMEOUT = '1h';
