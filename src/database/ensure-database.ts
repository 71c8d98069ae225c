import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source';

/** Any constant: the advisory lock that lets only one process migrate at a time. */
const MIGRATION_LOCK = 7_310_442_019;

/**
 * Creates the database named in `databaseUrl` when the server does not have it yet. Several
 * processes may start at once: losing the CREATE race (42P04) is fine.
 */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return false;
    try {
      await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
    } catch (error) {
      // Another process created it first: 42P04, or 23505 when both got past the check at once.
      const code = (error as { code?: string }).code;
      if (code !== '42P04' && code !== '23505') throw error;
      return false;
    }
    return true;
  } finally {
    await admin.end();
  }
}

/** Applies pending migrations under a session advisory lock, one process at a time. */
export async function runMigrations(databaseUrl: string): Promise<string[]> {
  const dataSource = new DataSource(dataSourceOptions(databaseUrl));
  await dataSource.initialize();
  const runner = dataSource.createQueryRunner();
  try {
    await runner.connect();
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      return applied.map((m) => m.name);
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await runner.release();
    await dataSource.destroy();
  }
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Connects once and disconnects: the start fails fast, with a clear line, if it cannot. */
export async function checkDatabase(databaseUrl: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * One line an operator can act on for a failure to reach or prepare the database at start, or
 * undefined when `error` is not about reaching it (a bug, shown with its stack instead).
 */
export function describeDatabaseError(error: unknown, databaseUrl: string): string | undefined {
  const url = new URL(databaseUrl);
  const where = `${url.hostname}:${url.port || 5432}`;
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  const code = (error as { code?: unknown })?.code;
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case '3D000':
      return (
        `The database "${name}" does not exist on ${where}. Create it, or start with ` +
        `MIGRATIONS_RUN=true to have it created and migrated.`
      );
    case '28P01':
    case '28000':
      return `PostgreSQL at ${where} refused the login in DATABASE_URL (${message}).`;
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EHOSTUNREACH':
    case 'ETIMEDOUT':
      return `Cannot reach PostgreSQL at ${where} (${code}). Is it running, and is DATABASE_URL right?`;
    default:
      return /timeout|terminated/i.test(message)
        ? `Cannot reach PostgreSQL at ${where} (${message}). Is it running, and is DATABASE_URL right?`
        : undefined;
  }
}
